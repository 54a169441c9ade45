"""The PDF editions as printed pages: the file, the page size and numbers, the title and contents,
and what LaTeX left unresolved or let run into the margin.
"""

from __future__ import annotations

import re

import pytest
import yaml

from bookbuild import ROOT
from tests.helpers import PDF
from tests.pdf.reading import A4_POINTS, contents, norm, outline, pages, pdf_info, prose, toc_chapters


def test_the_makefile_and_config_name_the_same_pdf():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(rf"^PDF +:= {re.escape(str(PDF.relative_to(ROOT)))}$", makefile, re.M)


@pytest.mark.tex
def test_pdf_is_a4_with_a_sane_number_of_pages_and_no_blank_page(pdf):
    info = pdf_info(pdf)
    width, height = (float(x) for x in re.findall(r"[\d.]+", info["Page size"])[:2])
    assert (round(width), round(height)) == tuple(round(x) for x in A4_POINTS), info["Page size"]
    n_pages = int(info["Pages"])
    words = sum(len(page.split()) for page in pages(pdf))
    # Title page, contents, introduction and every chapter start a page; a full page holds
    # roughly 300-700 words, so the count must sit between those two readings of the text.
    assert len(toc_chapters()) + 3 <= n_pages <= max(words / 100, len(toc_chapters()) * 3), (n_pages, words)
    blank = [number for number, text in enumerate(pages(pdf), 1) if len(text.split()) < 2]
    assert not blank, f"pages without text (blank pages): {blank}"


@pytest.mark.tex
def test_title_page_and_contents_come_first(pdf):
    title = yaml.safe_load((ROOT / "_config.yml").read_text())["title"]
    assert norm(title) in norm(pages(pdf)[0])
    assert contents(pdf).startswith("contents")
    for chapter in toc_chapters():
        assert norm(chapter.title) in contents(pdf), f"{chapter.title!r} not in the contents"


@pytest.mark.tex
def test_pages_are_numbered_from_the_introduction_on(edition):
    first = outline(edition)[0][0]  # the first bookmark: the introduction, page 1
    unnumbered = [
        physical
        for physical, text in enumerate(pages(edition)[first - 1 :], start=first)
        if text.split()[-1:] != [str(physical - first + 1)]
    ]
    assert not unnumbered, f"pages whose footer lacks their page number: {unnumbered}"


@pytest.mark.tex
def test_no_unresolved_reference_raw_latex_or_missing_character(edition):
    text = prose(edition)  # code may print "??" or "\\sqrt" on purpose; prose never does
    assert "??" not in text, "an unresolved reference prints as ??"
    raw = re.findall(
        r"\\(?:frac|sqrt|mathrm|sum|begin|end|left|right|text|cite|ref)\b|\$\$|\{(?:glue|term|ref|doc)", text
    )
    assert not raw, f"raw LaTeX or MyST in the PDF's prose: {raw[:10]}"
    log = edition.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    problems = re.findall(
        r"Missing character: There is no .*|.*Reference .* undefined.*|.*Citation .* undefined.*"
        r"|There were undefined references|.*multiply defined.*",
        log,
    )
    assert not problems, "\n".join(problems[:20])


@pytest.mark.tex
def test_nothing_runs_into_the_margin(edition):
    """Code wraps and tables fit: no line sticks out of its column by more than a few points."""
    log = edition.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    overfull = re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\).*\n(.*)", log)
    wide = [f"{float(points):.0f}pt: {line.strip()}" for points, line in overfull if float(points) > 15]
    assert not wide, "lines wider than their column (tex source lines in the log):\n" + "\n".join(wide)
