"""The six-token toy: the notebook's numbers, what the head really learned, and the pages about it."""

from __future__ import annotations

import re

import pytest
import torch
from torch.nn import functional as F

from conftest import page_text
from selfattn.config import ConfigError
from selfattn.toy import SNAPSHOT_STEPS, ToyConfig, run_toy

JOURNEY, YOUR, STARTS = 1, 0, 2  # positions in "Your journey starts with one step"


@pytest.fixture(scope="module")
def default_run():
    return run_toy()


@pytest.fixture(scope="module")
def masked_run():
    return run_toy(ToyConfig(causal=True))


def test_the_sentence_is_six_gpt2_tokens(default_run):
    assert default_run.tokens == ["Your", " journey", " starts", " with", " one", " step"]
    assert default_run.x.shape == default_run.target.shape == (6, 6)
    assert torch.equal(default_run.target[:-1], default_run.x[1:])
    assert torch.equal(default_run.target[-1], default_run.x[-1])


def test_reproduces_the_notebook_printout_exactly(default_run):
    printed = {0: "2.3566", 20: "0.2104", 50: "0.0465", 100: "0.0005", 200: "0.0000"}
    assert {step: f"{default_run.losses[step]:.4f}" for step in SNAPSHOT_STEPS} == printed
    rows = {step: [f"{w:.2f}" for w in default_run.snapshots[step][JOURNEY].tolist()] for step in (0, 200)}
    assert rows[0] == ["0.22", "0.12", "0.13", "0.14", "0.19", "0.21"]
    assert rows[200] == ["0.99", "0.00", "0.00", "0.00", "0.00", "0.00"]


def test_loss_falls_below_a_small_threshold_and_journey_concentrates(default_run):
    assert len(default_run.losses) == 201
    assert default_run.final_loss < 1e-4 < default_run.losses[0]
    start, end = default_run.snapshots[0][JOURNEY], default_run.snapshots[200][JOURNEY]
    assert start.max() < 0.3 and end.max() > 0.98
    assert torch.allclose(end.sum(), torch.tensor(1.0))


def test_journey_reads_the_previous_token_and_the_value_rewrites_it(default_run):
    wei, out = default_run.attend()
    assert int(wei[JOURNEY].argmax()) == YOUR  # backwards, not towards "starts"
    assert wei[JOURNEY, STARTS] < 0.01
    with torch.no_grad():
        v = default_run.value(default_run.x)  # (T, C)
    cos = F.normalize(v, dim=1) @ F.normalize(default_run.x, dim=1).T  # (T, T)
    assert int(cos[YOUR].argmax()) == STARTS and cos[YOUR, STARTS] > 0.99
    assert torch.allclose(out, default_run.target, atol=0.02)


def test_a_linear_map_solves_any_pairing_without_a_clash(default_run):
    x, target = default_run.x, default_run.target
    assert torch.linalg.matrix_rank(x) == 6

    def error(read: list[int]) -> float:
        M = torch.linalg.lstsq(x[read], target).solution
        return ((x[read] @ M - target) ** 2).mean().item()

    learned = default_run.attend()[0].argmax(dim=1).tolist()
    for read in ([1, 2, 3, 4, 5, 5], [0, 1, 2, 3, 4, 5], [5, 0, 1, 2, 3, 4], learned):
        assert error(read) < 1e-8
    assert error([0, 1, 0, 3, 4, 5]) > 0.1  # "Your" and "starts" both read "Your"


def test_frozen_values_make_the_head_look_ahead():
    run = run_toy(ToyConfig(learn_values=False))
    assert torch.equal(run.value.weight, torch.eye(6))
    assert int(run.snapshots[200][JOURNEY].argmax()) == STARTS
    assert run.final_loss < 1e-3


def test_the_mask_zeroes_the_future_and_the_run_gets_stuck(masked_run):
    future = torch.ones(6, 6, dtype=torch.bool).triu(diagonal=1)
    for wei in masked_run.snapshots.values():
        assert (wei[future] == 0).all()
        assert torch.allclose(wei.sum(dim=-1), torch.ones(6))
    assert 0.1 < masked_run.final_loss < 0.2
    wei, _ = masked_run.attend()
    assert int(wei[STARTS].argmax()) == YOUR and wei[STARTS, YOUR] > 0.99


def test_snapshots_follow_the_number_of_steps():
    run = run_toy(ToyConfig(steps=50))
    assert sorted(run.snapshots) == [0, 20, 49]
    assert len(run.losses) == 50


def test_the_global_random_state_and_threads_are_left_alone():
    threads = torch.get_num_threads()
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    run_toy(ToyConfig(steps=2))
    assert torch.equal(torch.rand(3), expected)
    assert torch.get_num_threads() == threads


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"learning_rate": "0.05"}, "learning_rate"),
        ({"steps": 0}, "steps"),
        ({"steps": 10**6}, "steps"),
        ({"steps": 20.0}, "steps"),
        ({"seed": -1}, "seed"),
        ({"causal": 1}, "causal"),
        ({"learn_values": "no"}, "learn_values"),
        ({"n_embd": 0}, "n_embd"),
        ({"head_size": True}, "head_size"),
    ],
)
def test_bad_settings_are_refused_with_the_field_named(bad, field):
    with pytest.raises(ConfigError, match=rf"^{field}="):
        ToyConfig(**bad)


def test_a_one_token_text_is_refused():
    with pytest.raises(ConfigError, match="at least 2"):
        run_toy(text="Hello")


@pytest.mark.slow
def test_the_chapter_prints_what_the_run_prints(built_book, default_run, masked_run):
    text = page_text(built_book / "book" / "watching-attention-learn.html")
    assert "Traceback" not in text
    assert "journey attends to: Your journey starts with one step" in text
    for step in SNAPSHOT_STEPS:
        row = " ".join(f"{w:.2f}" for w in default_run.snapshots[step][JOURNEY].tolist())
        assert f"step {step} loss {default_run.losses[step]:.4f} {row}" in text
    assert "step 0 loss 2.3566 0.22 0.12 0.13 0.14 0.19 0.21" in text  # as the notebook printed
    assert f"falls from {default_run.losses[0]:.4f} to {default_run.final_loss:.1e}" in text
    assert f"the loss stops at {masked_run.final_loss:.3f}" in text
    assert "every weight on a future token is exactly 0: True" in text
    assert "ConfigError: learning_rate=-0.1" in text
    html = (built_book / "book" / "watching-attention-learn.html").read_text(encoding="utf-8")
    for name in ("fig-toy-snapshots", "fig-toy-journey", "fig-toy-masked", "fig-toy-losses"):
        assert f'id="{name}"' in html
    assert 'href="references.html#' in html  # citations link to the bibliography


@pytest.mark.slow
def test_recap_labels_the_diagram_with_measured_shapes(built_book):
    text = page_text(built_book / "book" / "recap.html")
    html = (built_book / "book" / "recap.html").read_text(encoding="utf-8")
    assert 'id="fig-recap-pipeline"' in html
    for shape in ("(32, 8)", "(32, 8, 32)", "(32, 8, 8)", "(32, 8, 65)"):
        assert shape in text
    assert "same logits and loss as model(xb, yb): True" in text
    assert "7,553" in text


@pytest.mark.slow
def test_every_exercise_has_an_executed_solution_right_after_it(built_book):
    html = (built_book / "book" / "exercises.html").read_text(encoding="utf-8")
    blocks = re.findall(r'<div class="(exercise|solution dropdown) admonition" id="([^"]+)"', html)
    kinds = [kind for kind, _ in blocks]
    assert len(kinds) >= 13
    assert kinds == ["exercise", "solution dropdown"] * (len(kinds) // 2)
    solutions = re.split(r'<div class="solution dropdown admonition"', html)[1:]
    for solution in solutions:
        body = solution.split('<div class="exercise admonition"')[0]
        assert "cell_output" in body, "each solution shows the output of its code"
    assert "Traceback" not in page_text(built_book / "book" / "exercises.html")


@pytest.mark.slow
def test_references_list_the_works_cited(built_book):
    text = page_text(built_book / "book" / "references.html")
    for title in ("Attention is all you need", "Adam: a method for stochastic optimization"):
        assert title in text
