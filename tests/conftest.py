"""The fixtures every test folder shares: the corpus, the toy runs, the thirteen figures, the book
as ``make`` builds it, and one headless Chromium; and the tiers a test belongs to.

A test's tier says what it needs beyond the package and the corpus (markers, ``pyproject.toml``):
``book`` (the built site, its execution cache or its trained runs), ``browser`` (Debian's
Chromium), ``tex`` (the PDF editions) and ``reexecute`` (every chapter executed once more). A test
that asks for ``built_book``, ``browser`` or ``built_pdfs`` is marked by that alone; a test that
needs them in another way carries the marker itself. ``make help`` lists the tiers' targets.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bookbuild import BUILD_RUNS, ROOT
from selfattn.run_cache import RUN_CACHE_ENV
from tests.helpers import FIGURE_BIGRAM, FIGURE_RUN, HTML, PDF, PDF_ZH

# Trained runs are shared with the book's build, as `make test` does (selfattn/run_cache.py).
os.environ.setdefault(RUN_CACHE_ENV, str(BUILD_RUNS))

# Set by `make test` and the tier targets once make has built the book: the fixtures take the
# output in _build as this checkout's and build nothing.
BOOK_BUILT = os.environ.get("SELFATTN_BOOK_BUILT") == "1"
# Set by the tiers that must not build the book (make lint, make test-fast): a test that asks
# for it there belongs to another tier.
NO_BUILD = os.environ.get("SELFATTN_NO_BUILD") == "1"

# The marker each shared fixture gives the tests that use it.
TIER_OF_FIXTURE = {"built_book": "book", "browser": "browser", "built_pdfs": "tex"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, tier in TIER_OF_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(tier)


def make(*targets: str) -> None:
    """Run ``make TARGET...`` in the repository as a reader does, with this Python's environment;
    fail with the end of its output if it fails."""
    if NO_BUILD:
        pytest.fail(f"this tier builds nothing, but a test asked for make {' '.join(targets)}: mark it")
    command = ["make", f"VENV={sys.prefix}", *targets]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, (
        f"{' '.join(command)} failed:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"
    )


def missing_tex() -> str:
    """The Debian packages that ``make pdf`` lacks on this machine (empty: none)."""
    result = subprocess.run(["make", "-s", "missing-pdf-debs"], capture_output=True, text=True, cwd=ROOT)
    return result.stdout.strip()


@pytest.fixture(scope="session")
def built_book() -> Path:
    """Both editions' sites as ``make site`` builds them (every chapter executed, warnings as
    errors; the Chinese edition in ``zh/``); return the HTML folder. They do not wait for the PDFs."""
    if not BOOK_BUILT:
        make("site")
    assert (HTML / "index.html").is_file() and (HTML / "zh" / "index.html").is_file()
    return HTML


@pytest.fixture(scope="session")
def built_pdfs(built_book) -> dict[str, Path]:
    """Both PDF editions as ``make book`` builds them after the sites, each copied into its site;
    the tests that use them skip where XeLaTeX or its fonts are missing."""
    missing = missing_tex()
    if missing:
        pytest.skip(f"the PDF editions need {missing} (make pdf says how to install them)")
    if not BOOK_BUILT:
        make("book")
    return {"en": PDF, "zh_CN": PDF_ZH}


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


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium, for the whole session."""
    from tools.browser import chromium

    with chromium() as chromium_browser:
        yield chromium_browser
