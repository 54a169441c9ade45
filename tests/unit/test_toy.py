"""The six-token toy (selfattn.toy): the notebook's numbers, and what the head really learned."""

from __future__ import annotations

import pytest
import torch
from torch.nn import functional as F

from selfattn.config import ConfigError
from selfattn.toy import SNAPSHOT_STEPS, ToyConfig, run_toy, untrained_toy
from tests.helpers import JOURNEY, STARTS, YOUR


def test_the_sentence_is_six_gpt2_tokens(toy_run):
    assert toy_run.tokens == ["Your", " journey", " starts", " with", " one", " step"]
    assert toy_run.x.shape == toy_run.target.shape == (6, 6)
    assert torch.equal(toy_run.target[:-1], toy_run.x[1:])
    assert torch.equal(toy_run.target[-1], toy_run.x[-1])


def test_reproduces_the_notebook_printout_exactly(toy_run):
    printed = {0: "2.3566", 20: "0.2104", 50: "0.0465", 100: "0.0005", 200: "0.0000"}
    assert {step: f"{toy_run.losses[step]:.4f}" for step in SNAPSHOT_STEPS} == printed
    rows = {step: [f"{w:.2f}" for w in toy_run.snapshots[step][JOURNEY].tolist()] for step in (0, 200)}
    assert rows[0] == ["0.22", "0.12", "0.13", "0.14", "0.19", "0.21"]
    assert rows[200] == ["0.99", "0.00", "0.00", "0.00", "0.00", "0.00"]


def test_training_starts_from_the_untrained_toy(toy_run):
    toy = untrained_toy()
    assert toy.losses == [] and toy.snapshots == {}, "nothing trained, nothing recorded"
    assert toy.tokens == toy_run.tokens
    assert torch.equal(toy.x, toy_run.x) and torch.equal(toy.target, toy_run.target)
    assert torch.equal(toy.attend()[0], toy_run.snapshots[0]), "step 0's weights are the untrained head's"
    assert not torch.equal(toy.query.weight, toy_run.query.weight), "training moved the weights"
    frozen = untrained_toy(ToyConfig(learn_values=False))
    assert torch.equal(frozen.value.weight, torch.eye(6)) and not frozen.value.weight.requires_grad


def test_the_run_records_every_steps_loss_and_ends_on_the_last(toy_run):
    assert len(toy_run.losses) == 201, "step 0 (before any update) to step 200"
    assert toy_run.final_loss == toy_run.losses[200]


def test_journey_reads_the_previous_token_and_the_value_rewrites_it(toy_run):
    wei, out = toy_run.attend()
    assert int(wei[JOURNEY].argmax()) == YOUR  # backwards, not towards "starts"
    assert wei[JOURNEY, STARTS] < 0.01
    with torch.no_grad():
        v = toy_run.value(toy_run.x)  # (T, C)
    cos = F.normalize(v, dim=1) @ F.normalize(toy_run.x, dim=1).T  # (T, T)
    assert int(cos[YOUR].argmax()) == STARTS and cos[YOUR, STARTS] > 0.99
    assert torch.allclose(out, toy_run.target, atol=0.02)


def test_a_linear_map_solves_any_pairing_without_a_clash(toy_run):
    x, target = toy_run.x, toy_run.target
    assert torch.linalg.matrix_rank(x) == 6

    def error(read: list[int]) -> float:
        M = torch.linalg.lstsq(x[read], target).solution
        return ((x[read] @ M - target) ** 2).mean().item()

    learned = toy_run.attend()[0].argmax(dim=1).tolist()
    for read in ([1, 2, 3, 4, 5, 5], [0, 1, 2, 3, 4, 5], [5, 0, 1, 2, 3, 4], learned):
        assert error(read) < 1e-8
    assert error([0, 1, 0, 3, 4, 5]) > 0.1  # "Your" and "starts" both read "Your"


def test_frozen_values_make_the_head_look_ahead():
    run = run_toy(ToyConfig(learn_values=False))
    assert torch.equal(run.value.weight, torch.eye(6))
    assert int(run.snapshots[200][JOURNEY].argmax()) == STARTS
    assert run.final_loss < 1e-3


def test_the_mask_zeroes_the_future_and_the_run_gets_stuck(masked_toy_run):
    future = torch.ones(6, 6, dtype=torch.bool).triu(diagonal=1)
    for wei in masked_toy_run.snapshots.values():
        assert (wei[future] == 0).all()
        assert torch.allclose(wei.sum(dim=-1), torch.ones(6))
    assert 0.1 < masked_toy_run.final_loss < 0.2
    wei, _ = masked_toy_run.attend()
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
    untrained_toy(ToyConfig(seed=7))
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
