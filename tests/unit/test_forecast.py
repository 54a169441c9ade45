"""A run that will take more than a few minutes says so near its start, and a short one says nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from selfattn import TrainConfig, forecast
from selfattn.forecast import TIMED_STEPS, duration, evaluations_after
from selfattn.training import Progress, fit


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (42, "42 s"),
        (150, "2.5 min"),
        (480, "8.0 min"),
        (3 * 3600, "3.0 hours"),
        (40 * 86400, "40 days"),
        (3e10, "951 years"),
        (3e13, "950,643 years"),
    ],
)
def test_durations_read_in_the_largest_unit_that_leaves_two(seconds, said):
    assert duration(seconds) == said


@pytest.mark.parametrize(
    ("done", "max_iters", "interval"),
    [
        (done, max_iters, interval)
        for max_iters, interval in [(250, 100), (300, 100), (7, 3)]
        for done in [0, 3, 6, 7, 10, 99, 100, 250, 300]
        if done <= max_iters
    ],
)
def test_the_evaluations_left_are_the_ones_the_loop_makes(done, max_iters, interval):
    loop = [s for s in range(done + 1, max_iters + 1) if s % interval == 0 or s == max_iters]
    assert evaluations_after(done, max_iters, interval) == len(loop)


BIGRAM = TrainConfig(batch_size=4, block_size=8, eval_interval=1000, eval_iters=2)


def test_a_run_of_a_trillion_steps_says_how_long_it_would_take(capsys, monkeypatch):
    def interrupt_after_the_forecast(p: Progress) -> None:
        if p.step > TIMED_STEPS:
            raise KeyboardInterrupt  # as a reader interrupting the kernel

    monkeypatch.setenv("SELFATTN_NO_RUN_CACHE", "1")
    with pytest.raises(KeyboardInterrupt):
        fit("bigram", replace(BIGRAM, max_iters=10**12), progress=interrupt_after_the_forecast)
    said = capsys.readouterr().err
    assert said.startswith("This run will take about ") and " years more (" in said
    assert "999,999,999,990 steps to go). To stop it, interrupt the kernel" in said


def test_a_short_run_says_nothing(capsys, monkeypatch):
    monkeypatch.setenv("SELFATTN_NO_RUN_CACHE", "1")
    fit("bigram", replace(BIGRAM, max_iters=200))
    assert capsys.readouterr().err == ""


def test_a_long_run_in_the_plain_loop_says_it_once(monkeypatch):
    """The loop of Part II, which takes no progress callback, says it too, and only once."""
    said = []
    ticks = iter(range(10**6))
    monkeypatch.setattr(forecast.time, "perf_counter", lambda: float(next(ticks)))  # a step: 1 s
    monkeypatch.setattr(forecast.tqdm, "write", lambda text, file: said.append(text))
    for _ in forecast.announced(range(10**5), eval_interval=1000):
        pass
    assert len(said) == 1
    assert said[0].startswith("This run will take about 28 hours more (1000 ms a step, 99,990 steps")
