"""Which CPU kernels the book's numbers depend on: every run under several kernel settings.

PyTorch on x86 picks its arithmetic by CPU: ATen's vectorised kernels by the CPU's instruction
set (``ATEN_CPU_CAPABILITY`` overrides it), MKL's matrix products by its own dispatch
(``MKL_CBWR`` fixes it). Each setting below trains the book's runs (the bigram, the attention
head and Part IV's ladder, run cache off) in a process of its own with the setting in its
environment, and the script prints one table: run x setting -> final validation loss, with
each setting's training time as a ratio to the first one's. ``--seeds`` adds the spread over
seeds under the book's own setting, for comparison.

    python -m benchmarks.cpu_kernels                     # every setting, every run (~40 min)
    python -m benchmarks.cpu_kernels --runs deep-plain --settings book default
    python -m benchmarks.cpu_kernels --seeds 1337 1 2 --settings book

Two settings can run at once (``--jobs``); the times are then noisier, the losses are not.
Exits 1 when the book's setting gives different numbers from this machine's own default on a
machine whose own default is the book's kernels (AVX2): that would mean the pin is not enough.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from bookbuild import ROOT
from selfattn.arithmetic import PINNED

RUNS = ["bigram", "attention", "multihead", "ffwd", "deep-plain", "residual", "layernorm", "small-gpt"]

# A name for each environment to try. "book" is what the package sets (selfattn.arithmetic).
SETTINGS = {
    "machine": {name: "" for name in PINNED},  # empty: this CPU's own choice (ATen warns it ignores it)
    "book": dict(PINNED),
    "default": {**PINNED, "ATEN_CPU_CAPABILITY": "default"},  # ATen without SIMD
    "avx512": {**PINNED, "ATEN_CPU_CAPABILITY": "avx512"},  # capped to the CPU's own best
    "mkl-compatible": {**PINNED, "MKL_CBWR": "COMPATIBLE"},
    "mkl-auto": {**PINNED, "MKL_CBWR": "AUTO"},
}

_CHILD = """
import json, sys
import torch
from dataclasses import replace
from selfattn import ATTENTION, BIGRAM, fit
from selfattn.runs import LADDER
name, seed = sys.argv[1], int(sys.argv[2])
runs = {"bigram": ("bigram", BIGRAM), "attention": ("attention", ATTENTION)}
runs.update({rung: (r.kind, r.config) for rung, r in LADDER.items()})
kind, config = runs[name]
_, history = fit(kind, replace(config, seed=seed), reuse=False)
print(json.dumps({"val": history.final_val, "seconds": history.seconds,
                  "capability": torch.backends.cpu.get_cpu_capability()}))
"""


def measure(setting: str, run: str, seed: int) -> dict:
    """Train one run in a fresh process under ``setting``; its val loss, time and ATen kernels."""
    env = {**os.environ, "SELFATTN_NO_RUN_CACHE": "1"}
    for name, value in SETTINGS[setting].items():
        env.pop(name, None)
        if value:
            env[name] = value
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, run, str(seed)], env=env, cwd=ROOT, capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"{setting} / {run} failed:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", nargs="+", default=RUNS, choices=RUNS)
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[1337], help="seeds (the book's is 1337)")
    parser.add_argument("--jobs", type=int, default=1, help="settings trained at once")
    args = parser.parse_args()

    columns = [(s, seed) for s in args.settings for seed in args.seeds]
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {
            (run, col): pool.submit(measure, col[0], run, col[1]) for run in args.runs for col in columns
        }
        results = {key: future.result() for key, future in futures.items()}

    head = [f"{s} seed {seed}" if len(args.seeds) > 1 else s for s, seed in columns]
    print(f"{'run':<12}" + "".join(f"{h:>22}" for h in head) + f"{'spread':>9}")
    for run in args.runs:
        vals = [results[run, col]["val"] for col in columns]
        print(f"{run:<12}" + "".join(f"{v:>22.4f}" for v in vals) + f"{max(vals) - min(vals):>9.4f}")
    kernels = [results[args.runs[0], col]["capability"] for col in columns]
    print(f"{'ATen kernels':<12}" + "".join(f"{k:>22}" for k in kernels))
    base = sum(results[run, columns[0]]["seconds"] for run in args.runs)
    ratios = [sum(results[run, col]["seconds"] for run in args.runs) / base for col in columns]
    print(f"{'time ratio':<12}" + "".join(f"{r:>22.2f}" for r in ratios))

    book, machine = ("book", args.seeds[0]), ("machine", args.seeds[0])
    if book in columns and machine in columns and results[args.runs[0], machine]["capability"] == "AVX2":
        differ = [run for run in args.runs if results[run, book]["val"] != results[run, machine]["val"]]
        if differ:
            print(f"the book's setting differs from this AVX2 machine's own on: {', '.join(differ)}")
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
