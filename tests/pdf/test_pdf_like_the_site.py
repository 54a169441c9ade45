"""The PDF editions against the site built from the same source: the same chapters and headings,
numbers, figures, math, exercises, quick questions, bibliography and parts.
"""

from __future__ import annotations

import html
import re

import pytest
import yaml

from bookbuild import ROOT
from tests.helpers import HTML, page_text
from tests.pdf.reading import (
    SITES,
    answer_openings,
    contents,
    first_heading,
    glued_texts,
    html_page,
    norm,
    outline,
    pages,
    run,
    toc_chapters,
    unspaced,
)


@pytest.mark.tex
def test_every_chapter_has_a_numbered_heading_and_a_bookmark_like_the_site(pdf, built_book):
    marks = outline(pdf)
    for chapter in toc_chapters():
        hits = [page for page, title in marks if norm(title) == norm(chapter.title)]
        assert hits, f"no bookmark for {chapter.title!r}"
        assert norm(chapter.title) in norm(pages(pdf)[hits[0] - 1]), (
            f"{chapter.title!r}: heading not on its page"
        )
        number = re.search(r'<h1>.*?<span class="section-number">(\d+)\.', html_page(chapter.docname), re.S)
        if chapter.numbered:
            assert number, f"the site does not number {chapter.docname}"
            assert f"{number.group(1)} {norm(chapter.title)}" in contents(pdf), (
                f"contents should list {chapter.title!r} as chapter {number.group(1)}, as the site does"
            )
    root_title = first_heading(yaml.safe_load((ROOT / "_toc.yml").read_text())["root"])
    assert norm(root_title) in norm(pages(pdf)[0])


@pytest.mark.tex
def test_glued_numbers_are_printed_as_on_the_site(pdf, built_book):
    text = norm(" ".join(pages(pdf)))
    glued = glued_texts()
    assert any(key == "bigram_val" for _, key, _ in glued), "the bigram chapter glues its final val loss"
    for docname, key, shown in glued:
        assert norm(shown) in norm(page_text(HTML / f"{docname}.html")), (
            f"{docname}: {key} = {shown!r} not on the site"
        )
        assert norm(shown) in text, f"{docname}: glued {key} = {shown!r} missing from the PDF"
    val = next(shown for docname, key, shown in glued if key == "bigram_val")
    assert f"settles at {val}" in text


@pytest.mark.tex
def test_every_site_figure_is_an_image_in_the_pdf(pdf, built_book):
    site_images, site_figures, numbers = 0, 0, []
    for chapter in toc_chapters():
        page = html_page(chapter.docname)
        article = page[page.find('<article class="bd-article"') :]
        site_images += len(re.findall(r'<img\b[^>]*src="[^"]*_images/', article))
        figures = re.findall(r"<figure\b.*?</figure>", article, flags=re.S)
        site_figures += sum("<img" not in figure for figure in figures)  # HTML-only figures
        numbers += re.findall(r'<span class="caption-number">Fig\. ([\d.]+) </span>', article)
    images = [row.split() for row in run("pdfimages", "-list", pdf).splitlines()[2:]]
    pdf_images = sum(1 for row in images if row[2] == "image")
    assert pdf_images >= site_images + site_figures, (pdf_images, site_images, site_figures)
    text = " ".join(" ".join(pages(pdf)).split())
    missing = [number for number in numbers if f"Fig. {number}" not in text]
    assert not missing, f"figures numbered on the site but not in the PDF: {missing}"


@pytest.mark.tex
def test_the_pdf_has_a_math_font_when_the_site_shows_math(edition, built_book):
    has_math = any('class="math' in html_page(chapter.docname) for chapter in toc_chapters())
    fonts = run("pdffonts", edition)
    assert not has_math or "LatinModernMath" in fonts, "the site shows math but the PDF has no math font"


@pytest.mark.tex
def test_the_site_links_to_this_pdf(edition, built_book):
    """Each edition's site links to its own PDF: the Chinese site to the Chinese PDF."""
    site = SITES[edition]
    root = yaml.safe_load((ROOT / "_toc.yml").read_text())["root"]
    link = "../" * root.count("/") + edition.name
    intro = (site / f"{root}.html").read_text(encoding="utf-8")
    assert f'href="{link}"' in intro, "the intro page links to the PDF"
    assert (site / edition.name).read_bytes() == edition.read_bytes(), "the site carries this very PDF"


@pytest.mark.tex
def test_exercise_solutions_follow_their_exercise(pdf):
    """Each exercise is printed, then its solution, before the next exercise starts, in every
    chapter that has exercises, in the book's order."""
    expected, first = [], None
    for chapter in toc_chapters():
        source = (ROOT / f"{chapter.docname}.md").read_text(encoding="utf-8")
        exercises = re.findall(r"^`{3,}\{exercise\} (.+)\n:label: (\S+)", source, flags=re.M)
        solved = set(re.findall(r"^`{3,}\{solution(?:-start)?\} (\S+)", source, flags=re.M))
        for title, label in exercises:
            first = first or chapter.title
            expected += [("Exercise", title)] + ([("Solution to Exercise", title)] if label in solved else [])
    assert expected, "the book has exercises"
    start = next(page for page, mark in outline(pdf) if norm(mark) == norm(first))
    text = " ".join(" ".join(pages(pdf)[start - 1 :]).split())
    shown = re.findall(r"(Solution to Exercise|Exercise) [\d.]+ \((.+?)\)(?= )", text)
    assert [(kind, norm(t)) for kind, t in shown] == [(kind, norm(t)) for kind, t in expected]


@pytest.mark.tex
def test_quick_questions_are_asked_in_their_chapters_and_answered_at_the_back(pdf, built_book):
    """Every answer of the site's quick questions is printed in the chapter of answers, under its
    chapter's title, just before the glossary, and nowhere before it."""
    marks = outline(pdf)
    back = next(page for page, mark in marks if norm(mark) == "answers to the quick questions")
    glossary = next(page for page, mark in marks if norm(mark) == norm(first_heading("book/glossary")))
    assert back < glossary, "the answers come just before the glossary"
    flat = lambda text: "".join(norm(text).replace("-", "").split())  # noqa: E731 (hyphenated line ends)
    before, answers = (
        flat(" ".join(pages(pdf)[: back - 1])),
        flat(" ".join(pages(pdf)[back - 1 : glossary - 1])),
    )
    checked = 0
    for chapter in toc_chapters():
        openings = answer_openings(chapter.docname)
        if not openings:
            continue
        assert flat(chapter.title) in answers, f"{chapter.title!r} heads its answers"
        unasked = re.sub(
            r'<details class="quick-answer">.*?</details>', " ", html_page(chapter.docname), flags=re.S
        )
        elsewhere = flat(html.unescape(re.sub(r"<[^>]+>", " ", unasked)))  # answers may repeat the prose
        for opening in openings:
            assert flat(opening) in answers, f"{chapter.docname}: {opening!r} is not among the answers"
            assert flat(opening) in elsewhere or flat(opening) not in before, (
                f"{chapter.docname}: {opening!r} is printed beside its question"
            )
            checked += 1
    assert checked >= 15, f"only {checked} answers found to check"


@pytest.mark.tex
def test_bibliography_is_printed_once_at_the_end(pdf, built_book):
    labels = (
        r'<div class="citation"[^>]*>\s*<span class="label">'
        r'<span class="fn-bracket">\[</span>(?:<a [^>]*>)?([^<]+)'
    )
    entries = re.findall(labels, html_page("book/references"))
    assert entries, "the references page lists its works"
    title = first_heading("book/references")
    start = next(page for page, mark in outline(pdf) if norm(mark) == norm(title))
    assert start == outline(pdf)[-1][0], "References is the last chapter"
    back = "\n".join(pages(pdf)[start - 1 :])
    before = "\n".join(pages(pdf)[: start - 1])
    for label in entries:
        # an entry starts a line with its label and the first author's name; a citation in the
        # text reads the same in author-year style, so only line-initial labels followed by a
        # capitalised name count
        entry = re.compile(rf"^\[{re.escape(label)}\] [A-Z]", re.M)
        assert len(entry.findall(back)) == 1, f"bibliography entry [{label}] printed once at the end"
        assert not entry.findall(before), f"bibliography entry [{label}] printed before References"
    assert "Bibliography" not in back, "the entries continue the References chapter, not a second one"


@pytest.mark.tex
def test_parts_carry_their_number_once_as_on_the_site(edition, built_book):
    """Each part's title page and contents line read its caption as the site's sidebar shows it,
    "Part I: Foundations" (translated in the Chinese edition); LaTeX numbers no part itself."""
    site = built_book / "zh" if "zh_CN" in str(edition) else built_book
    sidebar = (site / "book" / "prerequisites.html").read_text(encoding="utf-8")
    captions = re.findall(r'role="heading"><span class="caption-text">([^<]*)<', sidebar)
    parts = captions[:-1]  # the last is the back matter's
    numbered = [
        part
        for part in yaml.safe_load((ROOT / "_toc.yml").read_text("utf-8"))["parts"]
        if part.get("numbered")
    ]
    assert len(parts) == len(numbered) and all(
        re.search(r"\b[IVX]+\b|第[一二三四五六七八九十]+部分", p) for p in parts
    )
    texts = [unspaced(page) for page in pages(edition)]
    for caption in parts:
        title = unspaced(caption)
        assert title in unspaced(contents(edition)), f"{caption!r} not in the contents"
        own_page = any(t.startswith(title) and len(t) <= len(title) + 4 for t in texts)
        assert own_page, f"no title page of its own for {caption!r}"
    latex_numbered = [t[:12] for t in texts if re.match(r"part[ivx]+(?![:a-z])|第[ivx]+部分", t)]
    assert not latex_numbered, f"parts numbered by LaTeX besides their titles: {latex_numbered}"
