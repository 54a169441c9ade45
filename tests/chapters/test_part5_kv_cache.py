"""What "Generating faster: the KV cache" shows, against what the package computes.

The page must show the package's own source, the memory the package computes, the same ids with
and without the cache, and the times its build measured. Times move with the machine and its
load, so the prose reports them in words that hold whatever was measured, and each ratio it gives
must agree with the times it comes from. What the cache should save on the book's machine is a
budget, held by ``python -m benchmarks.kv_cache``, not by a test.
"""

from __future__ import annotations

import re

import pytest

from bookbuild import ROOT
from selfattn import kv_cache
from selfattn.causal import future_keys
from selfattn.kv_cache import GPT2_SMALL, cache_memory
from selfattn.models import generate
from selfattn.runs import LADDER
from tests.helpers import agrees_to_rounding, chapter, figure_alts, included_objects, unshown_sources

PAGE = "kv-cache"
SOURCE = ROOT / "book" / f"{PAGE}.md"
SHOWN = [
    generate,
    kv_cache.KVCache,
    kv_cache.attend,
    future_keys,
    kv_cache.attention_step,
    kv_cache.forward_cached,
    kv_cache.generate_cached,
    kv_cache.cache_memory,
    kv_cache.bytes_per_token,
]


def number(pattern: str, text: str) -> float:
    """The number the page shows where ``pattern`` (with one group) matches."""
    return float(shown(pattern, text)[0].replace(",", ""))


def shown(pattern: str, text: str) -> tuple[str, ...]:
    """The numbers the page shows where ``pattern`` matches, as shown (one per group)."""
    match = re.search(pattern, text)
    assert match, f"not on the page: {pattern!r}"
    return match.groups()


def test_the_chapter_includes_only_what_the_package_defines():
    """Each ``:pyobject:`` the chapter includes names a function or class of the module it reads."""
    assert included_objects(SOURCE) == {(obj.__module__.rsplit(".", 1)[1], obj.__name__) for obj in SHOWN}


@pytest.mark.book
def test_the_page_shows_the_package_source(built_book):
    assert unshown_sources(built_book, PAGE, SHOWN) == []


@pytest.mark.book
def test_the_cache_writes_the_same_ids_on_the_page(built_book):
    _, text = chapter(built_book, PAGE)
    assert text.count("the same 200 ids: True") == 4, "the small GPT, every way of choosing"
    assert "ids: False" not in text
    assert "the same ids: True" in text, "the try-it cell"
    assert "same scores as forward: True" in text and "positions cached: 8" in text


@pytest.mark.book
def test_the_earlier_positions_are_reused_and_a_sliding_cache_is_not(built_book):
    _, text = chapter(built_book, PAGE)
    largest = number(r"largest change at the first 19 positions: ([\d.e+-]+)", text)
    assert largest < 1e-5
    assert f"they differ by at most {largest:.1e}" in text
    assert number(r"One of the probabilities moves by ([\d.]+)", text) > 0.01


@pytest.mark.book
def test_the_memory_on_the_page_is_the_packages(built_book):
    _, text = chapter(built_book, PAGE)
    small, lecture = (cache_memory("gpt", LADDER[name].config) for name in ("small-gpt", "lecture"))
    gpt2 = cache_memory("gpt", GPT2_SMALL)
    claims = [
        f"tiny: {small.per_token / 2**10:.0f} KiB per token",
        f"keeps {lecture.per_token / 2**10:.0f} KiB per token, {lecture.full_context / 2**20:.1f} MiB",
        f"keeps {gpt2.per_token / 2**10:.0f} KiB per token and {gpt2.full_context / 2**20:.0f} MiB",
        f"need {8 * gpt2.full_context / 2**20:.0f} MiB",
    ]
    assert [claim for claim in claims if claim not in text] == []
    assert "GPT-2 small 12 768 1024 72 KiB 72.0 MiB" in text, "the printed table"


@pytest.mark.book
def test_the_work_counted_on_the_page(built_book):
    _, text = chapter(built_book, PAGE)
    n = LADDER["lecture"].config.block_size
    assert f"generate runs {n * (n + 1) // 2:,} positions generate_cached runs {n:,}" in text
    assert f"runs {(n + 1) / 2:.0f} times fewer positions" in text


@pytest.mark.book
def test_the_prose_reports_the_timings_as_measured(built_book):
    """One step of the lecture-size model at a full context, and the small GPT writing past its
    context: the times and ratios the build measured, in words that hold whatever they were
    ("took ... times as long"); each ratio agrees with the times it comes from."""
    path, text = chapter(built_book, PAGE)
    n = LADDER["lecture"].config.block_size
    without, with_cache, ratio = shown(
        rf"At a full context of {n} positions, generate took (\d+\.\d) ms for a new token and the "
        r"cached step (\d+\.\d) ms: the step without the cache took (\d+\.\d) times as long",
        text,
    )
    assert agrees_to_rounding(ratio, without, with_cache), (ratio, without, with_cache)
    summary = rf"at a full context of {n} positions, a step without the cache took (\d+\.\d) times as long"
    assert shown(summary, text) == (ratio,), "the summary"
    assert number(r"The cached step took (\d+\.\d) ms at context 1\.", text) > 0
    n_new = 5 * LADDER["small-gpt"].config.block_size  # the loops start from a full context
    plain_s = shown(rf"generate: {n_new} tokens in (\d+\.\d\d) s", text)[0]
    cached_s, printed = shown(rf"with the cache: {n_new} tokens in (\d+\.\d\d) s, (\d+\.\d)x faster", text)
    past = shown(r"Here generate took (\d+\.\d\d) times as long as the cached loop\.", text)[0]
    assert agrees_to_rounding(past, plain_s, cached_s), (past, plain_s, cached_s)
    assert abs(float(printed) - float(past)) <= 0.055 + 1e-9, "the printed ratio, rounded to 0.1"
    assert any("milliseconds" in alt for alt in figure_alts(path)), "the timing figure"


@pytest.mark.book
def test_the_page_counts_a_grouped_query_cache_with_the_package_s_formula(built_book):
    """Mistral 7B's sizes (32 layers, heads of 128): a key and value per query head or 8 shared
    heads, in float32 or 16 bits, as the page prints them."""
    _, text = chapter(built_book, PAGE)

    def size(n_bytes: int) -> str:  # as the page writes a size
        return f"{n_bytes / 2**20:.1f} MiB" if n_bytes >= 2**20 else f"{n_bytes / 2**10:.0f} KiB"

    rows = {
        "a key and value per head, float32": (32, 4),
        "a key and value per head, 16-bit": (32, 2),
        "8 key-value heads, 16-bit (Mistral 7B)": (8, 2),
    }
    per_token = {what: kv_cache.bytes_per_token(32, heads, 128, n) for what, (heads, n) in rows.items()}
    for what, n_bytes in per_token.items():
        assert re.search(re.escape(what) + " +" + re.escape(size(n_bytes)) + " per token", text), what
    widest, smallest = max(per_token.values()), min(per_token.values())
    saving = widest // smallest
    assert re.search(rf"together shrink the cache\s+{saving} times", text)
