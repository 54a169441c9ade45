"""The Chinese PDF: its title, contents, chapters, terms, figures and code as the Chinese site
has them, and the same chapters and sections as the English PDF.
"""

from __future__ import annotations

import re

import pytest
import yaml

from bookbuild import ROOT
from tests.helpers import code_cells
from tests.pdf.reading import (
    contents,
    first_heading,
    glossary_terms_zh,
    graphics,
    outline,
    pages,
    prose,
    toc_chapters,
    translation,
    unspaced,
)


@pytest.mark.tex
def test_the_chinese_pdf_draws_its_figures_words_in_chinese(pdf, pdf_zh):
    """Every figure the English PDF shows, a chapter's drawing or an interactive figure's PNG,
    is redrawn in the Chinese PDF with its words translated: another image at each place, but
    for the two drawings whose words are all code, numbers or names (as on the site)."""
    english, chinese = graphics(pdf), graphics(pdf_zh)
    assert len(english) == len(chinese) >= 50, (len(english), len(chinese))
    kept = [name for name, theirs in zip(english, chinese, strict=True) if name == theirs]
    assert len(kept) == 2, f"figures drawn in English in the Chinese PDF: {kept}"


@pytest.mark.tex
def test_the_chinese_pdf_has_the_translated_title_and_contents(pdf_zh):
    root = yaml.safe_load((ROOT / "_toc.yml").read_text())["root"]
    title = yaml.safe_load((ROOT / "_config.yml").read_text())["title"]
    assert unspaced(translation(root, title)) in unspaced(pages(pdf_zh)[0])
    listed = unspaced(contents(pdf_zh))
    for chapter in toc_chapters():
        translated = first_heading(chapter.docname, translated=True)
        assert unspaced(translated) in listed, f"{translated!r} ({chapter.docname}) not in the contents"


@pytest.mark.tex
def test_the_chinese_pdf_has_the_same_chapters_and_sections_as_the_english(pdf, pdf_zh):
    marks = outline(pdf_zh)
    assert len(marks) == len(outline(pdf)), "every part, chapter and section has one bookmark in each edition"
    for chapter in toc_chapters():
        translated = first_heading(chapter.docname, translated=True)
        hits = [page for page, title in marks if unspaced(title) == unspaced(translated)]
        assert hits, f"no bookmark for {translated!r} ({chapter.docname})"
        page = unspaced(pages(pdf_zh)[hits[0] - 1])
        assert unspaced(translated) in page, f"{translated!r}: heading not on its page"


@pytest.mark.tex
def test_the_chinese_pdf_uses_every_glossary_term(pdf_zh):
    terms = glossary_terms_zh()
    assert len(terms) > 20, f"the glossary's translated definitions open with their term in bold: {terms}"
    text = unspaced(prose(pdf_zh))
    missing = [term for term in terms if unspaced(term) not in text]
    assert not missing, f"glossary terms not in the Chinese PDF's text: {missing}"


@pytest.mark.tex
def test_the_chinese_pdf_shows_code_cells_and_terms_as_the_chinese_site_does(pdf_zh, built_book):
    """The code cells' translated comments and printed words, and each term's English at its first
    use in a chapter, are the Chinese site's: each chapter of the one PDF gets its own."""
    text = unspaced("".join(pages(pdf_zh)))
    lines = [
        line
        for page in sorted((built_book / "zh" / "book").glob("*.html"))
        for source, printed in code_cells(page.read_text(encoding="utf-8"), hidden=False)
        for line in (source + printed).splitlines()
        if re.search(r"[\u4e00-\u9fff]", line)
        and len(line) + len(re.findall(r"[^\x00-\xff]", line)) <= 70  # not wrapped
        and "  " not in line.strip()  # not in columns, which pdftotext reads apart
    ]
    assert len(lines) > 300, len(lines)
    missing = [line for line in lines if unspaced(line) not in text]
    assert not missing, f"{len(missing)} of {len(lines)} lines not in the PDF: {missing[:10]}"
    for term in ("词元（token）", "查询（query）", "键（key）", "分词器（tokenizer）"):
        assert unspaced(term) in text, term
