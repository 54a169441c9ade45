"""The runs the book trains, each defined once.

Chapters, scripts, tests and benchmarks all start from these; a chapter that
varies one builds it visibly, e.g. ``replace(ATTENTION, max_iters=500)``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from selfattn.config import DATA_FIELDS, RECIPE_FIELDS, TrainConfig
from selfattn.registry import UNREAD
from selfattn.settings import listing

# "The bigram ceiling": one table lookup per character.
BIGRAM = TrainConfig(learning_rate=1e-2, max_iters=3000, eval_interval=300)

# Part II: token and position embeddings and one causal head, n_embd = head_size = 32.
ATTENTION = TrainConfig(n_embd=32, head_size=32, learning_rate=1e-3, max_iters=5000, eval_interval=500)

# Each chapter's "try it" cell trains a short run sized to finish within this many seconds on one
# CPU core (benchmarks/try_cells.py times every one against it).
TRY_SECONDS = 20

# The "try it" cell of "The attention language model": ten times the learning rate, 500 steps.
ATTENTION_TRY = replace(ATTENTION, learning_rate=1e-2, max_iters=500, eval_interval=100)


def describe(kind: str, config: TrainConfig) -> str:
    """The fields a ``kind`` model reads, one ``name = value`` line each (as ``str(config)``).

    The fields of the text and its tokens, and the recipe's, are listed only where they differ
    from their defaults (another text than Shakespeare's characters; a part of the recipe on).
    """
    plain, when_set = TrainConfig(), (*DATA_FIELDS, *RECIPE_FIELDS)
    shown = [
        f.name
        for f in fields(config)
        if f.name not in UNREAD[kind]
        and (f.name not in when_set or getattr(config, f.name) != getattr(plain, f.name))
    ]
    return listing(config, shown)


@dataclass(frozen=True)
class Run:
    """One run the book trains: which model, trained how, and what it is for."""

    kind: str  # a name make_model knows
    config: TrainConfig
    what: str  # what this run adds or shows, in a few words


# Part II's two models, as its scripts (code/01_bigram.py, code/02_attention.py) and chapters run them.
PART_II = {
    "bigram": Run("bigram", BIGRAM, "a table of next-character scores"),
    "attention": Run("attention", ATTENTION, "one causal self-attention head"),
}


# Part IV's ladder: each rung adds one idea to the one before, on the same data with the same seed.
# The first five keep Part II's sizes (n_embd 32, context 8); the small GPT is the largest model
# this book trains on a CPU. Its evaluations average 50 batches, not 200: each of its batches holds
# four times the positions, and at 200 a third of its training time went on evaluating. "lecture"
# is the GPU-scale setting of the lecture this part follows. A model kind is named after the rung
# that first trains it ("multihead", "ffwd", "residual"), the complete GPT "gpt"; "deep-plain" is
# the ffwd model three blocks deep.
LADDER = {
    "multihead": Run("multihead", replace(ATTENTION, n_head=4), "four heads of 8 instead of one of 32"),
    "ffwd": Run("ffwd", replace(ATTENTION, n_head=4), "a feed-forward layer after attention"),
    "deep-plain": Run("ffwd", replace(ATTENTION, n_head=4, n_layer=3), "three blocks, stacked plainly"),
    "residual": Run("residual", replace(ATTENTION, n_head=4, n_layer=3), "residual connections"),
    "layernorm": Run("gpt", replace(ATTENTION, n_head=4, n_layer=3), "pre-norm LayerNorm and a final one"),
    "small-gpt": Run(
        "gpt",
        replace(ATTENTION, block_size=32, n_embd=64, n_head=4, n_layer=4, dropout=0.1, eval_iters=50),
        "wider, deeper, a longer context, dropout",
    ),
    "lecture": Run(
        "gpt",
        TrainConfig(
            batch_size=64,
            block_size=256,
            n_embd=384,
            n_head=6,
            n_layer=6,
            dropout=0.2,
            learning_rate=3e-4,
            max_iters=5000,
            eval_interval=500,
        ),
        "the lecture's GPU-scale GPT (10.8 M parameters)",
    ),
}


# "Training it well": the recipe nanoGPT trains with, one part per entry, each the
# TrainConfig settings that switch it on (selfattn.recipe). The warmup, decay and beta2 are
# nanoGPT's for tiny Shakespeare; its rate is the ladder's, tripled.
RECIPE_PARTS: dict[str, dict] = {
    "starting weights": {"init_std": 0.02},
    "smaller residual writers": {"init_std": 0.02, "scale_residual_init": True},
    "warmup and cosine decay": {"warmup_iters": 100, "min_lr_ratio": 0.1},
    "gradient clipping": {"grad_clip": 1.0},
    "decay 0.1, matrices only": {"weight_decay": 0.1, "decay_matrices_only": True},
    "beta2 0.99": {"beta2": 0.99},
    "tied weights": {"tie_weights": True},
    "learning rate 3e-3": {"learning_rate": 3e-3},
}
RECIPE = {name: value for part in RECIPE_PARTS.values() for name, value in part.items()}
# The seeds a run is repeated with where the prose compares two numbers closer than their spread.
SEEDS = (1337, 1, 2)


def read_at_end(config: TrainConfig) -> TrainConfig:
    """``config`` evaluated only before its first step and after its last.

    For the runs of which the book reads the final loss alone (the other seeds, the ablation's
    parts): the evaluations in between cost about a quarter of a LayerNorm rung's training time,
    and leaving them out changes neither the training nor the final estimate
    (``training.evaluation_generator``).
    """
    return replace(config, eval_interval=config.max_iters)


def variant(config: TrainConfig, **changes) -> TrainConfig:
    """A rung's ``config`` with ``changes``: the rung's own if they change nothing (its curve is
    drawn), else read at its end only (``read_at_end``)."""
    changed = replace(config, **changes)
    return changed if changed == config else read_at_end(changed)


# Tying with the starting weights that keep the shared matrix small: whether tying hurts alone
# because the embedding's standard deviation of 1 becomes lm_head's.
TIED_AND_STARTED = RECIPE_PARTS["tied weights"] | RECIPE_PARTS["starting weights"]


def ablation() -> dict[str, Run]:
    """The LayerNorm rung plain, with each part of the recipe alone, tied weights with the
    starting weights, and the whole recipe, each with every seed of ``SEEDS``.

    Named "<part>, seed <seed>"; "plain, seed 1337" is the LayerNorm rung itself, and the
    others are read at their end only (``read_at_end``).
    """
    layernorm = LADDER["layernorm"]
    parts = {"plain": {}, **RECIPE_PARTS, "tied + starting weights": TIED_AND_STARTED, "whole recipe": RECIPE}
    return {
        f"{part}, seed {seed}": Run(layernorm.kind, variant(layernorm.config, **settings, seed=seed), part)
        for part, settings in parts.items()
        for seed in SEEDS
    }


# The rungs whose differences Part IV's prose weighs, and the one-head model below them: trained
# with every seed of SEEDS, so that a gain can be set against the spread between seeds.
SPREAD_RUNGS = ("one-head", "multihead", "ffwd", "deep-plain", "residual", "layernorm")


def seed_spread() -> dict[str, Run]:
    """Each of ``SPREAD_RUNGS`` once per seed, named "<rung>, seed <seed>".

    Seed 1337 is the rung itself; the other seeds are read at their end only (``read_at_end``).
    """
    rungs = {"one-head": PART_II["attention"]} | LADDER
    return {
        f"{name}, seed {seed}": Run(
            rungs[name].kind, variant(rungs[name].config, seed=seed), rungs[name].what
        )
        for name in SPREAD_RUNGS
        for seed in SEEDS
    }


# The small GPT in 60% of its steps, without dropout: with the whole recipe, and with the plain
# loop (which tells what dropping dropout does alone). Evaluated twice as often as the ladder's,
# so that the step at which each reaches the ladder's final loss shows.
_SHORT_GPT = replace(LADDER["small-gpt"].config, dropout=0.0, max_iters=3000, eval_interval=250)
RECIPE_GPT = Run("gpt", replace(_SHORT_GPT, **RECIPE), "the small GPT with the whole recipe, no dropout")
NO_DROPOUT_GPT = Run("gpt", _SHORT_GPT, "the small GPT without dropout, plain loop")


# "From characters to byte pairs": the LayerNorm rung on byte-pair tokens of each size (256: the
# bytes alone, no merge), with the rung's steps and batch, so that each step reads as many tokens.
BPE_VOCABS = (256, 512, 1024, 2048)
# The byte-pair size the chapter sets against characters seed by seed.
COMPARED_BPE = 1024


def byte_pairs() -> dict[str, Run]:
    """The LayerNorm rung on each of ``BPE_VOCABS``, named "BPE <size>", and on ``COMPARED_BPE``
    with the other seeds, "BPE <size>, seed <seed>" (read at their end only)."""
    layernorm = LADDER["layernorm"]
    sizes = {
        f"BPE {size}": Run(
            layernorm.kind, replace(layernorm.config, bpe_vocab=size), f"{size} byte-pair tokens"
        )
        for size in BPE_VOCABS
    }
    compared = sizes[f"BPE {COMPARED_BPE}"]
    seeds = {
        f"BPE {COMPARED_BPE}, seed {seed}": Run(
            compared.kind, variant(compared.config, seed=seed), compared.what
        )
        for seed in SEEDS[1:]
    }
    return sizes | seeds


# "A GPT that writes Tang poems": the small GPT with the whole recipe (tied weights among it), on
# the poems' characters. With 8,337 of them the output layer is most of each step's work, so a
# step reads 16 sequences of 32 characters, not 32; evaluations average 20 batches.
POEMS = Run(
    "gpt",
    replace(_SHORT_GPT, corpus="tang-poems", batch_size=16, eval_iters=20, max_iters=5000, **RECIPE),
    "the small GPT with the whole recipe, on Tang poems",
)


def book_runs() -> dict[str, Run]:
    """The runs the chapters train in full, by name: Part II's two, every rung but the lecture's,
    the recipe's, the rungs again with other seeds, the rung on byte pairs and the poems' GPT.

    The build trains these before it runs the chapters (``bookbuild.execute``), so that no chapter
    holds a core while it waits for a model that another chapter is training.
    """
    ladder = {name: rung for name, rung in LADDER.items() if name != "lecture"}
    layernorm = LADDER["layernorm"]
    # "Dropout, and train() versus eval()" trains the LayerNorm rung with dropout beside it
    dropout = Run(layernorm.kind, replace(layernorm.config, dropout=0.1), "the LayerNorm rung, dropout 0.1")
    recipe = {f"ablation: {name}": run for name, run in ablation().items()} | {
        "recipe-gpt": RECIPE_GPT,
        "no-dropout-gpt": NO_DROPOUT_GPT,
    }
    spread = {f"spread: {name}": run for name, run in seed_spread().items()}
    tokens = {f"tokens: {name}": run for name, run in byte_pairs().items()}
    runs = PART_II | ladder | {"layernorm-dropout": dropout} | recipe | spread | tokens | {"poems": POEMS}
    unique = {(run.kind, run.config): name for name, run in reversed(runs.items())}  # first name wins
    return {name: runs[name] for name in runs if name in unique.values()}
