"""How long a run will take, said near its start when that is more than a few minutes.

A reader who types ``max_iters=10**12`` into a live cell should learn at once that the cell
will not finish, not after waiting for it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

from tqdm import tqdm

from selfattn.language import say, words

LONG_RUN_SECONDS = 300  # a run expected to take longer than this is announced
TIMED_STEPS = 10  # the steps timed, with the evaluations among them, before the estimate
# Each unit's size in seconds, and how an amount of it is said: from 10 up, and below 10.
UNITS = (
    (365.25 * 86400, words("{amount:,.0f} years"), words("{amount:.1f} years")),
    (86400, words("{amount:,.0f} days"), words("{amount:.1f} days")),
    (3600, words("{amount:,.0f} hours"), words("{amount:.1f} hours")),
    (60, words("{amount:,.0f} min"), words("{amount:.1f} min")),
)


def duration(seconds: float) -> str:
    """``seconds`` in the largest unit that leaves at least two of it: "8 min", "3.5 hours"."""
    for size, whole, tenths in UNITS:
        if seconds >= 2 * size:
            amount = seconds / size
            return say(whole if amount >= 10 else tenths, amount=amount)
    return say("{seconds:.0f} s", seconds=seconds)


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
            say(
                "This run will take about {duration} more ({ms:.0f} ms a step, {left:,} steps to go). "
                "To stop it, interrupt the kernel (Ctrl+C in a terminal); to shorten it, lower max_iters.",
                duration=duration(seconds),
                ms=step * 1000,
                left=left,
            ),
            file=sys.stderr,
        )
