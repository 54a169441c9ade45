"""The three ways to compute attention agree, and the memory measure sees what each one holds."""

from __future__ import annotations

import pytest
import torch
from torch.nn import functional as F
from torch.profiler import record_function

from selfattn.attention_cost import (
    compare_seconds,
    loglog_slope,
    measure,
    naive_attention,
    peak_memory,
    random_qkv,
    sdpa_attention,
    tiled_attention,
)
from selfattn.gpt import CausalSelfAttention

FLOAT = 4  # bytes of one float32

# (T, tile): tiles that divide T and tiles that do not, a tile longer than T, and T = 1
SHAPES = [(1, 1), (1, 16), (2, 1), (7, 3), (16, 4), (33, 8), (64, 64), (100, 32), (128, 200), (257, 64)]


@pytest.mark.parametrize("T, tile", SHAPES)
def test_tiled_attention_equals_naive_attention(T, tile):
    q, k, v = random_qkv(T, batch=2, n_head=3, head_size=8, seed=T)
    tiled = tiled_attention(q, k, v, tile=tile)
    assert tiled.shape == q.shape
    assert torch.allclose(tiled, naive_attention(q, k, v), atol=1e-5, rtol=0)


@pytest.mark.parametrize("T, tile", SHAPES)
def test_without_the_mask_both_equal_attention_over_every_key(T, tile):
    q, k, v = random_qkv(T, batch=2, n_head=3, head_size=8, seed=T)
    every = F.scaled_dot_product_attention(q, k, v)  # (B, nh, T, hs): no mask
    assert torch.allclose(naive_attention(q, k, v, causal=False), every, atol=1e-5, rtol=0)
    assert torch.allclose(tiled_attention(q, k, v, tile=tile, causal=False), every, atol=1e-5, rtol=0)


@pytest.mark.parametrize("T", [1, 5, 32, 100])
def test_both_equal_pytorchs_fused_attention(T):
    q, k, v = random_qkv(T, batch=2, n_head=4, head_size=16, seed=T)
    fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert torch.allclose(sdpa_attention(q, k, v), fused)
    for attention in (naive_attention, tiled_attention):
        assert torch.allclose(attention(q, k, v), fused, atol=1e-5, rtol=0), attention.__name__


@pytest.mark.parametrize("T", [1, 8, 32])
def test_both_equal_the_attention_inside_the_books_causal_self_attention(T):
    """The module's output is its attention's, heads side by side, through its projection."""
    torch.manual_seed(T)
    module = CausalSelfAttention(n_embd=64, n_head=4, block_size=32).eval()
    x = torch.randn(3, T, 64)  # (B, T, C)
    B, nh, hs = 3, 4, 16
    projections = (module.query, module.key, module.value)
    q, k, v = (layer(x).view(B, T, nh, hs).transpose(1, 2) for layer in projections)  # (B, nh, T, hs)
    with torch.no_grad():
        expected = module(x)  # (B, T, C)
        for attention in (naive_attention, tiled_attention, sdpa_attention):
            out = attention(q, k, v).transpose(1, 2).reshape(B, T, nh * hs)  # (B, T, C)
            assert torch.allclose(module.proj(out), expected, atol=1e-5, rtol=0), attention.__name__


@pytest.mark.parametrize("attention", [naive_attention, tiled_attention, sdpa_attention])
def test_changing_a_future_key_or_value_changes_no_earlier_output(attention):
    T = 40
    q, k, v = random_qkv(T, batch=1, n_head=2, head_size=8, seed=1)
    base = attention(q, k, v)
    for t in (0, 9, 17, 38):
        k2, v2 = k.clone(), v.clone()
        k2[:, :, t + 1 :] += 1.0
        v2[:, :, t + 1 :] -= 2.0
        changed = attention(q, k2, v2)
        assert torch.allclose(changed[:, :, : t + 1], base[:, :, : t + 1], atol=1e-6), t
        assert not torch.allclose(changed[:, :, t + 1 :], base[:, :, t + 1 :]), t


def test_each_position_attends_to_itself_first():
    """Position 0 sees only itself: its output is its own value, exactly."""
    q, k, v = random_qkv(20, seed=2)
    for attention in (naive_attention, tiled_attention, sdpa_attention):
        assert torch.allclose(attention(q, k, v)[:, :, 0], v[:, :, 0], atol=1e-6), attention.__name__


def test_peak_memory_sees_the_t_by_t_matrix_of_the_naive_version():
    """Two (B, nh, T, T) float matrices are alive at once (each step makes a new one from the
    last), and the (T, T) mask of booleans."""
    B, nh, T = 1, 4, 256
    q, k, v = random_qkv(T, batch=B, n_head=nh)
    matrix = B * nh * T * T * FLOAT
    peak = peak_memory(naive_attention, q, k, v)
    assert 2 * matrix <= peak < 2 * matrix + T * T + 64 * 1024
    assert peak_memory(sdpa_attention, q, k, v) < matrix / 4
    assert peak_memory(lambda q, k, v: tiled_attention(q, k, v, tile=32), q, k, v) < matrix / 4
    assert peak_memory(naive_attention, q, k, v) == peak, "the same allocations every time"


def test_peak_memory_of_nothing_is_nothing_and_of_a_new_tensor_is_its_size():
    q, k, v = random_qkv(8)
    assert peak_memory(lambda q, k, v: q, q, k, v) == 0
    assert peak_memory(lambda q, k, v: torch.ones(1000, 250), q, k, v) == 1000 * 250 * FLOAT


def test_peak_memory_sees_a_buffer_an_operation_allocates_and_releases_inside_itself():
    """One operation makes a large buffer, sums it and drops it before it ends: it keeps only
    its 4-byte result, but at its peak it held the buffer too. The profiler's list of events
    nets the operation's allocations against its releases, 4 bytes; the peak must not."""
    rows, cols = 1000, 250

    def one_operation(q, k, v):
        with record_function("one operation"):
            buffer = torch.ones(rows, cols)  # (rows, cols): a million bytes
            total = buffer.sum()  # (): 4 bytes
            del buffer
        return total

    buffer = rows * cols * FLOAT
    assert peak_memory(one_operation, *random_qkv(8)) == buffer + FLOAT, "the buffer and the sum"


def ratio(attention, short: int, long: int, **shape) -> float:
    peaks = [peak_memory(attention, *random_qkv(T, **shape)) for T in (short, long)]
    return peaks[1] / peaks[0]


def test_naive_memory_grows_as_t_squared_and_tiled_memory_as_t():
    """Doubling T: the naive version holds about four times as much, the tiled one about twice
    (a few tile-sized blocks, and the output). PyTorch's fused kernel sizes its buffers by T in
    steps, but at long contexts it too holds less than twice as much."""
    assert 3.5 < ratio(naive_attention, 256, 512) < 4.5
    assert 1.5 < ratio(lambda q, k, v: tiled_attention(q, k, v, tile=16), 512, 1024) < 2.5
    assert 1.0 < ratio(sdpa_attention, 2048, 4096) < 2.5


def test_measure_reports_each_length_with_a_time_and_the_peak():
    costs = measure({"naive": naive_attention, "tiled": tiled_attention}, [16, 64], repeats=1)
    assert list(costs) == ["naive", "tiled"]
    assert [c.T for c in costs["naive"]] == [16, 64] == [c.T for c in costs["tiled"]]
    assert all(c.seconds > 0 for c in costs["naive"] + costs["tiled"])
    expected = [peak_memory(naive_attention, *random_qkv(T)) for T in (16, 64)]
    assert [c.peak_bytes for c in costs["naive"]] == expected


def test_compare_seconds_takes_turns():
    calls = []
    forwards = {name: (lambda x, name=name: calls.append(name)) for name in ("a", "b")}
    seconds = compare_seconds(forwards, torch.zeros(1), repeats=2, number=2)
    assert list(seconds) == ["a", "b"] and all(s >= 0 for s in seconds.values())
    assert calls == ["a", "b"] + ["a", "a", "b", "b"] * 2, "a warm-up each, then rounds in turn"


def test_loglog_slope_finds_the_power():
    xs = [64, 128, 256, 512]
    assert loglog_slope(xs, [3 * x**2 for x in xs]) == pytest.approx(2)
    assert loglog_slope(xs, [0.5 * x for x in xs]) == pytest.approx(1)
    assert loglog_slope(xs, [7.0] * 4) == pytest.approx(0)
