"""The fixtures every test folder shares: the corpus, the toy runs, the twelve figures, one strict
build of the book (and of its PDF), and one headless Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import FIGURE_BIGRAM, FIGURE_RUN, HTML, PDF
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
    """The figure page's cells run here: (the names its set-up defines, the twelve figures by kind)."""
    from tools.figure_page import draw

    return draw(FIGURE_RUN, FIGURE_BIGRAM)


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
    PDF.unlink(missing_ok=True)  # latexmk skips an unchanged document: make it write a fresh PDF
    start = time.time()
    result = subprocess.run(
        [*BUILD, "--builder", "pdflatex"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    output = result.stdout[-8000:] + result.stderr[-4000:]
    built = PDF if result.returncode == 0 and PDF.is_file() else None
    return PdfBuild(built, result.returncode, output, time.time() - start)


@pytest.fixture(scope="session")
def built_book(built_pdf) -> Path:
    """Build the site once with warnings as errors, the Chinese edition in ``zh/`` included;
    return the HTML folder.

    Like ``make book``, the PDF edition is built first (when XeLaTeX is installed), so the
    site tested is the one published, with its link to the PDF.
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
