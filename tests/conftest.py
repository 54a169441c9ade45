"""The fixtures every test folder shares: the corpus, the toy runs, the thirteen figures, one strict
build of the book (and of its two PDF editions), and one headless Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import FIGURE_BIGRAM, FIGURE_RUN, HTML, PDF, PDF_ZH
from tools import ROOT

# The strict build, as `make book` runs it: every chapter executed, on every core (tools/build.py).
BUILD = [sys.executable, "-m", "tools.build", "-W", "-n", "--keep-going"]

# Trained runs are shared with the book's build, as `make test` does (selfattn/cache.py).
os.environ.setdefault("SELFATTN_RUN_CACHE", str(ROOT / "_build" / "runs"))


@pytest.fixture(scope="session")
def corpus():
    from selfattn import load_corpus

    return load_corpus()


@pytest.fixture(scope="session")
def toy_run():
    """The toy chapter's run, as the notebook it reproduces made it."""
    from selfattn.toy import run_toy

    return run_toy()


@pytest.fixture(scope="session")
def masked_toy_run():
    """The same run with the causal mask on."""
    from selfattn.toy import ToyConfig, run_toy

    return run_toy(ToyConfig(causal=True))


@pytest.fixture(scope="session")
def figure_cells():
    """The figure page's cells run here: (the names its set-up defines, the thirteen figures by kind)."""
    from tools.figure_page import draw

    return draw(FIGURE_RUN, FIGURE_BIGRAM)


@dataclass
class PdfBuild:
    """One build of a PDF edition: the fresh PDF (None if it was not built), output, duration."""

    pdf: Path | None
    returncode: int
    output: str
    seconds: float


def build_pdf(pdf: Path, *options: str) -> PdfBuild:
    """Build one PDF edition as ``make pdf`` does (strict), sharing the site's execution cache.

    Without XeLaTeX nothing is built (``pdf`` is None) and the PDF tests skip; a failed build is
    reported by those tests.
    """
    if not (shutil.which("xelatex") and shutil.which("latexmk")):
        return PdfBuild(None, 0, "xelatex or latexmk is not installed", 0.0)
    pdf.unlink(missing_ok=True)  # latexmk skips an unchanged document: make it write a fresh PDF
    start = time.time()
    result = subprocess.run(
        [*BUILD, *options, "--builder", "pdflatex"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    output = result.stdout[-8000:] + result.stderr[-4000:]
    built = pdf if result.returncode == 0 and pdf.is_file() else None
    return PdfBuild(built, result.returncode, output, time.time() - start)


@pytest.fixture(scope="session")
def built_pdf() -> PdfBuild:
    """The PDF edition, built once, into _build/latex."""
    return build_pdf(PDF)


@pytest.fixture(scope="session")
def built_pdf_zh(built_pdf) -> PdfBuild:
    """The Chinese PDF edition, built once after the English one, whose executed chapters it
    reads, into _build/zh_CN/_build/latex."""
    return build_pdf(PDF_ZH, "--language", "zh_CN")


@pytest.fixture(scope="session")
def built_book(built_pdf, built_pdf_zh) -> Path:
    """Build the site once with warnings as errors, the Chinese edition in ``zh/`` included;
    return the HTML folder.

    Like ``make book``, the PDF editions are built first (when XeLaTeX is installed), so the
    sites tested are the ones published, each with its link to its PDF.
    """
    for build in (BUILD, [*BUILD, "--language", "zh_CN"]):
        result = subprocess.run(build, capture_output=True, text=True, cwd=ROOT)
        assert result.returncode == 0, (
            f"strict build {build[3:]} failed:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"
        )
    return HTML


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium, for the whole session."""
    from tools.browser import chromium

    with chromium() as chromium_browser:
        yield chromium_browser
