"""Code and prose quality as tests, so CI enforces them: ruff lint and format, and a spell check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = ["code", "tests", "benchmarks", "tools", "_ext"]
# Words codespell mistakes for typos (lower case); add one here rather than misspell on purpose.
ALLOWED_WORDS: list[str] = []


def run(module: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_no_problems():
    result = run("ruff", "check", "--no-cache", *CODE)
    assert result.returncode == 0, f"ruff check {' '.join(CODE)}:\n{result.stdout}{result.stderr}"


def test_code_is_ruff_formatted():
    result = run("ruff", "format", "--check", "--no-cache", *CODE)
    assert result.returncode == 0, (
        f"run `ruff format {' '.join(CODE)}`; these files differ:\n{result.stdout}{result.stderr}"
    )


def test_prose_and_comments_have_no_common_misspellings():
    prose = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "book").glob("*.md"))
    assert prose, "no chapters found"
    words = ["--ignore-words-list", ",".join(ALLOWED_WORDS)] if ALLOWED_WORDS else []
    result = run("codespell_lib", *words, "README.md", *prose, *CODE)
    assert result.returncode == 0, f"codespell (fix the word, or allow it in ALLOWED_WORDS):\n{result.stdout}"
