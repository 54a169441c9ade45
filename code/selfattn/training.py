"""The training loop shared by the chapters, the scripts and the tests."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import torch
import torch.nn as nn

from selfattn import checkpoints, published, run_cache
from selfattn.batches import get_batch
from selfattn.checkpoints import Checkpoint
from selfattn.config import TrainConfig
from selfattn.corpus import load_corpus
from selfattn.engine import BOOK, Engine
from selfattn.files import remove_stale_temporaries
from selfattn.forecast import announced
from selfattn.models import LanguageModel
from selfattn.recipe import make_optimizer, steps_plainly, take_step
from selfattn.registry import make_model
from selfattn.threads import threads_for


@dataclass
class History:
    """What a run recorded: every step's batch loss, and the periodic evaluations."""

    batch_loss: list[float] = field(default_factory=list)  # one per step
    steps: list[int] = field(default_factory=list)  # steps at which both splits were evaluated
    train_loss: list[float] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    grad_norm: list[float] = field(default_factory=list)  # one per step, before clipping, if it clips
    seconds: float = 0.0  # wall time of the training run, evaluations included

    @property
    def final_val(self) -> float:
        return self.val_loss[-1]

    @property
    def final_train(self) -> float:
        return self.train_loss[-1]


@dataclass(frozen=True)
class Progress:
    """Passed to a progress callback once before training and after every step."""

    step: int  # steps done so far
    max_iters: int
    loss: float | None  # the last step's batch loss (None before the first step)
    train_loss: float  # the latest evaluation
    val_loss: float
    evaluated: bool  # True if the evaluation was made at this step


@torch.no_grad()
def estimate_loss(
    model: nn.Module, data: torch.Tensor, config: TrainConfig, generator: torch.Generator
) -> float:
    """Mean loss over ``eval_iters`` random batches, in eval mode.

    The batches are drawn at once and scored in a few large forward passes
    (the mean of equal-sized batch means is the mean over all their positions).
    """
    was_training = model.training
    model.eval()
    rows = config.eval_iters * config.batch_size
    x, y = get_batch(data, rows, config.block_size, generator)  # (rows, T), (rows, T)
    device = next(model.parameters()).device
    x, y = x.to(device), y.to(device)
    chunk = max(1, 2**13 // config.block_size)  # ~8k positions a pass: fits the CPU's caches
    total = 0.0
    for start in range(0, rows, chunk):
        xb, yb = x[start : start + chunk], y[start : start + chunk]  # (<=chunk, T)
        _, loss = model(xb, yb)
        total += loss.item() * len(xb)
    model.train(was_training)
    return total / rows


def evaluation_generator(seed: int, step: int) -> torch.Generator:
    """The generator an evaluation at ``step`` of a run seeded ``seed`` draws its batches from.

    Seeded from a hash of the two alone, so a run evaluated at fewer steps, or with another
    ``eval_interval``, makes the same estimate at a step it shares, and two runs with one seed
    are scored on the same batches.
    """
    digest = hashlib.blake2b(f"evaluation {seed} {step}".encode(), digest_size=8).digest()
    return torch.Generator().manual_seed(int.from_bytes(digest, "little"))


def evaluate(
    model: nn.Module,
    train_data: torch.Tensor,
    val_data: torch.Tensor,
    config: TrainConfig,
    step: int,
    history: History,
) -> None:
    """Estimate both splits' loss at ``step`` and record it in ``history``."""
    batches = evaluation_generator(config.seed, step)  # this step's evaluation batches
    history.steps.append(step)
    history.train_loss.append(estimate_loss(model, train_data, config, batches))
    history.val_loss.append(estimate_loss(model, val_data, config, batches))


def plain_loop(
    model: nn.Module,
    train_data: torch.Tensor,
    val_data: torch.Tensor,
    config: TrainConfig,
) -> History:
    """Train ``model`` with AdamW: four moves a step, and an evaluation now and then."""
    generator = torch.Generator().manual_seed(config.seed)  # the same batches every run
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, fused=True)
    history = History()
    model.train()
    for step in announced(range(config.max_iters), config.eval_interval):
        if step % config.eval_interval == 0:
            evaluate(model, train_data, val_data, config, step, history)
        # xb: B rows of T ids; yb: the id that follows each of them; (B, T) each
        xb, yb = get_batch(train_data, config.batch_size, config.block_size, generator)
        _, loss = model(xb, yb)  # 1. forward and 2. loss: how wrong it is on this batch
        optimizer.zero_grad(set_to_none=True)  # forget the last step's gradients
        loss.backward()  # 3. backward: which way each parameter should move
        optimizer.step()  # 4. step: move every parameter a little that way
        history.batch_loss.append(loss.item())
    evaluate(model, train_data, val_data, config, config.max_iters, history)
    return history


def train(
    model: nn.Module,
    train_data: torch.Tensor,
    val_data: torch.Tensor,
    config: TrainConfig,
    progress: Callable[[Progress], None] | None = None,
    save_to: Path | None = None,
    resume: Checkpoint | None = None,
    engine: Engine = BOOK,
) -> History:
    """Train ``model`` with AdamW for ``config.max_iters`` steps.

    Both splits are evaluated every ``eval_interval`` steps and after the last
    one. Training batches come from a generator seeded from ``config.seed``, and each
    evaluation's from one seeded from the seed and the step (``evaluation_generator``),
    so the same config gives the same numbers, and how often the run is evaluated
    changes neither its training nor its estimate at any step it evaluates.
    A run that needs none of the rest trains with ``plain_loop``; the others with ``full_loop``,
    which on such a run computes the same steps. With ``save_to`` (a folder) the run saves a
    checkpoint after every evaluation (``selfattn.checkpoints``); from ``resume``, such a
    checkpoint, it goes on as if it had never stopped. ``progress`` is called once before
    training and after every step; ``engine`` says how the steps compute (``selfattn.engine``).
    """
    widest = max(config.n_embd, config.head_size, config.block_size)
    extras = (progress, save_to, resume)  # what only the full loop does
    plain = engine == BOOK and extras == (None, None, None) and steps_plainly(config)
    started = time.perf_counter()
    with threads_for(config.batch_size, config.block_size, widest * config.n_layer):
        if plain:
            history = plain_loop(model, train_data, val_data, config)
        else:
            history = full_loop(model, train_data, val_data, config, progress, save_to, resume, engine)
    history.seconds += time.perf_counter() - started
    return history


def full_loop(
    model: nn.Module,
    train_data: torch.Tensor,
    val_data: torch.Tensor,
    config: TrainConfig,
    progress: Callable[[Progress], None] | None,
    save_to: Path | None,
    resume: Checkpoint | None,
    engine: Engine,
) -> History:
    """``plain_loop`` with the rest: the recipe's steps, checkpoints, resuming, a progress
    callback, and an engine that may be several processes, another device or dtype."""
    generator = torch.Generator().manual_seed(config.seed)
    optimizer = make_optimizer(model, config)  # AdamW, with the recipe's groups and beta2
    net, world = engine.prepare(model, config.seed), engine.world  # net: what steps call
    device = next(model.parameters()).device
    history, start = History(), 0
    if resume is not None:  # go on where the checkpoint stopped
        checkpoints.restore(resume, model, optimizer, generator, world.rank)
        history, start = History(**resume.history), resume.step
    started = time.perf_counter()

    def evaluate_and_save(step: int) -> None:
        """Evaluate at ``step`` (unless a resumed run did); save a checkpoint if asked."""
        if step in history.steps:
            return
        evaluate(model, train_data, val_data, config, step, history)
        if save_to is not None:  # every process hands the main one its generators
            so_far = replace(history, seconds=history.seconds + time.perf_counter() - started)
            checkpoints.save(save_to, step, model, optimizer, config, asdict(so_far), generator, world)

    def report(step: int, evaluated: bool) -> None:
        if progress is not None:
            last = history.batch_loss[-1] if history.batch_loss else None
            losses = history.train_loss[-1], history.val_loss[-1]
            progress(Progress(step, config.max_iters, last, *losses, evaluated))

    model.train()
    steps = range(start, config.max_iters)
    for step in announced(steps, config.eval_interval) if world.main else steps:
        evaluating = step % config.eval_interval == 0
        if evaluating:
            evaluate_and_save(step)
        report(step, evaluating)
        # (B, T) each, then (B / processes, T): this process's rows of the batch
        xb, yb = get_batch(train_data, config.batch_size, config.block_size, generator)
        xb, yb = world.share(xb), world.share(yb)
        _, loss = net(xb.to(device), yb.to(device))
        norm = take_step(model, optimizer, loss, config, step)  # the recipe's step
        if norm is not None:
            history.grad_norm.append(norm)
        history.batch_loss.append(world.average(loss))  # the whole batch's loss
    evaluate_and_save(config.max_iters)
    report(config.max_iters, True)
    return history


def fit(
    kind: str,
    config: TrainConfig,
    *,
    progress: Callable[[Progress], None] | None = None,
    engine: Engine = BOOK,
    reuse: bool = True,
    save_to: Path | None = None,
    resume: bool = False,
) -> tuple[LanguageModel, History]:
    """Build a ``kind`` model on ``engine``'s device and train it on tiny Shakespeare with ``config``.

    With the run cache on (``selfattn.run_cache``) and ``reuse``, a run the book's way
    (``engine.BOOK``) that was trained before is loaded instead, with the history (and
    training time) it had; a reader's cache first asks the book's published runs for it
    (``selfattn.published``). With ``save_to`` the run is checkpointed into that folder
    as it trains (and never cached); with ``resume`` too, it goes on from the
    checkpoint there.
    """
    corpus = load_corpus(config.corpus, config.bpe_vocab)
    model = make_model(kind, corpus.tokenizer.vocab_size, config)
    if save_to is not None:
        # check the folder before training, so that a bad one costs nothing and loses nothing
        checkpoints.check_folder(save_to, resume)
        start = checkpoints.load(save_to, model, config, engine.world.size) if resume else None
        remove_stale_temporaries(save_to)  # a killed run's half-written checkpoint
        model.to(engine.device)
        return model, train(model, corpus.train, corpus.val, config, progress, save_to, start, engine)
    folder = run_cache.cache_folder() if reuse and engine == BOOK else None
    if folder is None:
        model.to(engine.device)
        return model, train(model, corpus.train, corpus.val, config, progress, engine=engine)
    key = run_cache.run_key(kind, config)
    remove_stale_temporaries(folder)  # the half-written runs of processes killed while saving
    with run_cache.claimed(folder, key):  # a run another process is training: wait for it
        saved = run_cache.load(folder, key) or published.fetch(key, folder)  # a reader's: the book's run
        if saved is not None:
            model.load_state_dict(saved["state_dict"])
            return model, History(**saved["history"])
        history = train(model, corpus.train, corpus.val, config, progress)
        run_cache.save(folder, key, model, history, run_cache.made_by(kind, config))
    return model, history
