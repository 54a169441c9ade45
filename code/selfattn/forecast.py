"""How long a run will take, said near its start when that is more than a few minutes.

A reader who types ``max_iters=10**12`` into a live cell should learn at once that the cell
will not finish, not after waiting for it.
"""

from __future__ import annotations

import sys
import time

from tqdm import tqdm

LONG_RUN_SECONDS = 300  # a run expected to take longer than this is announced
TIMED_STEPS = 10  # the steps timed, with the evaluations among them, before the estimate
UNITS = (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600), ("min", 60))


def duration(seconds: float) -> str:
    """``seconds`` in the largest unit that leaves at least two of it: "8 min", "3.5 hours"."""
    for unit, size in UNITS:
        if seconds >= 2 * size:
            amount = seconds / size
            return f"{amount:,.0f} {unit}" if amount >= 10 else f"{amount:.1f} {unit}"
    return f"{seconds:.0f} s"


def evaluations_after(done: int, max_iters: int, eval_interval: int) -> int:
    """How many of the steps after ``done``, up to ``max_iters``, evaluate (as the loop does:
    every multiple of ``eval_interval``, and the last step)."""
    multiples = max_iters // eval_interval - done // eval_interval
    return multiples + int(max_iters % eval_interval != 0 and max_iters > done)


class Forecast:
    """Times a run's first ``TIMED_STEPS`` steps and its evaluations among them, then says once,
    on stderr, how long the rest will take, if that is more than ``LONG_RUN_SECONDS``."""

    def __init__(self, start: int, max_iters: int, eval_interval: int):
        self.start, self.max_iters, self.eval_interval = start, max_iters, eval_interval
        self.began = time.perf_counter()
        self.evaluating, self.evaluations = 0.0, 0

    def evaluated(self, seconds: float) -> None:
        """Count an evaluation that took ``seconds``."""
        self.evaluating += seconds
        self.evaluations += 1

    def before_step(self, done: int) -> None:
        """Called before step ``done``'s evaluation: says the estimate after the timed steps."""
        if done - self.start != TIMED_STEPS:
            return
        step = (time.perf_counter() - self.began - self.evaluating) / TIMED_STEPS
        evaluation = self.evaluating / self.evaluations if self.evaluations else 0.0
        left = self.max_iters - done
        seconds = left * step + evaluations_after(done, self.max_iters, self.eval_interval) * evaluation
        if seconds > LONG_RUN_SECONDS:
            tqdm.write(
                f"This run will take about {duration(seconds)} more ({step * 1000:.0f} ms a step, "
                f"{left:,} steps to go). To stop it, interrupt the kernel (Ctrl+C in a terminal); "
                "to shorten it, lower max_iters.",
                file=sys.stderr,
            )
