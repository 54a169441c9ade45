"""A six-token toy for watching one attention head learn.

The sentence "Your journey starts with one step" becomes six GPT-2 tokens, each
a random 6-number vector (token embedding plus position embedding, drawn with
standard deviation 1 and then frozen). Only the head's query, key and value
projections train, with Adam, so that each position's output approaches the
*next* position's input vector; the last position aims at its own vector.

``untrained_toy()`` builds the inputs and the head as they are before training;
``run_toy(ToyConfig())`` trains them and repeats a well-known notebook
experiment number for number: same seed, same layers created in the same
order, same optimizer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import torch
import torch.nn as nn

from selfattn.anatomy import stages
from selfattn.config import LARGEST_SEED, SEED_HINT
from selfattn.errors import ConfigError
from selfattn.language import say, words
from selfattn.settings import checked, setting
from selfattn.tokenizers import gpt2_tokenizer

SENTENCE = "Your journey starts with one step"
SNAPSHOT_STEPS = (0, 20, 50, 100, 200)
GPT2_VOCAB_SIZE = 50257
MAX_STEPS = 20_000  # about a minute of training on a laptop
MAX_WIDTH = 256


@checked
class ToyConfig:
    """The toy's knobs. The defaults are the notebook's experiment."""

    learning_rate: float = setting(
        0.05,
        "Adam's step size",
        low=0,
        low_open=True,
        high=10,
        hint=words("this toy trains well from 0.005 to 0.5"),
    )
    steps: int = setting(201, "optimizer steps, numbered 0 .. steps - 1", low=1, high=MAX_STEPS)
    seed: int = setting(
        42, "seed for the inputs and the head's starting weights", low=0, high=LARGEST_SEED, hint=SEED_HINT
    )
    causal: bool = setting(False, "mask future positions, as a language model must")
    learn_values: bool = setting(True, "train the value projection (False: freeze it at the identity)")
    n_embd: int = setting(6, "width of each token's input vector", low=1, high=MAX_WIDTH)
    head_size: int = setting(4, "width of the queries and keys", low=1, high=MAX_WIDTH)


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
        s = stages(self, self.x, self.config.causal)
        return s.wei, s.out


def untrained_toy(config: ToyConfig | None = None, text: str = SENTENCE) -> ToyRun:
    """The toy before any training: frozen inputs, targets, and the head's starting weights.

    ``run_toy`` trains exactly this. The global random state is left as it was.
    """
    config = ToyConfig() if config is None else config
    tokenizer = gpt2_tokenizer()
    ids = tokenizer.encode(text)
    if len(ids) < 2:
        raise ConfigError(
            say("text={text!r} has {n} token(s); the toy needs at least 2.", text=text, n=len(ids))
        )
    tokens = [tokenizer.decode([i]) for i in ids]
    T, C = len(ids), config.n_embd
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
    if not config.learn_values:
        value.weight.requires_grad_(False)
        value.weight.copy_(torch.eye(C))  # each value is its own input vector
    return ToyRun(config, tokens, x, target, query, key, value)


def run_toy(
    config: ToyConfig | None = None, text: str = SENTENCE, snapshot_steps: Iterable[int] = SNAPSHOT_STEPS
) -> ToyRun:
    """Train ``untrained_toy(config, text)``, keeping the weights at ``snapshot_steps``.

    The last step is always kept too. The global random state is left as it was.
    """
    run = untrained_toy(config, text)
    config = run.config
    keep = {s for s in snapshot_steps if 0 <= s < config.steps} | {config.steps - 1}
    trained = [*run.query.parameters(), *run.key.parameters()]
    if config.learn_values:
        trained += list(run.value.parameters())
    optimizer = torch.optim.Adam(trained, lr=config.learning_rate)
    for step in range(config.steps):
        s = stages(run, run.x, config.causal)  # the head's stages on x: wei (T, T), out (T, C)
        loss = ((s.out - run.target) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        run.losses.append(loss.item())
        if step in keep:
            run.snapshots[step] = s.wei.detach().clone()
    return run
