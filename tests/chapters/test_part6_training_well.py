"""What "Training it well" shows, against what the package computes.

The page must show the recipe's own source, the ablation's runs as ``selfattn.runs`` defines them,
and a resumed run that takes the same steps as an uninterrupted one. The claims its prose makes of
the measured losses are held by the build's own asserts; the tests here check that the page shows
what those asserts checked.
"""

from __future__ import annotations

import re

import pytest

from selfattn import checkpoints, recipe, training
from selfattn.runs import RECIPE_PARTS, SEEDS
from tests.helpers import chapter, source_shown_wrongly

PAGE = "training-well"
SHOWN = [
    recipe.init_weights,
    recipe.learning_rate_at,
    recipe.take_step,
    recipe.param_groups,
    recipe.make_optimizer,
    recipe.tie_weights,
    checkpoints.Checkpoint,
    training.full_loop,
]


@pytest.mark.book
def test_the_page_shows_the_recipe_s_own_source_and_only_that(built_book):
    assert source_shown_wrongly(built_book, PAGE, SHOWN) == []


@pytest.mark.book
def test_the_ablation_table_lists_every_part_with_its_seeds(built_book):
    _, text = chapter(built_book, PAGE)
    for part in ["plain", *RECIPE_PARTS, "tied + starting weights", "whole recipe"]:
        row = re.search(re.escape(part) + r" +(\d+) +(\d\.\d{3})((?: +\d\.\d{3})+)", text)
        assert row, f"no row for {part!r}"
        losses = [float(v) for v in row.group(3).split()]
        assert int(row.group(1)) == len(losses) == len(SEEDS), part
        assert float(row.group(2)) == pytest.approx(sum(losses) / len(losses), abs=0.0015), part


@pytest.mark.book
def test_the_clipping_runs_report_how_often_they_clipped(built_book):
    _, text = chapter(built_book, PAGE)
    for row in ("gradient clipping", "whole recipe"):
        found = re.search(re.escape(row) + r": median norm (\d+\.\d\d), largest (\d+\.\d)", text)
        assert found and float(found.group(1)) <= float(found.group(2)), row
    shares = re.findall(r"clipped: (\d+\.\d)% of ([\d,]+) steps, (\d+\.\d)% of the first 100", text)
    assert len(shares) == 2 and all(0 <= float(a) <= 100 and 0 <= float(c) <= 100 for a, _, c in shares)


@pytest.mark.book
def test_a_resumed_run_on_the_page_takes_the_same_steps(built_book):
    _, text = chapter(built_book, PAGE)
    assert "stopped; the checkpoint holds step 150" in text
    assert "the same steps, to the last bit: True" in text
    resumed, whole = re.search(r"resumed: val (\d\.\d{6}); never stopped: val (\d\.\d{6})", text).groups()
    assert resumed == whole


@pytest.mark.book
def test_the_scale_exercise_sets_clipping_at_every_step_against_one_constant_scale(built_book):
    """The solution of ``ex-adam-scale``: a loss 1,000 times larger takes almost the same steps; a
    gradient clipped at every step, each step by a factor of its own, strays much further."""
    _, text = chapter(built_book, PAGE)
    scaled = re.search(r"loss x 1,000: at most (\d\.\d{4}) from the first run's losses", text)
    clipped = re.search(r"clipped to 0\.1 each step: at most (\d\.\d{4}) from them", text)
    cut = re.search(r"clipping cut (\d+) of (\d+) steps, by factors from (\d\.\d\d) to (\d\.\d\d)", text)
    assert scaled and clipped and cut
    assert cut.group(1) == cut.group(2), "every step cut"
    assert float(cut.group(3)) < float(cut.group(4)) < 1
    assert float(clipped.group(1)) > 10 * float(scaled.group(1))
