"""A six-token toy for watching one attention head learn.

The sentence "Your journey starts with one step" becomes six GPT-2 tokens, each
a random 6-number vector (token embedding plus position embedding, drawn with
standard deviation 1 and then frozen). Only the head's query, key and value
projections train, with Adam, so that each position's output approaches the
*next* position's input vector; the last position aims at its own vector.

``run_toy(ToyConfig())`` repeats a popular notebook's experiment number for
number: same seed, same layers created in the same order, same optimizer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields

import torch
import torch.nn as nn
from torch.nn import functional as F

from selfattn.config import ConfigError
from selfattn.tokenizers import gpt2_tokenizer

SENTENCE = "Your journey starts with one step"
SNAPSHOT_STEPS = (0, 20, 50, 100, 200)
GPT2_VOCAB_SIZE = 50257
MAX_STEPS = 20_000  # about a minute of training on a laptop
MAX_WIDTH = 256


@dataclass(frozen=True)
class ToyConfig:
    """The toy's knobs. The defaults are the notebook's experiment."""

    learning_rate: float = 0.05
    steps: int = 201  # optimizer steps, numbered 0 .. steps - 1
    seed: int = 42
    causal: bool = False  # mask future positions, as a language model must
    learn_values: bool = True  # False freezes the value projection at the identity
    n_embd: int = 6
    head_size: int = 4

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool":
                if not isinstance(value, bool):
                    raise ConfigError(f"{f.name}={value!r}: {f.name} must be True or False.")
            elif f.type == "float":
                _check_learning_rate(value)
            else:
                low, high = {"steps": (1, MAX_STEPS), "seed": (0, 2**63 - 1)}.get(f.name, (1, MAX_WIDTH))
                _check_int(f.name, value, low, high)


def _check_learning_rate(value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(
            f"learning_rate={value!r} ({type(value).__name__}): learning_rate must be a number, "
            "e.g. learning_rate=0.05."
        )
    if not math.isfinite(value) or not 0 < value <= 10:
        raise ConfigError(
            f"learning_rate={value}: learning_rate must be a finite number greater than 0 and at most 10 "
            "(this toy trains well between about 0.005 and 0.5)."
        )


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(
            f"{name}={value!r} ({type(value).__name__}): {name} must be a whole number (int) "
            f"from {low} to {high}."
        )
    if not low <= value <= high:
        raise ConfigError(f"{name}={value}: {name} must be from {low} to {high}.")


@dataclass
class ToyRun:
    """Everything a run produced. Weights in ``snapshots`` are those of that step's forward pass."""

    config: ToyConfig
    tokens: list[str]  # the T tokens as text
    x: torch.Tensor  # (T, C): the frozen inputs
    target: torch.Tensor  # (T, C): row t is x[t + 1]; the last row is x[T - 1]
    query: nn.Linear
    key: nn.Linear
    value: nn.Linear
    losses: list[float] = field(default_factory=list)  # one per step, before that step's update
    snapshots: dict[int, torch.Tensor] = field(default_factory=dict)  # step -> (T, T) weights

    @property
    def final_loss(self) -> float:
        return self.losses[-1]

    @torch.no_grad()
    def attend(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The trained head's weights (T, T) and outputs (T, C) on ``x``."""
        return attend(self.x, self.query, self.key, self.value, self.config.causal)


def attend(
    x: torch.Tensor, query: nn.Linear, key: nn.Linear, value: nn.Linear, causal: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """One head on one sequence: returns the attention weights and the outputs."""
    T = x.shape[0]
    q, k, v = query(x), key(x), value(x)  # (T, hs), (T, hs), (T, C)
    scores = q @ k.T / k.shape[-1] ** 0.5  # (T, T)
    if causal:
        future = torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)  # (T, T): True above the diagonal
        scores = scores.masked_fill(future, float("-inf"))
    wei = F.softmax(scores, dim=-1)  # (T, T)
    return wei, wei @ v  # (T, T), (T, C)


def run_toy(
    config: ToyConfig | None = None, text: str = SENTENCE, snapshot_steps: Iterable[int] = SNAPSHOT_STEPS
) -> ToyRun:
    """Build the toy from ``config.seed`` and train it, keeping weights at ``snapshot_steps``.

    The last step is always kept too. The global random state is left as it was.
    """
    with _one_thread():
        return _run_toy(config, text, snapshot_steps)


@contextmanager
def _one_thread() -> Iterator[None]:
    """Six-by-six matrices: hand-offs between CPU threads would cost more than the arithmetic."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _run_toy(config: ToyConfig | None, text: str, snapshot_steps: Iterable[int]) -> ToyRun:
    config = ToyConfig() if config is None else config
    tokenizer = gpt2_tokenizer()
    ids = tokenizer.encode(text)
    if len(ids) < 2:
        raise ConfigError(f"text={text!r} has {len(ids)} token(s); the toy needs at least 2.")
    tokens = [tokenizer.decode([i]) for i in ids]
    T, C = len(ids), config.n_embd
    keep = {s for s in snapshot_steps if 0 <= s < config.steps} | {config.steps - 1}
    with torch.random.fork_rng():
        torch.manual_seed(config.seed)
        tok_emb = nn.Embedding(GPT2_VOCAB_SIZE, C)
        pos_emb = nn.Embedding(T, C)
        nn.init.normal_(tok_emb.weight, std=1.0)
        nn.init.normal_(pos_emb.weight, std=1.0)
        x = (tok_emb(torch.tensor(ids)) + pos_emb(torch.arange(T))).detach()  # (T, C)
        query = nn.Linear(C, config.head_size, bias=False)
        key = nn.Linear(C, config.head_size, bias=False)
        value = nn.Linear(C, C, bias=False)
    target = torch.cat([x[1:], x[-1:]])  # (T, C): the next position's vector
    trained = [*query.parameters(), *key.parameters()]
    if config.learn_values:
        trained += list(value.parameters())
    else:
        value.weight.requires_grad_(False)
        value.weight.copy_(torch.eye(C))  # each value is its own input vector
    optimizer = torch.optim.Adam(trained, lr=config.learning_rate)
    run = ToyRun(config, tokens, x, target, query, key, value)
    for step in range(config.steps):
        wei, out = attend(x, query, key, value, config.causal)  # (T, T), (T, C)
        loss = ((out - target) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        run.losses.append(loss.item())
        if step in keep:
            run.snapshots[step] = wei.detach().clone()
    return run
