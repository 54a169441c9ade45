"""Shared fixtures: the corpus, and one strict build of the book per test session."""

from __future__ import annotations

import html
import inspect
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
# The PDF edition's file name comes from _config.yml (latex_documents: targetname).
PDF_NAME = yaml.safe_load((ROOT / "_config.yml").read_text())["latex"]["latex_documents"]["targetname"]
PDF = ROOT / "_build" / "latex" / Path(PDF_NAME).with_suffix(".pdf").name
# Trained runs are shared with the book's build, as `make test` does (selfattn/cache.py).
os.environ.setdefault("SELFATTN_RUN_CACHE", str(ROOT / "_build" / "runs"))


@pytest.fixture(scope="session")
def corpus():
    from selfattn import load_corpus

    return load_corpus()


@dataclass
class PdfBuild:
    """One build of the PDF edition: the fresh PDF (None if it was not built), output, duration."""

    pdf: Path | None
    returncode: int
    output: str
    seconds: float


@pytest.fixture(scope="session")
def built_pdf() -> PdfBuild:
    """Build the PDF edition once, as ``make pdf`` does (strict), into _build/latex.

    It shares the execution cache with the site build. Without XeLaTeX nothing is built
    (``pdf`` is None) and the PDF tests skip; a failed build is reported by those tests.
    """
    if not (shutil.which("xelatex") and shutil.which("latexmk")):
        return PdfBuild(None, 0, "xelatex or latexmk is not installed", 0.0)
    jb = Path(sys.executable).with_name("jupyter-book")
    PDF.unlink(missing_ok=True)  # latexmk skips an unchanged document: make it write a fresh PDF
    start = time.time()
    result = subprocess.run(
        [str(jb), "build", str(ROOT), "--builder", "pdflatex", "-W", "-n", "--keep-going"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    output = result.stdout[-8000:] + result.stderr[-4000:]
    built = PDF if result.returncode == 0 and PDF.is_file() else None
    return PdfBuild(built, result.returncode, output, time.time() - start)


@pytest.fixture(scope="session")
def built_book(built_pdf) -> Path:
    """Build the site once with warnings as errors; return the HTML folder.

    Like ``make book``, the PDF edition is built first (when XeLaTeX is installed), so the
    site tested is the one published, with its link to the PDF.
    """
    jb = Path(sys.executable).with_name("jupyter-book")
    result = subprocess.run(
        [str(jb), "build", str(ROOT), "-W", "-n", "--keep-going"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, (
        f"strict book build failed:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"
    )
    return HTML


def page_text(path: Path) -> str:
    """A built page's visible text with tags removed and whitespace collapsed."""
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", raw)).split())


def reader_text(path: Path) -> str:
    """``page_text`` with straight quotes and no space before punctuation (glued values are spans)."""
    text = page_text(path).translate(str.maketrans({"“": '"', "”": '"', "’": "'"}))
    return re.sub(r"\s+([.,:;)%])", r"\1", text)


def figure_alts(path: Path) -> list[str]:
    """The alt text of every figure image the page's code produced."""
    images = re.findall(r"<img\b[^>]*>", path.read_text(encoding="utf-8"))
    return [re.search(r'\balt="([^"]*)"', img).group(1) for img in images if "_images/" in img]


def code_blocks(path: Path) -> list[str]:
    """The text of every ``<pre>`` block on a built page, as the reader sees it."""
    blocks = re.findall(r"<pre\b[^>]*>(.*?)</pre>", path.read_text(encoding="utf-8"), flags=re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", block)) for block in blocks]


def shows_source(path: Path, obj) -> bool:
    """Whether a built page shows ``obj``'s source exactly as the package has it."""
    source = inspect.cleandoc(inspect.getsource(obj))
    return any(inspect.cleandoc(block) == source for block in code_blocks(path))


@pytest.fixture(scope="session")
def thebe_lib() -> Path:
    from browser import fetch_thebe

    return fetch_thebe()


@pytest.fixture(scope="module")
def browser():
    from browser import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
