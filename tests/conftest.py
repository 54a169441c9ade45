"""Shared fixtures: the corpus, and one strict build of the book per test session."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"


@pytest.fixture(scope="session")
def corpus():
    from selfattn import load_corpus

    return load_corpus()


@pytest.fixture(scope="session")
def built_book() -> Path:
    """Build the site once with warnings as errors; return the HTML folder."""
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


def code_blocks(path: Path) -> list[str]:
    """The text of every ``<pre>`` block on a built page, as the reader sees it."""
    blocks = re.findall(r"<pre\b[^>]*>(.*?)</pre>", path.read_text(encoding="utf-8"), flags=re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", block)) for block in blocks]
