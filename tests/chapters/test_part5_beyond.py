"""What "Beyond one machine" shows, against what the package computes.

The page must show the engine's own source and the training loop it enters, a run of two
processes whose steps match one process's, and the one-line errors of what does not apply.
"""

from __future__ import annotations

import re

import pytest

from bookbuild import ROOT
from selfattn import engine, training
from tests.helpers import chapter, included_objects, unshown_sources

PAGE = "beyond-one-machine"
SOURCE = ROOT / "book" / f"{PAGE}.md"
SHOWN = [engine.Engine.prepare, engine.World.share, engine.World.average, training._train]


@pytest.mark.book
def test_the_page_shows_the_engine_s_own_source_and_the_loop_it_enters(built_book):
    assert included_objects(SOURCE) == {(obj.__module__.split(".")[-1], obj.__qualname__) for obj in SHOWN}
    assert unshown_sources(built_book, PAGE, SHOWN) == []


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
