"""How many CPU threads the book's models use.

The book's models are small. Handing their tensors between CPU threads costs
more than it saves, and when the cores are busy (two notebooks building at once,
a shared Binder machine) extra threads can make a step ten times slower. So the
package runs torch on one thread from the moment it is imported
(:func:`use_one_thread`), and only work large enough to gain from more threads
gets all the cores, and only while it runs (:func:`threads_for`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch

# torch's own choice (one thread per core), read before the package changes it.
ALL_CORES = torch.get_num_threads()
# Activations per step (batch x positions x width) above which more threads pay off.
SMALL_WORK = 2**18


def use_one_thread() -> None:
    """The package's default: one thread (run once, when ``selfattn`` is imported)."""
    torch.set_num_threads(1)


@contextmanager
def threads_for(batch: int, positions: int, width: int) -> Iterator[None]:
    """Use every core inside the block if a step's work is large; restore the count afterwards."""
    before = torch.get_num_threads()
    if batch * positions * width > SMALL_WORK:
        torch.set_num_threads(ALL_CORES)
    try:
        yield
    finally:
        torch.set_num_threads(before)
