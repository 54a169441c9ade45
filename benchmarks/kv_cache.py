"""Generation speed: the KV cache against generate, on an untrained model of the lecture's size.

The lecture's GPT (``LADDER["lecture"]``: 6 layers, 384 wide, a context of 256) is built untrained,
in eval mode, and writes ``--tokens`` tokens from a one-token prompt twice in the same process:
with ``selfattn.models.generate``, which runs the whole window through the model at every step,
and with ``selfattn.kv_cache.generate_cached``, which keeps every layer's keys and values. Both
draw from generators with the same seed and must write the same ids. The two alternate
(``--repeat`` pairs, so a burst of load elsewhere hits both) on the package's one thread, and the
ratio printed is the median of the pairs' ratios, next to its budget.

    python -m benchmarks.kv_cache [--tokens 256] [--repeat 3]

Exits 1 when the cache is less than 5x faster, or when the two write different ids.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import torch

from selfattn import make_model
from selfattn.kv_cache import generate_cached
from selfattn.models import generate
from selfattn.runs import LADDER

SPEEDUP = 5.0  # budget: the cache writes the tokens at least this many times faster
VOCAB_SIZE = 65  # tiny Shakespeare's characters
SEED = 1337


def timed(write: Callable, model: torch.nn.Module, tokens: int) -> tuple[float, torch.Tensor]:
    """Seconds ``write`` takes to add ``tokens`` ids to a one-token prompt, and the ids it wrote."""
    start_ids = torch.zeros((1, 1), dtype=torch.long)  # a newline
    start = time.perf_counter()
    ids = write(model, start_ids, tokens, torch.Generator().manual_seed(SEED))
    return time.perf_counter() - start, ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=256, help="tokens to write (default: one context)")
    parser.add_argument("--repeat", type=int, default=3, help="pairs of runs (without, then with the cache)")
    args = parser.parse_args(argv)
    rung = LADDER["lecture"]
    model = make_model(rung.kind, VOCAB_SIZE, rung.config).eval()
    ratios, same = [], True
    for _ in range(args.repeat):
        without, expected = timed(generate, model, args.tokens)
        with_cache, ids = timed(generate_cached, model, args.tokens)
        same = same and torch.equal(ids, expected)
        ratios.append(without / with_cache)
        print(
            f"  generate {without:6.2f} s ({1000 * without / args.tokens:5.1f} ms per token) | "
            f"generate_cached {with_cache:6.2f} s ({1000 * with_cache / args.tokens:5.1f} ms per token) | "
            f"{ratios[-1]:.1f}x",
            flush=True,
        )
    ratio = statistics.median(ratios)
    ok = ratio >= SPEEDUP and same
    print(
        f"lecture-size GPT, {args.tokens} tokens: speed-up {ratio:.1f}x (budget >= {SPEEDUP:g}x)   "
        f"same ids: {same}{'' if ok else '   OVER'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
