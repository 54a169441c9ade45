"""The training loop: it learns, it is deterministic, it reports progress."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch

from selfattn import TrainConfig, estimate_loss, make_model, threads, train, training
from selfattn.engine import BOOK, Engine
from selfattn.runs import LADDER, RECIPE_GPT, book_runs
from selfattn.threads import SMALL_WORK
from selfattn.training import History, evaluation_generator
from tests.helpers import ROOT, included_objects, same_weights

SHORT = TrainConfig(learning_rate=1e-2, max_iters=200, eval_interval=100, eval_iters=20)


def run(corpus, kind="attention", config=SHORT, progress=None):
    model = make_model(kind, corpus.tokenizer.vocab_size, config)
    return model, train(model, corpus.train, corpus.val, config, progress)


def test_short_run_lowers_the_loss(corpus):
    for kind in ("bigram", "attention"):
        _, history = run(corpus, kind)
        assert history.steps == [0, 100, 200]
        assert history.val_loss[0] > math.log(65) - 0.2
        assert history.final_val < history.val_loss[0] - 0.8
        assert len(history.batch_loss) == 200


def test_the_same_config_gives_the_same_losses(corpus):
    _, a = run(corpus)
    _, b = run(corpus)
    assert a.batch_loss == b.batch_loss and a.val_loss == b.val_loss


def test_evaluation_settings_do_not_change_training(corpus):
    _, a = run(corpus)
    _, b = run(corpus, config=replace(SHORT, eval_interval=50, eval_iters=5))
    assert a.batch_loss == b.batch_loss


def estimates(history) -> dict[int, tuple[float, float]]:
    """Each evaluated step's (train, val) estimate."""
    return dict(zip(history.steps, zip(history.train_loss, history.val_loss, strict=True), strict=True))


def test_how_often_a_run_is_evaluated_leaves_its_estimates_alone(corpus):
    """What lets the book read a run's final loss from one evaluated at its ends only."""
    _, a = run(corpus)
    _, b = run(corpus, config=replace(SHORT, eval_interval=50))
    _, ends = run(corpus, config=replace(SHORT, eval_interval=SHORT.max_iters))
    assert (a.steps, b.steps, ends.steps) == ([0, 100, 200], [0, 50, 100, 150, 200], [0, 200])
    some, every, at_ends = (estimates(h) for h in (a, b, ends))
    assert all(every[s] == some[s] for s in some)
    assert at_ends == {s: some[s] for s in at_ends}


def test_two_runs_with_one_seed_are_scored_on_the_same_batches(corpus):
    """Evaluation draws from the seed and the step alone: a model's estimate does not depend on
    which other run it is compared with, or in which order they were trained."""
    model, history = run(corpus)
    batches = evaluation_generator(SHORT.seed, SHORT.max_iters)  # the train split's, then the val's
    again = [estimate_loss(model, split, SHORT, batches) for split in (corpus.train, corpus.val)]
    assert again == pytest.approx([history.final_train, history.final_val], abs=1e-6)


def test_progress_callback_sees_every_step(corpus):
    events = []
    run(
        corpus,
        config=TrainConfig(**{**SHORT.__dict__, "max_iters": 30, "eval_interval": 10}),
        progress=events.append,
    )
    assert [e.step for e in events] == list(range(31))
    assert [e.step for e in events if e.evaluated] == [0, 10, 20, 30]
    assert events[0].loss is None and events[-1].loss is not None


def test_estimate_loss_uses_eval_mode_and_no_gradients(corpus):
    model = make_model("attention", 65, SHORT)
    modes = []
    model.register_forward_hook(lambda m, i, o: modes.append((m.training, o[0].requires_grad)))
    loss = estimate_loss(model, corpus.val, SHORT, torch.Generator().manual_seed(0))
    assert modes and all(mode == (False, False) for mode in modes)
    assert model.training, "the model is put back in training mode"
    assert abs(loss - 4.3) < 0.5


def test_large_training_runs_on_every_core_and_restores_the_thread_count(corpus, monkeypatch):
    # Work just above the threshold, on the cheapest model; "every core" is made 2 so that a
    # change shows even on a one-core machine.
    block_size, n_embd = 8, 32
    large = TrainConfig(
        batch_size=SMALL_WORK // (block_size * n_embd) + 1,
        block_size=block_size,
        n_embd=n_embd,
        head_size=n_embd,
        max_iters=2,
        eval_interval=1,
        eval_iters=1,
    )
    monkeypatch.setattr(threads, "ALL_CORES", 2)
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # the package's default
    try:
        during = []
        run(corpus, "bigram", large, progress=lambda _: during.append(torch.get_num_threads()))
        assert during == [2, 2, 2], "the run itself uses every core"
        assert torch.get_num_threads() == 1, "and the package's one thread is back afterwards"

        def interrupt(event):
            if event.step == 1:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            run(corpus, "bigram", large, progress=interrupt)
        assert torch.get_num_threads() == 1, "also when the run is stopped"
    finally:
        torch.set_num_threads(before)


# A run with every part of the model that uses randomness while training: dropout draws from
# torch's global generator, so both loops must draw from it alike.
DROPPING = replace(SHORT, n_embd=16, head_size=16, n_head=2, n_layer=2, dropout=0.1, max_iters=40)


@pytest.mark.parametrize(
    ("kind", "config"), [("bigram", SHORT), ("gpt", DROPPING), ("gpt", replace(DROPPING, init_std=0.02))]
)
def test_the_full_loop_trains_a_plain_run_as_the_plain_loop_does(corpus, kind, config):
    """The full loop is the plain one with more: on a run that needs nothing more, the same steps."""
    histories, models = [], []
    for loop in (training.plain_loop, training.full_loop):
        model = make_model(kind, corpus.tokenizer.vocab_size, config)
        extras = (None, None, None, BOOK) if loop is training.full_loop else ()
        histories.append(loop(model, corpus.train, corpus.val, config, *extras))
        models.append(model)
    assert histories[0] == histories[1]
    assert same_weights(*models)


def loop_used(corpus, monkeypatch, config, kind="bigram", **extras) -> str:
    """The name of the loop ``train`` runs a ``kind`` model and ``config`` with."""
    called = []
    for name in ("plain_loop", "full_loop"):
        monkeypatch.setattr(training, name, lambda *args, name=name: called.append(name) or History())
    model = make_model(kind, corpus.tokenizer.vocab_size, config)
    train(model, corpus.train, corpus.val, config, **extras)
    return called[0]


def test_the_loop_the_bigram_chapter_shows_trains_part_ii_and_the_ladder(corpus, monkeypatch):
    shown = {name for module, name in included_objects(ROOT / "book" / "bigram.md") if module == "training"}
    assert shown == {"plain_loop"}
    runs = book_runs()
    for name in ["bigram", "attention", *(name for name in LADDER if name != "lecture")]:
        assert loop_used(corpus, monkeypatch, runs[name].config, runs[name].kind) == "plain_loop", name
    assert loop_used(corpus, monkeypatch, RECIPE_GPT.config, RECIPE_GPT.kind) == "full_loop"


def test_what_only_the_full_loop_does_goes_to_it(corpus, monkeypatch, tmp_path):
    for change in (
        "warmup_iters",
        "grad_clip",
        "min_lr_ratio",
        "beta2",
        "weight_decay",
        "decay_matrices_only",
    ):
        value = {
            "warmup_iters": 10,
            "grad_clip": 1.0,
            "min_lr_ratio": 0.1,
            "beta2": 0.99,
            "weight_decay": 0.1,
        }
        config = replace(SHORT, **{change: value.get(change, True)})
        assert loop_used(corpus, monkeypatch, config) == "full_loop", change
    assert loop_used(corpus, monkeypatch, SHORT, progress=lambda _: None) == "full_loop"
    assert loop_used(corpus, monkeypatch, SHORT, save_to=tmp_path) == "full_loop"
    assert loop_used(corpus, monkeypatch, SHORT, engine=Engine(dtype="bfloat16")) == "full_loop"
