"""What one attention layer costs: three ways to compute it, and how to measure them.

``naive_attention`` is the book's causal attention on given queries, keys and values: it holds
the whole (T, T) matrix of attention probabilities for every head. ``sdpa_attention`` is PyTorch's fused call.
``tiled_attention`` is FlashAttention's idea from scratch: the same result computed a tile of
keys at a time with an online softmax, never holding more than a (tile, tile) block of scores.

``compare_seconds`` times one forward of each of several (the median of a few, taking turns),
``peak_memory`` finds the most memory one forward holds at once, from the allocations torch's
profiler records, and ``measure`` does both for a range of context lengths; ``operations``
names the torch operations a call runs.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor
from torch.nn import functional as F
from torch.profiler import ProfilerActivity, profile

from selfattn.causal import future_keys

Attention = Callable[[Tensor, Tensor, Tensor], Tensor]  # (q, k, v) -> out, all (B, nh, T, hs)


def naive_attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> Tensor:
    """Causal attention as ``CausalSelfAttention.forward`` does it; q, k, v: (B, nh, T, hs).

    With ``causal=False`` every query sees every key, as in an encoder.
    """
    T = q.shape[-2]
    wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, nh, T, T), scaled
    if causal:
        wei = wei.masked_fill(future_keys(T, T), float("-inf"))  # (B, nh, T, T)
    wei = F.softmax(wei, dim=-1)  # (B, nh, T, T)
    return wei @ v  # (B, nh, T, hs)


def sdpa_attention(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    """PyTorch's fused causal attention; q, k, v: (B, nh, T, hs)."""
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, nh, T, hs)


def tiled_attention(q: Tensor, k: Tensor, v: Tensor, tile: int = 128, causal: bool = True) -> Tensor:
    """Causal attention a tile at a time, with an online softmax; q, k, v: (B, nh, T, hs).

    Each tile of queries meets the tiles of keys and values up to the diagonal (every tile,
    with ``causal=False``), one by one. Each query row keeps its largest score so far, a sum
    of exponentials and a weighted sum of values; when a new tile raises the largest score,
    both sums are rescaled to it.
    """
    B, nh, T, hs = q.shape
    out = torch.empty_like(q)  # (B, nh, T, hs)
    for i in range(0, T, tile):  # queries i, i + 1, ...: a tile, or what is left
        qi = q[:, :, i : i + tile] * hs**-0.5  # (B, nh, tq, hs), scaled
        tq = qi.shape[-2]
        row_max = torch.full((B, nh, tq, 1), float("-inf"))  # largest score so far
        row_sum = torch.zeros(B, nh, tq, 1)  # sum of exp(score - row_max) so far
        acc = torch.zeros(B, nh, tq, hs)  # sum of exp(score - row_max) * value so far
        last = i + tq if causal else T  # key tiles up to the diagonal, none after
        for j in range(0, last, tile):
            s = qi @ k[:, :, j : j + tile].transpose(-2, -1)  # (B, nh, tq, tk)
            if causal and j == i:  # the tile on the diagonal: hide each query's future keys
                s = s.masked_fill(future_keys(tq, tq), float("-inf"))  # (B, nh, tq, tk)
            new_max = torch.maximum(row_max, s.amax(dim=-1, keepdim=True))
            rescale = torch.exp(row_max - new_max)  # (B, nh, tq, 1)
            p = torch.exp(s - new_max)  # (B, nh, tq, tk)
            row_sum = row_sum * rescale + p.sum(dim=-1, keepdim=True)  # (B, nh, tq, 1)
            acc = acc * rescale + p @ v[:, :, j : j + tile]  # (B, nh, tq, hs)
            row_max = new_max  # (B, nh, tq, 1)
        out[:, :, i : i + tq] = acc / row_sum  # (B, nh, tq, hs): divided once, at the end
    return out


def random_qkv(
    T: int, batch: int = 1, n_head: int = 4, head_size: int = 16, seed: int = 0
) -> tuple[Tensor, Tensor, Tensor]:
    """Queries, keys and values of ``T`` positions, each (batch, n_head, T, head_size), seeded."""
    generator = torch.Generator().manual_seed(seed)
    q, k, v = torch.randn(3, batch, n_head, T, head_size, generator=generator).unbind(0)
    return q, k, v  # (B, nh, T, hs) each


@torch.no_grad()
def compare_seconds(
    forwards: Mapping[str, Callable[..., object]], *inputs: Tensor, repeats: int = 3, number: int = 1
) -> dict[str, float]:
    """The seconds one call ``forward(*inputs)`` takes, for each of ``forwards``: the median of
    ``repeats`` timings, each the mean of ``number`` calls in a row, after one call that is not
    timed (a warm-up). The forwards take turns, so a burst of other work slows them all alike."""
    for forward in forwards.values():
        forward(*inputs)
    times: dict[str, list[float]] = {name: [] for name in forwards}
    for _ in range(repeats):
        for name, forward in forwards.items():
            start = time.perf_counter()
            for _ in range(number):
                forward(*inputs)
            times[name].append((time.perf_counter() - start) / number)
    return {name: statistics.median(seconds) for name, seconds in times.items()}


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Send what is written to the process's stderr nowhere: the profiler's own C++ library
    prints two log lines each time it starts and stops, which would show under a cell."""
    sys.stderr.flush()
    saved, nowhere = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(nowhere, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(nowhere)


def peak_memory(forward: Callable[..., object], *inputs: Tensor) -> int:
    """The most bytes one call ``forward(*inputs)`` holds at once, beyond its inputs.

    With ``profile_memory=True`` torch's profiler records every allocation of CPU memory and
    every release, with its time. Its list of events nets each operation's records into one
    number, so a buffer that an operation allocates and releases inside itself would count as
    nothing there; the Chrome trace it exports keeps the records one by one. Added up in the
    order they happened, they give the memory in use after each; the peak is the largest sum.
    """
    with _quiet_stderr(), torch.no_grad():
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            forward(*inputs)
        with tempfile.TemporaryDirectory() as folder:
            trace = Path(folder) / "trace.json"
            prof.export_chrome_trace(str(trace))
            events = json.loads(trace.read_text(encoding="utf-8"))["traceEvents"]
    records = sorted((e for e in events if e.get("name") == "[memory]"), key=lambda e: e["ts"])
    held = peak = 0
    for record in records:
        held += record["args"]["Bytes"]  # bytes allocated (> 0) or released (< 0)
        peak = max(peak, held)
    return peak


def operations(forward: Callable[..., object], *inputs: Tensor) -> list[str]:
    """The names of the torch operations one call ``forward(*inputs)`` runs, as the profiler lists them."""
    with _quiet_stderr(), torch.no_grad():
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            forward(*inputs)
    return sorted({event.name for event in prof.events()})


@dataclass(frozen=True)
class Cost:
    """What one forward took at context length ``T``."""

    T: int
    seconds: float  # median wall time of one forward
    peak_bytes: int  # the most memory it held at once, beyond its inputs


def measure(
    attentions: Mapping[str, Attention],
    lengths: Sequence[int],
    batch: int = 1,
    n_head: int = 4,
    head_size: int = 16,
    repeats: int = 3,
) -> dict[str, list[Cost]]:
    """Time and peak memory of each of ``attentions`` at each context length, on random q, k, v."""
    costs: dict[str, list[Cost]] = {name: [] for name in attentions}
    for T in lengths:
        q, k, v = random_qkv(T, batch, n_head, head_size)  # (B, nh, T, hs) each
        seconds = compare_seconds(attentions, q, k, v, repeats=repeats)
        for name, attention in attentions.items():
            costs[name].append(Cost(T, seconds[name], peak_memory(attention, q, k, v)))
    return costs


def loglog_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The slope of the least-squares line through (log x, log y): y grows about as x ** slope."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum((a - mx) ** 2 for a in lx)
