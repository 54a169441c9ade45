"""Training hyperparameters, checked the moment they are set."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

# The largest activation budget a run may ask for; beyond it a laptop starts to swap.
MEMORY_LIMIT_BYTES = 2 * 2**30
# The largest vocabulary the book trains on (characters of tiny Shakespeare: 65).
ASSUMED_VOCAB = 128


class ConfigError(ValueError):
    """A hyperparameter with a value the book cannot train with."""


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on. Defaults are the bigram chapter's."""

    batch_size: int = 32
    block_size: int = 8
    n_embd: int = 32
    head_size: int = 32
    learning_rate: float = 1e-2
    max_iters: int = 3000
    eval_interval: int = 300
    eval_iters: int = 200
    seed: int = 1337

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "float":
                _check_rate(f.name, value)
            else:
                _check_count(f.name, value, minimum=0 if f.name in ("max_iters", "seed") else 1)
        _check_memory(self)


def _check_count(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(
            f"{name}={value!r} ({type(value).__name__}): {name} must be a whole number "
            f"(int) of at least {minimum}, e.g. {name}=8."
        )
    if value < minimum:
        raise ConfigError(f"{name}={value}: {name} must be at least {minimum}.")


def _check_rate(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(
            f"{name}={value!r} ({type(value).__name__}): {name} must be a number, e.g. {name}=1e-3."
        )
    if not math.isfinite(value) or not 0 < value <= 1:
        raise ConfigError(
            f"{name}={value}: {name} must be a finite number greater than 0 and at most 1 "
            "(typical values are 1e-4 to 1e-2)."
        )


def _check_memory(cfg: TrainConfig) -> None:
    """Reject sizes whose activations (forward and backward) cannot fit in memory."""
    widest = max(cfg.block_size, cfg.n_embd, cfg.head_size, ASSUMED_VOCAB)
    # about ten float32 tensors of shape (B, T, widest) live during one step
    need = 10 * 4 * cfg.batch_size * cfg.block_size * widest
    if need > MEMORY_LIMIT_BYTES:
        raise ConfigError(
            f"batch_size={cfg.batch_size} with block_size={cfg.block_size} "
            f"(and n_embd={cfg.n_embd}, head_size={cfg.head_size}) needs about "
            f"{need / 2**30:.1f} GiB per step, more than the {MEMORY_LIMIT_BYTES / 2**30:.0f} GiB "
            "allowed; make batch_size or block_size smaller."
        )
