"""Training speed: each chapter script against a lecture-style loop, as whole processes.

For each setup, the package's chapter script (``code/02_attention.py`` for the attention chapter's
run, ``code/03_gpt.py --preset NAME`` for a rung of Part IV) and a deliberately naive loop of the
kind the lecture writes (``--naive NAME``, in a process of its own) train the same model
with the same hyperparameters and seed. The naive loop builds batches from a Python list of
slices, evaluates with 200 separate forward passes per split, uses the default (unfused) AdamW
and torch's default thread count. For Part IV it also lays the model out as the lecture's
``gpt.py`` does: each block's attention is ``n_head`` separate ``Head`` modules joined by a
projection (``MultiHeadAttention``), the same function with the same parameter count as the
package's ``CausalSelfAttention``, which computes all heads with one matrix per projection.
(Rungs with dropout keep the package's layout: ``MultiHeadAttention`` has no dropout.)

The two alternate (naive, package, naive, package, ...)
``--repeat`` times, so a burst of load elsewhere hits both, and the ratio printed is the median
of the pairs' ratios, next to its budget; the val losses must agree within a tolerance.

    python -m benchmarks.training_speed [--setups attention layernorm] [--repeat 3]

Exits 1 when a setup misses its speed budget or its loss tolerance.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

import torch

from bookbuild import ROOT
from selfattn import ATTENTION, TrainConfig, load_corpus, make_model
from selfattn.gpt import GPTLanguageModel, MultiHeadAttention, MultiHeadLanguageModel
from selfattn.runs import LADDER
from selfattn.threads import ALL_CORES

LECTURE_EVAL_ITERS = 200  # the lecture's scripts average 200 batches per split


@dataclass(frozen=True)
class Setup:
    kind: str
    config: TrainConfig
    script: list[str]  # the package's way: a chapter script and its arguments
    speedup: float  # budget: at least this many times faster than the naive loop
    tolerance: float  # budget: the two val losses at most this far apart


SETUPS = {
    "attention": Setup("attention", ATTENTION, ["code/02_attention.py"], 2.5, 0.02),
    **{
        name: Setup(rung.kind, rung.config, ["code/03_gpt.py", "--preset", name], 2.0, 0.03)
        for name, rung in LADDER.items()
        if name != "lecture"
    },
}


def naive_get_batch(data: torch.Tensor, cfg: TrainConfig) -> tuple[torch.Tensor, torch.Tensor]:
    ix = torch.randint(len(data) - cfg.block_size, (cfg.batch_size,))  # (B,)
    x = torch.stack([data[i : i + cfg.block_size] for i in ix])  # (B, T)
    y = torch.stack([data[i + 1 : i + cfg.block_size + 1] for i in ix])  # (B, T)
    return x, y


@torch.no_grad()
def naive_estimate_loss(model: torch.nn.Module, splits: dict, cfg: TrainConfig) -> dict:
    out = {}
    model.eval()
    for name, data in splits.items():
        losses = torch.zeros(LECTURE_EVAL_ITERS)
        for k in range(LECTURE_EVAL_ITERS):
            _, loss = model(*naive_get_batch(data, cfg))
            losses[k] = loss.item()
        out[name] = losses.mean().item()
    model.train()
    return out


def lecture_layout(model: torch.nn.Module, cfg: TrainConfig) -> None:
    """Give each block of a Part IV ``model`` the lecture's attention: separate heads, then a projection."""
    if not isinstance(model, (MultiHeadLanguageModel, GPTLanguageModel)) or cfg.dropout:
        return
    count = sum(p.numel() for p in model.parameters())
    for block in model.blocks:
        block.sa = MultiHeadAttention(cfg.n_embd, cfg.n_head, cfg.block_size)
    assert sum(p.numel() for p in model.parameters()) == count, "the same model, laid out differently"


def naive_train(setup: Setup) -> float:
    """The lecture's loop on the setup's model; returns the final val loss."""
    torch.set_num_threads(ALL_CORES)  # torch's default, which the package changes on import
    cfg = setup.config
    corpus = load_corpus()
    model = make_model(setup.kind, corpus.tokenizer.vocab_size, cfg)  # seeds torch's generator too
    lecture_layout(model, cfg)
    splits = {"train": corpus.train, "val": corpus.val}
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate)
    for it in range(cfg.max_iters):
        if it % cfg.eval_interval == 0:
            naive_estimate_loss(model, splits, cfg)
        xb, yb = naive_get_batch(splits["train"], cfg)
        _, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return naive_estimate_loss(model, splits, cfg)["val"]


def timed(command: list[str]) -> tuple[float, float]:
    """Run a training process; return its wall time and the last val loss it printed."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ))
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr[-3000:]}")
    return seconds, float(re.findall(r"val loss (\d+\.\d+)", result.stdout)[-1])


def compare(name: str, repeat: int) -> bool:
    setup = SETUPS[name]
    naive = [sys.executable, "-m", "benchmarks.training_speed", "--naive", name]
    package = [sys.executable, *setup.script, "--sample-tokens", "0"]
    ratios, losses = [], []
    for _ in range(repeat):
        naive_s, naive_val = timed(naive)
        package_s, package_val = timed(package)
        ratios.append(naive_s / package_s)
        losses.append((naive_val, package_val))
        print(
            f"  {name}: naive {naive_s:6.1f} s, val {naive_val:.4f} | package {package_s:6.1f} s, "
            f"val {package_val:.4f} | {ratios[-1]:.2f}x",
            flush=True,
        )
    ratio = statistics.median(ratios)
    gap = max(abs(a - b) for a, b in losses)
    ok = ratio >= setup.speedup and gap <= setup.tolerance
    print(
        f"{name:<12} speed-up {ratio:5.2f}x (budget >= {setup.speedup}x)   "
        f"val loss gap {gap:.4f} (budget <= {setup.tolerance}){'' if ok else '   OVER'}"
    )
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--setups", nargs="+", choices=list(SETUPS), default=["attention", "layernorm"])
    parser.add_argument("--repeat", type=int, default=3, help="pairs of runs per setup")
    parser.add_argument("--naive", choices=list(SETUPS), help=argparse.SUPPRESS)  # one naive run
    args = parser.parse_args(argv)
    if args.naive:
        print(f"final val loss {naive_train(SETUPS[args.naive]):.4f}")
        return 0
    results = [compare(name, args.repeat) for name in args.setups]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
