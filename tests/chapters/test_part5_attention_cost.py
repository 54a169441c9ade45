"""What "What attention costs" shows, against what the package computes.

The page's memory numbers come from the allocations the profiler records, the same on every run,
so they must be the package's to the digit. Its times are not: the prose words them as slopes and
ratios, and each claim is held here in a band wide enough for any x86 CPU, busy or not.
"""

from __future__ import annotations

import re

import pytest

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
from tests.helpers import chapter, figure_alts, shows_source
from tools import ROOT

pytestmark = pytest.mark.slow

PAGE = "attention-cost"
C = LADDER["small-gpt"].config
SHAPE = dict(n_head=C.n_head, head_size=C.n_embd // C.n_head)  # the chapter's heads
LENGTHS = [64, 128, 256, 512, 1024, 2048, 4096]  # the chapter's context lengths
MB = 1e6


@pytest.fixture(scope="module")
def page(request):
    """The built page and its text; skipped while the chapter is not in the table of contents."""
    if f"book/{PAGE}" not in (ROOT / "_toc.yml").read_text():
        pytest.skip(f"book/{PAGE} is not in _toc.yml: the book's build leaves it out")
    return chapter(request.getfixturevalue("built_book"), PAGE)


def number(text: str, pattern: str) -> float:
    """The number the page shows where ``pattern`` (a regex with one group) matches."""
    found = re.search(pattern, text)
    assert found, f"the page does not say {pattern!r}"
    return float(found.group(1).replace(",", ""))


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
    assert f"one (T, T) matrix for each head: {matrix / MB:.1f} MB" in text
    assert f"naive_attention at its peak: {peak / MB:.1f} MB" in text
    assert f"The peak is {peak / matrix:.4f} matrices" in text
    assert 2 < peak / matrix < 2.1, "two matrices and the mask"


def test_memory_table_is_the_packages_and_its_slopes_are_the_prose(page):
    _, text = page
    peaks = [peak_memory(naive_attention, *random_qkv(T, **SHAPE)) for T in LENGTHS]
    row = "the book's " + " ".join(f"{p / MB:.2f}" for p in peaks)
    assert row in " ".join(text.split()), "the printed table's row for the book's attention"
    slope = number(text, r"climbs with a slope of ([\d.]+) on the log-log chart")
    assert slope == pytest.approx(loglog_slope(LENGTHS[4:], peaks[4:]), abs=0.005)
    assert 1.9 < slope <= 2.0, "the slope of T squared"
    assert f"it holds {peaks[-1] / MB:.0f} MB" in text
    sdpa, tiled = (
        float(s) for s in re.search(r"their slopes are ([\d.]+) and ([\d.]+), no faster than", text).groups()
    )
    assert 0 < sdpa <= 1.05 and 0 < tiled <= 1.05, "no faster than T"


def test_the_cpu_kernel_sdpa_calls_is_named(page):
    _, text = page
    q, k, v = random_qkv(256, **SHAPE)
    kernels = [name for name in operations(sdpa_attention, q, k, v) if "attention" in name]
    assert "aten::_scaled_dot_product_flash_attention_for_cpu" in kernels
    assert " ".join(kernels) in text, "the page lists them, one per line"


def timings(text: str, label: str) -> list[float]:
    """Each time the page prints as "<label>: 1.234 ms per forward", in page order."""
    return [float(ms) for ms in re.findall(rf"(?<![\w']){label}: (\d+\.\d+) ms per forward", text)]


def test_the_times_the_page_prints_bear_out_its_words(page):
    """At the small GPT's size (printed first) the fused call gains far less than at the try
    cell's long context, and saves a small part of one forward; at the long context the tiled
    loop beats the book's attention. The same bands as the chapter's own checks."""
    _, text = page
    naive, sdpa = timings(text, "the book's attention"), timings(text, "SDPA")
    (model,), tiled = timings(text, "the whole small GPT"), timings(text, "tiled")
    assert len(naive) == len(sdpa) == 2 and len(tiled) == 1, "the small GPT's size, then the try cell"
    assert naive[0] / sdpa[0] < (naive[1] / sdpa[1]) / 2
    assert C.n_layer * (naive[0] - sdpa[0]) / model < 0.4, "a small part of one forward"
    assert naive[1] / sdpa[1] > 3 and tiled[0] < 0.8 * naive[1]


def test_two_figures_each_described(page):
    path, _ = page
    alts = figure_alts(path)
    assert len(alts) == 2 and all(len(alt) > 80 for alt in alts)
    assert any("slope 2" in alt for alt in alts) and any("slope 1" in alt for alt in alts)
