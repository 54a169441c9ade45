"""How a language model chooses its next token: the model's own probabilities, reshaped or not.

``generate`` (in :mod:`selfattn.models`) asks a :class:`Sampling` for each new id.
With its defaults it draws from softmax of the model's scores, unchanged. Its four
settings reshape that distribution first, in this order:

- ``temperature`` divides the scores: below 1 the likely tokens grow likelier, above 1 the
  distribution flattens;
- ``top_k`` keeps the ``k`` likeliest tokens and gives every other one probability zero;
- ``top_p`` (nucleus sampling) keeps the fewest likeliest tokens whose probabilities add up
  to at least ``p``;
- ``greedy`` takes the likeliest token every time, and draws nothing.

The rest of the module measures what a sample costs and gains: how many of its words
are real words, and how varied its text is.
"""

from __future__ import annotations

import re

import torch
from torch.nn import functional as F

from selfattn.errors import ConfigError
from selfattn.language import say, words
from selfattn.settings import checked, setting

# Dividing a score s by the temperature t overflows float32 (largest 3.4e38) once |s| / t does:
# from 1e-30 up, scores as large as 1e8 stay finite, far beyond any model's. Checked as a bound
# with the other settings, a bad value is refused before any work is done; checking the divided
# scores instead would take a score that is -inf already (a token ruled out) for an overflow.
MIN_TEMPERATURE = 1e-30


@checked
class Sampling:
    """How to choose each next token (the defaults: draw from the model's own probabilities)."""

    temperature: float = setting(
        1.0,
        "divide the scores by this before softmax",
        low=MIN_TEMPERATURE,
        hint=words(
            "dividing the scores by less overflows float32 to inf and nan; 1 leaves the scores alone; "
            "for the likeliest token every time, use greedy=True"
        ),
    )
    top_k: int | None = setting(None, "keep only the k likeliest tokens", low=1)
    top_p: float | None = setting(
        None, "keep the fewest likeliest tokens whose probabilities reach p", low=0, low_open=True, high=1
    )
    greedy: bool = setting(False, "always take the likeliest token")

    def check_together(self) -> None:
        reshaped = self.temperature != 1.0 or self.top_k is not None or self.top_p is not None
        if self.greedy and reshaped:
            raise ConfigError(
                say(
                    "greedy=True takes the likeliest token, so temperature, top_k and top_p change nothing: "
                    "leave them out, or set greedy=False to sample."
                )
            )

    def probabilities(self, logits: torch.Tensor) -> torch.Tensor:
        """The distribution to draw from: ``logits`` (B, V) reshaped by the settings, (B, V)."""
        vocab_size = logits.shape[-1]
        if self.top_k is not None and self.top_k > vocab_size:
            raise ConfigError(
                say(
                    "top_k={k}: top_k must be at most the {V} tokens of the vocabulary.",
                    k=self.top_k,
                    V=vocab_size,
                )
            )
        logits = logits / self.temperature  # (B, V)
        if self.top_k is not None:
            kth = torch.topk(logits, self.top_k, dim=-1).values[:, [-1]]  # (B, 1): the k-th largest
            logits = logits.masked_fill(logits < kth, float("-inf"))  # (B, V)
        probs = F.softmax(logits, dim=-1)  # (B, V)
        if self.top_p is not None:
            ranked, order = probs.sort(dim=-1, descending=True)  # (B, V), likeliest first
            above = ranked.cumsum(dim=-1) - ranked  # (B, V): the mass of the tokens ranked above
            dropped = above >= self.top_p  # (B, V): the kept set reached p before this token
            probs = probs.masked_fill(dropped.scatter(-1, order, dropped), 0.0)  # back in vocab order
            probs = probs / probs.sum(dim=-1, keepdim=True)  # (B, V): the kept ones sum to 1
        return probs

    def choose(self, logits: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """One next id per row of ``logits`` (B, V): (B, 1)."""
        if self.greedy:
            return logits.argmax(dim=-1, keepdim=True)  # (B, 1)
        probs = self.probabilities(logits)  # (B, V)
        return torch.multinomial(probs, 1, generator=generator)  # (B, 1)


def words(text: str) -> list[str]:
    """The words of ``text``: runs of letters and apostrophes."""
    return re.findall(r"[A-Za-z']+", text)


def real_word_share(text: str, known: set[str]) -> float:
    """The share of the words of ``text`` that are in ``known`` (0 when it has no words)."""
    written = words(text)
    return sum(word in known for word in written) / len(written) if written else 0.0


def distinct_share(text: str, n: int = 4) -> float:
    """Distinct ``n``-character pieces of ``text`` per piece: 1 if none repeats, near 0 in a loop."""
    pieces = [text[i : i + n] for i in range(len(text) - n + 1)]
    return len(set(pieces)) / len(pieces) if pieces else 0.0
