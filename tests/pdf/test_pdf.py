"""The PDF editions, read as a reader would: their text, images, outline and the LaTeX log.

``built_pdfs`` (conftest) gives the English and the Chinese PDF as ``make book`` builds them; what
holds for both is tested on both (``edition``). Every expectation here is read from the sources,
the catalogs, the executed notebooks or the built site, never typed in by hand.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
import yaml
from myst_nb.core.variables import format_plain_text

from bookbuild import ROOT
from bookbuild.catalogs import CATALOGS, read
from tests.helpers import HTML, PDF, PDF_ZH, code_cells, page_text

BUILD = PDF.parent.parent  # _build
EXECUTED = BUILD / "jupyter_execute"
A4_POINTS = (595.28, 841.89)
SITES = {PDF: HTML, PDF_ZH: HTML / "zh"}  # the site that carries each edition's PDF


def checked(pdf: Path) -> Path:
    """The built PDF, with the tools that read it; said once with its size."""
    assert pdf.is_file(), f"{pdf} is missing: make book builds it"
    for tool in ("pdftotext", "pdfinfo", "pdfimages", "pdftohtml"):
        assert shutil.which(tool), f"{tool} missing: install poppler-utils"
    size = pdf.stat().st_size / 1e6
    print(f"\n{pdf.relative_to(ROOT)}: {pdf_info(pdf)['Pages']} pages, {size:.1f} MB")
    return pdf


@pytest.fixture(scope="module")
def pdf(built_pdfs) -> Path:
    return checked(built_pdfs["en"])


@pytest.fixture(scope="module")
def pdf_zh(built_pdfs) -> Path:
    return checked(built_pdfs["zh_CN"])


@pytest.fixture(scope="module", params=["pdf", "pdf_zh"])
def edition(request) -> Path:
    """Each PDF edition in turn: the English, then the Chinese."""
    return request.getfixturevalue(request.param)


# ---------------------------------------------------------------------------- reading the PDF


def run(*args: str | Path) -> str:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, check=True).stdout


@cache
def pdf_info(path: Path) -> dict[str, str]:
    return dict(line.split(":", 1) for line in run("pdfinfo", path).splitlines() if ":" in line)


@cache
def pages(path: Path) -> list[str]:
    """The text of every page, as pdftotext reads it (no trailing empty page)."""
    return run("pdftotext", "-enc", "UTF-8", path, "-").split("\f")[:-1]


def norm(text: str) -> str:
    """Casefolded, with typographic quotes and dashes made plain and whitespace collapsed."""
    for fancy, plain in {"’": "'", "‘": "'", "“": '"', "”": '"', "‐": "-", "‑": "-"}.items():
        text = text.replace(fancy, plain)
    return " ".join(text.split()).casefold()


def contents(path: Path) -> str:
    """The table of contents: page 2 up to the first page a bookmark points to."""
    return norm(" ".join(pages(path)[1 : outline(path)[0][0] - 1]))


@cache
def outline(path: Path) -> list[tuple[int, str]]:
    """The PDF's bookmarks as (page, title), in order."""
    xml = run("pdftohtml", "-xml", "-i", "-stdout", "-q", path)
    return [(int(page), title) for page, title in re.findall(r'<item page="(\d+)">([^<]*)</item>', xml)]


@cache
def prose(path: Path) -> str:
    """All text set in a non-monospace font: what the book says, without its code and outputs."""
    xml = run("pdftohtml", "-xml", "-i", "-stdout", "-q", path)
    mono = set(re.findall(r'<fontspec id="(\d+)"[^>]*family="[^"]*Mono', xml))
    fragments = re.findall(r'<text [^>]*font="(\d+)">(.*?)</text>', xml)
    return html.unescape(
        re.sub(r"<[^>]+>", "", " ".join(text for font, text in fragments if font not in mono))
    )


# ---------------------------------------------------------------------------- reading the book


@dataclass
class Chapter:
    docname: str  # "book/bigram"
    title: str  # the page's first heading, as in the source
    numbered: bool


def toc_chapters() -> list[Chapter]:
    """Every page of _toc.yml after the root, with its first heading."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    found = []
    for part in toc["parts"]:
        for entry in part["chapters"]:
            found.append(Chapter(entry["file"], first_heading(entry["file"]), part.get("numbered", False)))
    return found


def first_heading(docname: str, translated: bool = False) -> str:
    """The page's first heading as a reader reads it, in English or from the Chinese catalog."""
    source = (ROOT / f"{docname}.md").read_text(encoding="utf-8")
    heading = re.search(r"^# (.+)$", source, flags=re.M).group(1)
    if translated:
        heading = translation(docname, heading)
    return re.sub(r"[`*]", "", heading).strip()


def translation(docname: str, message: str) -> str:
    """``message`` of page ``docname`` as the Chinese catalog translates it."""
    found = read(CATALOGS / f"{Path(docname).name}.po").get(message)
    assert found is not None and found.string, f"{docname}: no translation of {message!r}"
    return found.string


def glossary_terms_zh() -> list[str]:
    """The Chinese name of every glossary term: each translated definition opens with it in bold."""
    catalog = read(CATALOGS / "glossary.po")
    return [term for message in catalog for term in re.findall(r"^\*\*([^*]+)\*\*：", message.string or "")]


def unspaced(text: str) -> str:
    """``norm`` without any whitespace: Chinese text wraps anywhere, and pdftotext splits it there."""
    return "".join(norm(text).split())


def html_page(docname: str) -> str:
    return (HTML / f"{docname}.html").read_text(encoding="utf-8")


def glued_texts() -> list[tuple[str, str, str]]:
    """(page, glue key, text as the page shows it) for every ``{glue:text}`` in the chapters."""
    found = []
    for chapter in toc_chapters():
        source = (ROOT / f"{chapter.docname}.md").read_text(encoding="utf-8")
        uses = re.findall(r"\{glue:text\}`([^`]+)`", source)
        if not uses:
            continue
        store = json.loads((EXECUTED / f"{chapter.docname}.glue.json").read_text())
        for use in uses:
            key, fmt = use.rsplit(":", 1) if ":" in use else (use, "s")
            if "::" in key:  # glued in another page: checked there
                continue
            assert key in store, f"{chapter.docname} pastes {key!r}, which its executed notebook never glued"
            found.append((chapter.docname, key, format_plain_text(store[key]["data"]["text/plain"], fmt)))
    return found


# ---------------------------------------------------------------------------- the tests


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


def graphics(pdf: Path) -> list[str]:
    """The images a PDF's LaTeX source includes, in order."""
    tex = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    return re.findall(r"\\sphinxincludegraphics(?:\[[^]]*\])?\{\{([^}]+)\}", tex)


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


def cut_maths(page: str) -> str:
    """The page with each typeset formula (a ``span.math`` and every span inside it) replaced by "|"."""
    while (start := page.find('<span class="math')) >= 0:
        depth, at = 0, start
        for tag in re.finditer(r"<span\b|</span>", page[start:]):
            depth += 1 if tag.group() == "<span" else -1
            if depth == 0:
                at = start + tag.end()
                break
        page = page[:start] + "|" + page[at:]
    return page


def answer_openings(docname: str) -> list[str]:
    """The longest run of plain words in each quick question's answer on the site's page, of at
    least 30 letters, spaces and commas (code, maths and numbers are set otherwise in the PDF)."""
    details = r'<details class="quick-answer"><summary>.*?</summary>(.*?)</details>'
    answers = re.findall(details, cut_maths(html_page(docname)), re.S)
    texts = [
        " ".join(html.unescape(re.sub(r"<code.*?</code>|<[^>]+>", "|", answer)).split()) for answer in answers
    ]
    runs = [[run.strip(" ,") for run in re.findall(r"[A-Za-z ,']{30,}", text)] for text in texts]
    return [max(found, key=len) for found in runs if found]


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


# ---------------------------------------------------------------------------- the Chinese edition


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
