"""Byte-pair encoding's training speed: the book's ``train`` against the plain ``train_naive``.

Both learn merges on tiny Shakespeare's training split (1,003,854 characters) in this process.
The plain version recounts every pair of the whole text at every merge, so its time per merge is
the same from the first merge to the last: it is timed for ``--naive-merges`` merges only, and its
time for ``--merges`` forecast from that. The book's version counts each distinct piece once and
recounts only the pieces a merge touched; it is timed for all ``--merges``, and must learn the
same first merges as the plain one. Printed: each one's seconds per merge, the ratio, and the
book's time for ``--merges`` next to its budget (a live page trains a few hundred merges).

    python -m benchmarks.bpe [--merges 256] [--naive-merges 8]

Exits 1 when the book's version takes longer than its budget, or learns other merges.
"""

from __future__ import annotations

import argparse
import sys
import time

from selfattn import load_corpus
from selfattn.bpe import BYTES, train, train_naive

BUDGET = 5.0  # seconds for --merges merges, which a live page's cell waits for


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--merges", type=int, default=256, help="merges the book's version learns")
    parser.add_argument("--naive-merges", type=int, default=8, help="merges the plain version is timed for")
    args = parser.parse_args(argv)
    corpus = load_corpus()
    text = corpus.tokenizer.decode(corpus.train)
    start = time.perf_counter()
    naive = train_naive(text, BYTES + args.naive_merges)
    naive_each = (time.perf_counter() - start) / args.naive_merges
    start = time.perf_counter()
    fast = train(text, BYTES + args.merges)
    fast_time = time.perf_counter() - start
    same = list(fast.items())[: args.naive_merges] == list(naive.items())
    print(f"  train_naive: {naive_each:.3f} s per merge ({args.naive_merges} merges timed)")
    print(f"  train:       {fast_time / args.merges:.4f} s per merge ({args.merges} merges)")
    ok = fast_time <= BUDGET and same
    print(
        f"{args.merges} merges on tiny Shakespeare's training split: train {fast_time:.1f} s "
        f"(budget <= {BUDGET:g} s), train_naive about {naive_each * args.merges:.0f} s (forecast); "
        f"{naive_each * args.merges / fast_time:.0f}x faster; same merges: {same}{'' if ok else '   OVER'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
