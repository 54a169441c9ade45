"""The training recipe: each part does what its field says, and with every part off nothing changes."""

from __future__ import annotations

import math
from dataclasses import fields, replace
from itertools import pairwise

import pytest
import torch
import torch.nn as nn
from torch.optim.optimizer import register_optimizer_step_pre_hook

from selfattn import ConfigError, TrainConfig, make_model, train
from selfattn.recipe import learning_rate_at, param_groups
from selfattn.runs import (
    ATTENTION,
    BPE_VOCABS,
    COMPARED_BPE,
    LADDER,
    NO_DROPOUT_GPT,
    RECIPE,
    RECIPE_GPT,
    RECIPE_PARTS,
    SEEDS,
    SPREAD_RUNGS,
    TIED_AND_STARTED,
    Run,
    ablation,
    book_runs,
    byte_pairs,
    read_at_end,
    seed_spread,
)

V = 65
GPT = TrainConfig(
    block_size=8, n_embd=32, n_head=4, n_layer=3, learning_rate=1e-3, max_iters=30, eval_interval=10
)
GPT_RECIPE = replace(
    GPT,
    init_std=0.02,
    scale_residual_init=True,
    tie_weights=True,
    warmup_iters=5,
    min_lr_ratio=0.1,
    grad_clip=1.0,
    weight_decay=0.1,
    decay_matrices_only=True,
    beta2=0.99,
)


def short(config: TrainConfig) -> TrainConfig:
    return replace(config, max_iters=6, eval_interval=3, eval_iters=2)


def test_the_recipe_starts_every_weight_from_a_normal_of_its_std_and_every_bias_at_zero():
    model = make_model("gpt", V, replace(GPT, init_std=0.02))
    for module in model.modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            assert module.weight.std().item() == pytest.approx(0.02, rel=0.15)
            assert abs(module.weight.mean().item()) < 0.004
        if isinstance(module, nn.Linear) and module.bias is not None:
            assert torch.count_nonzero(module.bias) == 0
    plain = make_model("gpt", V, GPT)
    assert plain.lm_head.weight.std().item() > 0.05, "PyTorch's own start is wider: the switch matters"


def test_the_residual_writers_start_smaller_by_the_square_root_of_twice_the_depth():
    model = make_model("gpt", V, replace(GPT, init_std=0.02, scale_residual_init=True))
    expected = 0.02 / math.sqrt(2 * GPT.n_layer)
    for block in model.blocks:
        assert block.ffwd.proj is block.ffwd.net[2], "the feed-forward's proj is its narrowing Linear"
        for writer in (block.sa.proj.weight, block.ffwd.net[2].weight):
            assert writer.std().item() == pytest.approx(expected, rel=0.15)
        assert block.sa.key.weight.std().item() == pytest.approx(0.02, rel=0.15), "the others keep 0.02"


def test_tied_weights_are_one_matrix_that_both_layers_train():
    plain = make_model("gpt", V, GPT)
    tied = make_model("gpt", V, replace(GPT, tie_weights=True))
    assert tied.lm_head.weight is tied.token_embedding_table.weight
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert count(plain) - count(tied) == V * GPT.n_embd
    idx = torch.randint(0, V, (2, 8), generator=torch.Generator().manual_seed(0))
    _, loss = tied(idx, idx)
    loss.backward()
    assert tied.token_embedding_table.weight.grad.abs().sum() > 0


def test_only_the_matrices_are_decayed_when_asked():
    model = make_model("gpt", V, replace(GPT, tie_weights=True))
    decayed, kept = param_groups(model, replace(GPT, weight_decay=0.1, decay_matrices_only=True))
    assert decayed["weight_decay"] == 0.1 and kept["weight_decay"] == 0.0
    linear = {id(m.weight) for m in model.modules() if isinstance(m, nn.Linear)}
    embedding = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    assert {id(p) for p in decayed["params"]} == linear - embedding
    assert all(p.dim() == 2 for p in decayed["params"])
    assert len(decayed["params"]) + len(kept["params"]) == len(list(model.parameters()))
    assert id(model.lm_head.weight) in {id(p) for p in kept["params"]}, "the tied matrix is an embedding"
    (everything,) = param_groups(model, GPT)
    assert everything["weight_decay"] == 0.01 and len(everything["params"]) == len(list(model.parameters()))


def test_the_learning_rate_warms_up_then_falls_along_a_cosine_to_its_floor():
    config = replace(GPT, learning_rate=1e-2, max_iters=1000, warmup_iters=100, min_lr_ratio=0.1)
    rates = [learning_rate_at(step, config) for step in range(1000)]
    assert rates[0] == pytest.approx(1e-4) and rates[99] == pytest.approx(1e-2)
    assert all(a < b for a, b in pairwise(rates[:100]))
    assert all(a >= b for a, b in pairwise(rates[100:]))
    assert rates[550] == pytest.approx((1e-2 + 1e-3) / 2)  # halfway down the cosine
    assert rates[-1] == pytest.approx(1e-3, rel=1e-4)
    assert {learning_rate_at(step, GPT) for step in range(30)} == {GPT.learning_rate}


def steps_seen(config: TrainConfig) -> list[tuple[float, float]]:
    """Train ``config`` briefly and record each optimizer step's learning rate and gradient norm."""
    seen = []

    def record(optimizer, args, kwargs):
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        seen.append(
            (
                optimizer.param_groups[0]["lr"],
                torch.linalg.vector_norm(torch.stack([g.norm() for g in grads])).item(),
            )
        )

    handle = register_optimizer_step_pre_hook(record)  # torch's public global hook
    try:
        model = make_model("gpt", V, config)
        data = torch.randint(0, V, (2000,), generator=torch.Generator().manual_seed(0))
        train(model, data, data, config)
    finally:
        handle.remove()
    return seen


def test_the_loop_clips_the_gradient_norm_and_follows_the_schedule():
    config = replace(short(GPT), learning_rate=1e-2, warmup_iters=3, min_lr_ratio=0.1)
    plain = steps_seen(config)
    assert max(norm for _, norm in plain) > 0.2, "without clipping, some step's gradient is larger"
    clipped = steps_seen(replace(config, grad_clip=0.2))
    assert all(norm <= 0.2 + 1e-5 for _, norm in clipped)
    assert [lr for lr, _ in clipped] == pytest.approx([learning_rate_at(s, config) for s in range(6)])


def test_the_full_recipe_trains():
    model = make_model("gpt", V, GPT_RECIPE)
    data = torch.randint(0, V, (2000,), generator=torch.Generator().manual_seed(0))
    history = train(model, data, data, GPT_RECIPE)
    assert history.final_val < history.val_loss[0]


@pytest.mark.parametrize("kind", ["bigram", "attention", "multihead", "residual"])
def test_the_recipe_s_model_switches_are_the_gpt_s_alone(kind):
    for name, value in (("init_std", 0.02), ("tie_weights", True)):
        with pytest.raises(ConfigError, match=f"{name} changes the GPT only: use kind='gpt'"):
            make_model(kind, V, replace(GPT, **{name: value}))


def test_the_ablation_switches_on_one_part_at_a_time_over_the_layernorm_rung():
    runs = ablation()
    layernorm = LADDER["layernorm"].config
    assert runs["plain, seed 1337"].config == layernorm, "the plain run is the ladder's own"
    for part, settings in RECIPE_PARTS.items():
        config = runs[f"{part}, seed 1337"].config
        changed = {
            f.name for f in fields(TrainConfig) if getattr(config, f.name) != getattr(layernorm, f.name)
        }
        assert changed == {*settings, "eval_interval"}, part
        assert config == read_at_end(replace(layernorm, **settings)), "only its final loss is read"
    whole = runs["whole recipe, seed 1337"].config
    assert all(getattr(whole, name) == value for name, value in RECIPE.items())
    seeds = {name.split(", seed ")[0]: [] for name in runs}
    for name in runs:
        part, seed = name.split(", seed ")
        seeds[part].append(int(seed))
    assert list(seeds) == ["plain", *RECIPE_PARTS, "tied + starting weights", "whole recipe"]
    assert all(s == list(SEEDS) for s in seeds.values()), "every row with every seed"
    tied_started = runs["tied + starting weights, seed 1337"].config
    assert tied_started == read_at_end(replace(layernorm, init_std=0.02, tie_weights=True))
    assert TIED_AND_STARTED == {"init_std": 0.02, "tie_weights": True}


def test_the_short_gpts_are_the_small_gpt_without_dropout_in_sixty_percent_of_its_steps():
    small = LADDER["small-gpt"].config
    short = NO_DROPOUT_GPT.config
    assert short == replace(small, dropout=0.0, max_iters=short.max_iters, eval_interval=250)
    assert short.max_iters == 0.6 * small.max_iters
    assert RECIPE_GPT.config == replace(short, **RECIPE)


def test_the_book_trains_each_run_once():
    runs = book_runs()
    assert len({(r.kind, r.config) for r in runs.values()}) == len(runs)
    assert {r.config for r in ablation().values()} | {RECIPE_GPT.config, NO_DROPOUT_GPT.config} <= {
        r.config for r in runs.values()
    }


def test_the_seed_spread_repeats_each_rung_with_only_its_seed_changed():
    """What the ladder's table sets each gain against: the same rungs, three seeds each, the other
    seeds read at their end only."""
    spread, runs = seed_spread(), book_runs()
    assert len(spread) == len(SPREAD_RUNGS) * len(SEEDS)
    for name in SPREAD_RUNGS:
        rung = LADDER.get(name) or Run("attention", ATTENTION, "")
        assert spread[f"{name}, seed {SEEDS[0]}"].config == rung.config
        for seed in SEEDS[1:]:
            run = spread[f"{name}, seed {seed}"]
            assert (run.kind, run.config) == (rung.kind, read_at_end(replace(rung.config, seed=seed)))
    assert {(r.kind, r.config) for r in spread.values()} <= {(r.kind, r.config) for r in runs.values()}


def test_the_rung_on_byte_pairs_changes_only_its_tokens_and_the_compared_size_its_seed():
    """What "From characters to byte pairs" says of its runs: the LayerNorm rung's steps and batch
    for every vocabulary, and the compared size with every seed, the other seeds read at their end."""
    pairs, runs = byte_pairs(), book_runs()
    layernorm = LADDER["layernorm"]
    for size in BPE_VOCABS:
        run = pairs[f"BPE {size}"]
        assert (run.kind, run.config) == (layernorm.kind, replace(layernorm.config, bpe_vocab=size))
    compared = pairs[f"BPE {COMPARED_BPE}"].config
    for seed in SEEDS[1:]:
        assert pairs[f"BPE {COMPARED_BPE}, seed {seed}"].config == read_at_end(replace(compared, seed=seed))
    assert len(pairs) == len(BPE_VOCABS) + len(SEEDS) - 1
    assert {(r.kind, r.config) for r in pairs.values()} <= {(r.kind, r.config) for r in runs.values()}


def test_a_run_read_at_its_end_is_evaluated_at_its_ends_only():
    """(That how often a run is evaluated leaves its training alone, test_training holds.)"""
    config = read_at_end(short(GPT))
    data = torch.randint(0, V, (2000,), generator=torch.Generator().manual_seed(0))
    history = train(make_model("gpt", V, config), data, data, config)
    assert history.steps == [0, config.max_iters] and len(history.batch_loss) == config.max_iters


def test_the_recipe_is_nanogpts_for_tiny_shakespeare_at_three_times_the_ladders_rate():
    """What "Training it well" says of the recipe's settings."""
    assert RECIPE["learning_rate"] == pytest.approx(3 * LADDER["layernorm"].config.learning_rate)
    assert (RECIPE["warmup_iters"], RECIPE["min_lr_ratio"], RECIPE["beta2"]) == (100, 0.1, 0.99)
    assert (RECIPE["init_std"], RECIPE["grad_clip"], RECIPE["weight_decay"]) == (0.02, 1.0, 0.1)
