"""Reading the PDF editions as a reader would (their text, outline, fonts and images) and the
book they were built from (its table of contents, catalogs, executed notebooks and site): what the
PDF tests compare. Every expectation is read from these, never typed in by hand.
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

import yaml
from myst_nb.core.variables import format_plain_text

from bookbuild import ROOT
from bookbuild.catalogs import CATALOGS, read
from tests.helpers import HTML, PDF, PDF_ZH

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


def graphics(pdf: Path) -> list[str]:
    """The images a PDF's LaTeX source includes, in order."""
    tex = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    return re.findall(r"\\sphinxincludegraphics(?:\[[^]]*\])?\{\{([^}]+)\}", tex)


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
