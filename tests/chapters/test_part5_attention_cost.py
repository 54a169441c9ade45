"""What "What attention costs" shows, against what the package computes.

The page's memory numbers come from the allocations the profiler records, the same on every run,
so they must be the package's to the digit. Its times are not: the page reports what its build
measured, in words that hold whatever that was, and each ratio it gives must agree with the times
it comes from. What the times should be on the book's machine is a budget, held by
``python -m benchmarks.attention_cost``, not by a test.
"""

from __future__ import annotations

import re

import pytest
from torch.nn.attention import SDPBackend, sdpa_kernel

from bookbuild import ROOT
from selfattn.attention_cost import (
    loglog_slope,
    naive_attention,
    operations,
    peak_memory,
    random_qkv,
    sdpa_attention,
    tiled_attention,
)
from selfattn.runs import LADDER
from tests.helpers import agrees_to_rounding, chapter, figure_alts, shows_source

pytestmark = pytest.mark.book

PAGE = "attention-cost"
C = LADDER["small-gpt"].config
SHAPE = dict(n_head=C.n_head, head_size=C.n_embd // C.n_head)  # the chapter's heads
LENGTHS = [64, 128, 256, 512, 1024, 2048, 4096]  # the chapter's context lengths
MiB = 2**20


@pytest.fixture(scope="module")
def page(request):
    """The built page and its text; skipped while the chapter is not in the table of contents."""
    if f"book/{PAGE}" not in (ROOT / "_toc.yml").read_text():
        pytest.skip(f"book/{PAGE} is not in _toc.yml: the book's build leaves it out")
    return chapter(request.getfixturevalue("built_book"), PAGE)


def number(text: str, pattern: str) -> float:
    """The number the page shows where ``pattern`` (a regex with one group) matches."""
    return float(shown(text, pattern)[0].replace(",", ""))


def shown(text: str, pattern: str) -> tuple[str, ...]:
    """The numbers the page shows where ``pattern`` matches, as shown (one per group)."""
    found = re.search(pattern, text)
    assert found, f"the page does not say {pattern!r}"
    return found.groups()


def test_page_shows_the_packages_code(page):
    path, _ = page
    shown = [naive_attention, sdpa_attention, peak_memory, tiled_attention]
    assert [f.__name__ for f in shown if not shows_source(path, f)] == []


def test_page_shows_the_three_agree(page):
    _, text = page
    printed = [
        "naive_attention in the layer, same output: True",
        "sdpa_attention in the layer, same output: True",
        "every difference from naive_attention below 1e-5: True",
    ]
    assert [line for line in printed if line not in text] == []


def test_memory_check_shows_the_matrix_as_the_package_measures_it(page):
    _, text = page
    T = 1024
    q, k, v = random_qkv(T, **SHAPE)
    matrix = SHAPE["n_head"] * T * T * 4
    peak = peak_memory(naive_attention, q, k, v)
    assert f"one (T, T) matrix for each head: {matrix / MiB:.1f} MiB" in text
    assert f"naive_attention at its peak: {peak / MiB:.1f} MiB" in text
    assert f"The peak is {peak / matrix:.4f} matrices" in text
    assert 2 < peak / matrix < 2.1, "two matrices and the mask"


def test_memory_table_is_the_packages_and_its_slopes_are_the_prose(page):
    _, text = page
    peaks = [peak_memory(naive_attention, *random_qkv(T, **SHAPE)) for T in LENGTHS]
    row = "the book's " + " ".join(f"{p / MiB:.2f}" for p in peaks)
    assert row in " ".join(text.split()), "the printed table's row for the book's attention"
    slope = number(text, r"climbs with a slope of ([\d.]+) on the log-log chart")
    assert slope == pytest.approx(loglog_slope(LENGTHS[4:], peaks[4:]), abs=0.005)
    assert 1.9 < slope <= 2.0, "the slope of T squared"
    assert f"it holds {peaks[-1] / MiB:.0f} MiB" in text
    sdpa, tiled = (
        float(s) for s in re.search(r"their slopes are ([\d.]+) and ([\d.]+), no faster than", text).groups()
    )
    assert 0 < sdpa <= 1.05 and 0 < tiled <= 1.05, "no faster than T"


def test_the_fused_calls_memory_is_the_packages_with_its_kernels_buffers(page):
    """At the longest context the page gives the fused call's peak, what of it is not its output
    (the buffers its kernel allocates and releases inside the call), and one matrix per head."""
    _, text = page
    T = LENGTHS[-1]
    peak = peak_memory(sdpa_attention, *random_qkv(T, **SHAPE))
    output = SHAPE["n_head"] * T * SHAPE["head_size"] * 4
    matrix = SHAPE["n_head"] * T * T * 4
    said = (
        f"At the longest context the fused call held {peak / MiB:.2f} MiB at its peak, "
        f"{(peak - output) / MiB:.2f} MiB of it besides its output, where one (T, T) matrix for "
        f"each head takes {matrix / MiB:.0f} MiB"
    )
    assert said in " ".join(text.split())
    assert output < peak < matrix / 10


def test_the_fallback_holds_the_matrix_and_the_fused_kernel_does_not(page):
    _, text = page
    T = 1024
    q, k, v = random_qkv(T, **SHAPE)
    matrix = SHAPE["n_head"] * T * T * 4
    with sdpa_kernel(SDPBackend.MATH):
        fallback = peak_memory(sdpa_attention, q, k, v)
    fused = peak_memory(sdpa_attention, q, k, v)
    assert f"the fused kernel at its peak: {fused / matrix:.3f} matrices" in text
    assert f"the fallback at its peak: {fallback / matrix:.2f} matrices" in text
    assert f"The fallback held {fallback / matrix:.2f} matrices at its peak" in text
    assert fallback > matrix > 10 * fused


def test_llama_s_context_is_128_times_1024(page):
    _, text = page
    assert f"128K tokens, 128 times 1,024 or {128 * 1024:,}" in text


def test_the_cpu_kernel_sdpa_calls_is_named(page):
    _, text = page
    q, k, v = random_qkv(256, **SHAPE)
    kernels = [name for name in operations(sdpa_attention, q, k, v) if "attention" in name]
    assert "aten::_scaled_dot_product_flash_attention_for_cpu" in kernels
    assert " ".join(kernels) in text, "the page lists them, one per line"


def timings(text: str, label: str) -> list[str]:
    """Each time the page prints as "<label>: 1.234 ms per forward", as shown, in page order."""
    return re.findall(rf"(?<![\w']){label}: (\d+\.\d+) ms per forward", text)


def test_the_prose_reports_the_times_at_long_contexts_as_measured(page):
    """The slopes, the times at the longest context and the ratios, in words that hold whatever was
    measured ("took ... times as long"); the ratio agrees with the two times, and the later
    paragraphs and the summary repeat the same ratio."""
    _, text = page
    slopes = shown(
        text,
        r"Measured for this page, they are (\d+\.\d) for the book's attention, (\d+\.\d) for the "
        r"fused call and (\d+\.\d) for the tiled version",
    )
    assert all(float(slope) > 0 for slope in slopes)
    naive, sdpa, gain = shown(
        text,
        r"At the longest context the book's attention took (\d+\.\d) ms and the fused call "
        r"(\d+\.\d) ms: the book's took (\d+\.\d) times as long",
    )
    assert agrees_to_rounding(gain, naive, sdpa), (gain, naive, sdpa)
    assert shown(text, r"against (\d+\.\d) times at the longest context") == (gain,)
    assert shown(
        text, r"the book's attention took (\d+\.\d) times as long as the fused call at the longest context"
    ) == (gain,), "the summary"
    shortest, short, longest, long = shown(
        text,
        r"At the shortest context, (\d+) positions, it took (\d+\.\d\d) times as long as the book's "
        r"attention; at the longest, ([\d,]+) positions, (\d+\.\d\d) times as long",
    )
    assert (int(shortest), int(longest.replace(",", ""))) == (LENGTHS[0], LENGTHS[-1])
    assert float(short) > 0 and float(long) > 0


def test_the_prose_reports_the_times_at_the_small_gpts_size_as_measured(page):
    """At the small GPT's size the page prints the three times; the ratio and the two shares the
    prose gives agree with them to the digits shown, and the summary repeats the ratio."""
    _, text = page
    naive, sdpa = timings(text, "the book's attention"), timings(text, "SDPA")
    (model,), tiled = timings(text, "the whole small GPT"), timings(text, "tiled")
    assert len(naive) == len(sdpa) == 2 and len(tiled) == 1, "the small GPT's size, then the try cell"
    (gain,) = shown(
        text, r"Per call, the book's attention took (\d+\.\d) times as long as the fused call here"
    )
    assert agrees_to_rounding(gain, naive[0], sdpa[0]), (gain, naive[0], sdpa[0])
    layers, naive_share, sdpa_share = shown(
        text,
        r"one call per block, (\d+) in all, took (\d+)% of the time of one forward of the whole model; "
        r"with the fused call, (\d+)%",
    )
    assert int(layers) == C.n_layer
    scale = 100 * C.n_layer  # one call per block, in percent of one forward
    assert agrees_to_rounding(naive_share, naive[0], model, scale), (naive_share, naive[0], model)
    assert agrees_to_rounding(sdpa_share, sdpa[0], model, scale), (sdpa_share, sdpa[0], model)
    summary = rf"and (\d+\.\d) times as long at the small GPT's {C.block_size} characters"
    assert shown(text, summary) == (gain,), "the summary"


def test_three_figures_each_described(page):
    path, _ = page
    alts = figure_alts(path)
    assert len(alts) == 3 and all(len(alt) > 80 for alt in alts)
    assert any("slope 2" in alt for alt in alts) and any("slope 1" in alt for alt in alts)
    assert any("milliseconds" in alt for alt in alts), "the timing figure"
    assert any("tiles" in alt and "diagonal" in alt for alt in alts), "the grid of tiles"
