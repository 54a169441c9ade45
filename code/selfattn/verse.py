"""A poem's form, for a model that reads Tang poems: where its attention goes, and poems written in it.

A regulated poem (:mod:`selfattn.poems`) has lines of ``line_length`` characters in couplets: a
line, a comma, a line, a full stop, then a line break. :func:`form` spells that out position by
position; :func:`write` lets a model choose the characters and puts the punctuation where the
form does; :func:`attention_from_last_line` measures where each head of a trained model looks
from the last line of a quatrain (four lines: two couplets).
"""

from __future__ import annotations

import re

import torch

from selfattn.anatomy import gpt_trace
from selfattn.errors import ConfigError
from selfattn.language import say
from selfattn.poems import HAN
from selfattn.sampling import Sampling
from selfattn.tokenizers import CharTokenizer

LINE_LENGTHS = (5, 7)  # five-character and seven-character regulated verse
BEFORE_A_POEM = "\n\n"  # what the text holds before every poem but its first: a blank line


def form(line_length: int = 5, couplets: int = 2) -> list[str | None]:
    """What each position of a poem holds: ``None`` where a character goes, else the punctuation
    or the line break the form puts there."""
    if line_length not in LINE_LENGTHS:
        raise ConfigError(
            say("line_length={n}: regulated verse has lines of 5 or 7 characters.", n=line_length)
        )
    if couplets < 1:
        raise ConfigError(say("couplets={n}: a poem has at least one couplet.", n=couplets))
    couplet = [None] * line_length + ["，"] + [None] * line_length + ["。", "\n"]
    return couplet * couplets


def chinese_ids(tokenizer: CharTokenizer) -> torch.Tensor:
    """(V,) True for the ids of Chinese characters, False for punctuation and line breaks."""
    return torch.tensor([bool(re.fullmatch(HAN, char)) for char in tokenizer.chars])


@torch.no_grad()
def write(
    model: torch.nn.Module,
    tokenizer: CharTokenizer,
    prompt: str = "",
    line_length: int = 5,
    couplets: int = 2,
    sampling: Sampling | None = None,
    generator: torch.Generator | None = None,
) -> str:
    """A poem in regulated form that begins with the characters of ``prompt``.

    The form decides where a comma, a full stop or a line break goes; at every other position the
    model chooses, among Chinese characters only, with ``sampling`` (default: its own probabilities).
    """
    slots = form(line_length, couplets)
    places = slots.count(None)
    unfit = [char for char in prompt if not re.fullmatch(HAN, char)]
    if unfit:
        raise ConfigError(
            say(
                "prompt={prompt!r}: {char!r} is not a Chinese character; the form puts the punctuation "
                "in place, so give only the poem's first characters.",
                prompt=prompt,
                char=unfit[0],
            )
        )
    if len(prompt) > places:
        raise ConfigError(
            say(
                "prompt={prompt!r}: the poem has {n} characters; give at most that many.",
                prompt=prompt,
                n=places,
            )
        )
    sampling = sampling or Sampling()
    given = iter(tokenizer.encode(prompt))  # an unknown character is named here
    allowed = chinese_ids(tokenizer)  # (V,)
    idx = torch.tensor([tokenizer.encode(BEFORE_A_POEM)])  # (1, T)
    for slot in slots:
        if slot is not None:
            next_id = tokenizer.encode(slot)[0]
        else:
            next_id = next(given, None)
        if next_id is None:
            logits, _ = model(idx[:, -model.block_size :])  # (1, T, V)
            logits = logits[:, -1, :].masked_fill(~allowed, float("-inf"))  # (1, V): characters only
            next_id = int(sampling.choose(logits, generator))
        idx = torch.cat((idx, torch.tensor([[next_id]])), dim=1)  # (1, T + 1)
    return tokenizer.decode(idx[0, len(BEFORE_A_POEM) :].tolist()).rstrip("\n")


def quatrains(text: str, line_length: int = 5) -> list[str]:
    """The first two couplets, each with its line break, of every poem of ``text`` whose lines have
    ``line_length`` characters: a quatrain, or a longer poem's first four lines."""
    couplet = form(line_length, 1)
    two = re.compile("".join("[^，。\n]" if slot is None else slot for slot in couplet * 2))
    return [match[0] for poem in text.split(BEFORE_A_POEM) if (match := two.match(poem + "\n"))]


@torch.no_grad()
def attention_from_last_line(
    model: torch.nn.Module, tokenizer: CharTokenizer, poems: list[str], line_length: int = 5
) -> torch.Tensor:
    """Where each head looks from the characters of a quatrain's last line, on average.

    Returns (n_layer, n_head, line_length, T): the weight each character of line 4 gives to each
    position of the quatrain (T of them), averaged over ``poems`` (quatrains of ``line_length``).
    """
    idx = torch.tensor([tokenizer.encode(poem) for poem in poems])  # (N, T)
    last_line = slice(3 * line_length + 4, 4 * line_length + 4)  # the positions of line 4's characters
    layers = [gpt_trace(model, idx, layer)["wei"][:, :, last_line, :] for layer in range(len(model.blocks))]
    return torch.stack([wei.mean(dim=0) for wei in layers])  # (n_layer, nh, line_length, T)
