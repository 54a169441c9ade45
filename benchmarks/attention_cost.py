"""Attention's time against the context length: the budgets of "What attention costs".

The chapter times one attention forward with the small GPT's heads (``LADDER["small-gpt"]``: 4
heads of 16 numbers), one sequence at a time, at contexts from 64 to 4,096 positions, for the
book's attention, PyTorch's fused SDPA and the tiled version with tiles of 64
(``selfattn.attention_cost.measure``), and then at the small GPT's own size, a batch of 32
sequences of 32 characters, next to one forward of the whole (untrained) small GPT
(``compare_seconds``). The page reports what its build measured; this script measures the same
things ``--repeat`` times on the package's one thread and holds the medians to the budgets:

- from T = 1024 on, each of the three times grows with a log-log slope of at least 1.3: no
  arrangement makes the time much less steep than T²;
- at T = 4,096 the book's attention takes at least 3 times as long as SDPA;
- at T = 64 the tiled version takes at least 0.8 of the book's time, at T = 4,096 less than 0.8;
- at the small GPT's size the ratio of the book's time to SDPA's is less than half the ratio at
  T = 4,096, and SDPA swapped into all 4 blocks saves less than 0.4 of one forward of the model.

    python -m benchmarks.attention_cost [--repeat 3]

Exits 1 when a median is outside its budget.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from functools import partial

import torch

from selfattn import make_model
from selfattn.attention_cost import (
    compare_seconds,
    loglog_slope,
    measure,
    naive_attention,
    random_qkv,
    sdpa_attention,
    tiled_attention,
)
from selfattn.runs import LADDER

LENGTHS = [64, 128, 256, 512, 1024, 2048, 4096]  # the chapter's context lengths
LONG = 1024  # the slopes are fitted from this length on
NAIVE, SDPA, TILED = "the book's", "SDPA", "tiled, tile 64"
ATTENTIONS = {NAIVE: naive_attention, SDPA: sdpa_attention, TILED: partial(tiled_attention, tile=64)}
VOCAB_SIZE = 65  # tiny Shakespeare's characters

# budgets
SLOPE = 1.3  # each time's slope from T = 1024 on is at least this
GAIN = 3.0  # at the longest context the book's attention takes at least this many times SDPA's time
TILED_SHORT = 0.8  # at the shortest context the tiled version takes at least this share of the book's
TILED_LONG = 0.8  # at the longest context it takes less than this share
SMALL_GAIN = 0.5  # at the small GPT's size, the book's / SDPA is less than this share of the longest's
SAVED_SHARE = 0.4  # SDPA in every block saves less than this share of one forward of the model


def long_contexts(shape: dict[str, int]) -> dict[str, float]:
    """The figures measured at contexts from 64 to 4,096 positions, as the chapter measures them."""
    costs = measure(ATTENTIONS, LENGTHS, **shape)
    seconds = {name: [cost.seconds for cost in measured] for name, measured in costs.items()}
    start = LENGTHS.index(LONG)
    figures = {f"slope {name}": loglog_slope(LENGTHS[start:], ys[start:]) for name, ys in seconds.items()}
    figures["gain"] = seconds[NAIVE][-1] / seconds[SDPA][-1]
    figures["tiled short"] = seconds[TILED][0] / seconds[NAIVE][0]
    figures["tiled long"] = seconds[TILED][-1] / seconds[NAIVE][-1]
    return figures


def small_gpt_size(shape: dict[str, int]) -> dict[str, float]:
    """The figures measured at the small GPT's size, as the chapter measures them."""
    config = LADDER["small-gpt"].config
    q, k, v = random_qkv(config.block_size, batch=config.batch_size, **shape)
    model = make_model("gpt", VOCAB_SIZE, config).eval()  # untrained: its weights do not matter here
    idx = torch.zeros(config.batch_size, config.block_size, dtype=torch.long)  # (B, T)
    small = compare_seconds(
        {
            "naive": lambda: naive_attention(q, k, v),
            "SDPA": lambda: sdpa_attention(q, k, v),
            "model": lambda: model(idx),
        },
        repeats=9,
        number=5,
    )
    return {
        "small gain": small["naive"] / small["SDPA"],
        "saved share": config.n_layer * (small["naive"] - small["SDPA"]) / small["model"],
    }


def claims(f: dict[str, float]) -> list[tuple[str, bool]]:
    """Each claim as a line that gives the measured figure next to its budget, and whether it holds."""
    found = [
        (
            f"from T = {LONG} on, time's slope for {name}: {f[f'slope {name}']:.2f} (budget >= {SLOPE:g})",
            f[f"slope {name}"] >= SLOPE,
        )
        for name in ATTENTIONS
    ]
    half = SMALL_GAIN * f["gain"]
    return [
        *found,
        (
            f"at T = {LENGTHS[-1]}, the book's / SDPA: {f['gain']:.1f}x (budget >= {GAIN:g}x)",
            f["gain"] >= GAIN,
        ),
        (
            f"at T = {LENGTHS[0]}, tiled / the book's: {f['tiled short']:.2f} (budget >= {TILED_SHORT:g})",
            f["tiled short"] >= TILED_SHORT,
        ),
        (
            f"at T = {LENGTHS[-1]}, tiled / the book's: {f['tiled long']:.2f} (budget < {TILED_LONG:g})",
            f["tiled long"] < TILED_LONG,
        ),
        (
            f"at the small GPT's size, the book's / SDPA: {f['small gain']:.1f}x "
            f"(budget < {half:.1f}x, {SMALL_GAIN:g} of the longest context's)",
            f["small gain"] < half,
        ),
        (
            f"at the small GPT's size, SDPA in every block saves {f['saved share']:.0%} of a forward "
            f"(budget < {SAVED_SHARE:.0%})",
            f["saved share"] < SAVED_SHARE,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="measurements of everything, one after another")
    args = parser.parse_args(argv)
    config = LADDER["small-gpt"].config
    shape = dict(n_head=config.n_head, head_size=config.n_embd // config.n_head)  # the chapter's heads
    runs = []
    for _ in range(args.repeat):
        runs.append(long_contexts(shape) | small_gpt_size(shape))
        print("  " + " | ".join(f"{name} {value:.2f}" for name, value in runs[-1].items()), flush=True)
    medians = {name: statistics.median(run[name] for run in runs) for name in runs[0]}
    ok = True
    for line, holds in claims(medians):
        print(f"{line}{'' if holds else '   OUTSIDE'}")
        ok = ok and holds
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
