"""How many CPU threads the book's small models should use."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch

# Activations per step (batch x positions x width) below which one thread is fastest:
# for tensors this small, handing work between threads costs more than it saves.
SMALL_WORK = 2**18


@contextmanager
def threads_for(work: int) -> Iterator[None]:
    """Run the block on one thread if ``work`` is small; restore the count afterwards."""
    before = torch.get_num_threads()
    if work <= SMALL_WORK:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
