"""What bfloat16 autocast and ``torch.compile`` do to a training step on this CPU.

"Beyond one machine" takes ``--dtype bfloat16`` and ``--compile`` on CUDA GPUs only. This script
measures the choice on the machine it runs on: one training step (forward, backward, AdamW) of a
preset, ``--steps`` times, in float32 as the book trains, under bfloat16 autocast, and through
``torch.compile`` (Inductor's CPU path: it writes C++ and needs a compiler). It prints each
median step against float32's, compile's first step (the compilation), the number of steps that
would repay it, and which of the CPU's bfloat16 instructions torch can use.

    python -m benchmarks.cpu_engines [--preset small-gpt] [--steps 30]

The budget is the book's choice, that on a CPU neither option pays at the book's sizes: it would
pay where a ratio is well below 1 and, for compile, the steps that repay the compilation are fewer
than the preset's ``max_iters``, which the last line prints side by side. The script measures and
exits 0 either way; it does not gate.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import torch

from selfattn import get_batch, load_corpus, make_model
from selfattn.engine import Engine
from selfattn.recipe import make_optimizer, take_step
from selfattn.runs import LADDER
from selfattn.threads import threads_for


def step_seconds(engine: Engine, preset: str, steps: int) -> list[float]:
    """Wall time of each of ``steps`` training steps of ``preset`` prepared by ``engine``."""
    config = LADDER[preset].config
    corpus = load_corpus()
    model = make_model(LADDER[preset].kind, corpus.tokenizer.vocab_size, config)
    optimizer = make_optimizer(model, config)
    net = engine.prepare(model, config.seed)
    batches = torch.Generator().manual_seed(config.seed)
    times = []
    for step in range(steps):
        xb, yb = get_batch(corpus.train, config.batch_size, config.block_size, batches)  # (B, T)
        began = time.perf_counter()
        _, loss = net(xb, yb)
        take_step(model, optimizer, loss, config, step)
        times.append(time.perf_counter() - began)
    return times


def bf16_instructions() -> str:
    """The CPU's bfloat16 instruction sets, from /proc/cpuinfo (Linux), and torch's view of them."""
    info = Path("/proc/cpuinfo")
    flags = set(info.read_text().split()) if info.is_file() else set()
    found = [name for name in ("avx512_bf16", "amx_bf16", "amx_tile") if name in flags]
    capability = torch.backends.cpu.get_cpu_capability()
    return f"{', '.join(found) or 'none'} (torch's CPU capability: {capability})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="small-gpt", choices=[n for n in LADDER if n != "lecture"])
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    config = LADDER[args.preset].config
    engines = {
        "float32": Engine(),
        "bfloat16 autocast": Engine(dtype="bfloat16"),
        "torch.compile": Engine(compile=True),
    }
    print(f"{args.preset}, {args.steps} steps each; bfloat16 instructions: {bf16_instructions()}")
    with threads_for(config.batch_size, config.block_size, config.n_embd * config.n_layer):
        measured = {name: step_seconds(engine, args.preset, args.steps) for name, engine in engines.items()}
    base = statistics.median(measured["float32"][1:])
    for name, times in measured.items():
        median = statistics.median(times[1:])
        line = f"{name:<18} first step {times[0]:7.2f} s, then {1000 * median:6.1f} ms ({median / base:.2f}x)"
        if name == "torch.compile":
            saved = base - median
            repay = (times[0] - median) / saved if saved > 0 else float("inf")
            line += f"; repaid after {repay:,.0f} steps (the run takes {config.max_iters:,})"
        print(line)


if __name__ == "__main__":
    main()
