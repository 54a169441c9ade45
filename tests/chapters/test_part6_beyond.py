"""What "Beyond one machine" shows, against what the package computes.

The page must show the engine's own source and the training loop it enters, a run of two
processes whose steps match one process's, the errors of what does not apply, and the training
state a GPU holds.
"""

from __future__ import annotations

import re

import pytest

from selfattn import engine, make_model, training
from selfattn.runs import LADDER
from tests.helpers import chapter, source_shown_wrongly

PAGE = "beyond-one-machine"
SHOWN = [engine.Engine.prepare, engine.World.share, engine.World.average, training.full_loop]


@pytest.mark.book
def test_the_page_shows_the_engine_s_own_source_and_the_loop_it_enters(built_book):
    assert source_shown_wrongly(built_book, PAGE, SHOWN) == []


@pytest.mark.book
def test_two_processes_on_the_page_take_the_steps_of_one(built_book):
    _, text = chapter(built_book, PAGE)
    one = re.search(r"one process: final val loss (\d\.\d{6})", text).group(1)
    two = re.search(r"two processes: final val loss (\d\.\d{6})", text).group(1)
    assert abs(float(one) - float(two)) < 1e-5
    steps, apart = re.search(r"(\d+) steps; the batch losses are at most (\S+) apart", text).groups()
    assert int(steps) == 20 and float(apart) < 1e-5


@pytest.mark.book
def test_the_page_shows_each_refusal_as_one_line(built_book):
    _, text = chapter(built_book, PAGE)
    assert "error: batch_size=64 does not split into 3 equal shares" in text
    assert "error: --dtype bfloat16 is for CUDA GPUs" in text
    assert "error: --compile is for CUDA GPUs" in text


@pytest.mark.book
def test_the_page_counts_the_training_state_each_gpu_holds(built_book):
    """16 bytes a parameter (weight, gradient, AdamW's two averages), whole or sharded over 8."""
    _, text = chapter(built_book, PAGE)
    lecture = LADDER["lecture"]
    count = sum(p.numel() for p in make_model(lecture.kind, 65, lecture.config).parameters())
    for name, parameters in (("the lecture's GPT", count), ("a 7-billion GPT", 7e9)):
        shown = r" +([\d.]+) GiB on every GPU; sharded over 8: +([\d.]+) GiB"
        line = re.search(re.escape(name) + shown, text)
        assert line, name
        whole = parameters * 16 / 2**30
        assert float(line.group(1)) == pytest.approx(whole, abs=0.01)
        assert float(line.group(2)) == pytest.approx(whole / 8, abs=0.01)
