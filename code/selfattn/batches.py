"""From one long tensor of token ids to training batches."""

from __future__ import annotations

from typing import TypeVar

import torch

from selfattn.errors import ConfigError
from selfattn.language import say

Split = TypeVar("Split", torch.Tensor, str)  # ids, or a text's characters


def split_train_val(data: Split, train_fraction: float = 0.9) -> tuple[Split, Split]:
    """The first 90% of the ids (or of a text's characters) for training, the rest for validation."""
    n = int(train_fraction * len(data))
    return data[:n], data[n:]


def get_batch(
    data: torch.Tensor, batch_size: int, block_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """``batch_size`` random windows of ``block_size`` ids and their next ids.

    One gather builds the whole grid: ``x[b, t] = data[start[b] + t]`` and
    ``y[b, t] = data[start[b] + t + 1]``.
    """
    if len(data) <= block_size:
        raise ConfigError(
            say(
                "block_size={T} needs more than {T} tokens of data, but this split has {n}; "
                "use a smaller block_size.",
                T=block_size,
                n=len(data),
            )
        )
    starts = torch.randint(len(data) - block_size, (batch_size, 1), generator=generator)  # (B, 1)
    offsets = torch.arange(block_size + 1)  # (T + 1,)
    window = data[starts + offsets]  # (B, T + 1)
    return window[:, :-1], window[:, 1:]  # (B, T), (B, T)
