"""How long a run will take, said near its start when that is more than a few minutes.

A reader who types ``max_iters=10**12`` into a live cell should learn at once that the cell
will not finish, not after waiting for it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

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


def announced(steps: range, eval_interval: int) -> Iterator[int]:
    """Yield ``steps``, timing the first ``TIMED_STEPS`` of them; then say once, on stderr, how
    long the rest will take (to the last evaluation, at ``steps.stop``), if more than
    ``LONG_RUN_SECONDS``. Steps at multiples of ``eval_interval`` are timed as evaluating ones:
    the training loops evaluate there."""
    timed: list[tuple[bool, float]] = []  # (evaluated, seconds) of each step timed
    for done in steps:
        began = time.perf_counter()
        yield done
        if len(timed) < TIMED_STEPS:
            timed.append((done % eval_interval == 0, time.perf_counter() - began))
            if len(timed) == TIMED_STEPS:  # said once, before the next step
                forecast(timed, done + 1, steps.stop, eval_interval)


def forecast(timed: list[tuple[bool, float]], done: int, max_iters: int, eval_interval: int) -> None:
    """Say how long steps ``done`` to ``max_iters`` will take, from the steps ``timed``, if long."""
    plain = [seconds for evaluated, seconds in timed if not evaluated] or [s for _, s in timed]
    step = sum(plain) / len(plain)
    extra = [seconds - step for evaluated, seconds in timed if evaluated]  # what evaluating adds
    evaluation = max(0.0, sum(extra) / len(extra)) if extra else 0.0
    left = max_iters - done
    seconds = left * step + evaluations_after(done - 1, max_iters, eval_interval) * evaluation
    if seconds > LONG_RUN_SECONDS:
        tqdm.write(
            f"This run will take about {duration(seconds)} more ({step * 1000:.0f} ms a step, "
            f"{left:,} steps to go). To stop it, interrupt the kernel (Ctrl+C in a terminal); "
            "to shorten it, lower max_iters.",
            file=sys.stderr,
        )
