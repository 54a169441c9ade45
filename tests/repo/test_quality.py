"""Code and prose quality as tests, so CI enforces them: ruff lint and format on the Python, ESLint on
the two browser scripts, and a spell check."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from tools import ROOT

PYTHON = ["code", "tests", "benchmarks", "tools", "_ext"]
JAVASCRIPT = ["code/selfattn/figures/figures.js", "_ext/live_code_static/live-code.js"]
# Words codespell mistakes for typos (lower case); add one here rather than misspell on purpose.
ALLOWED_WORDS: list[str] = []


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_no_problems():
    result = run(sys.executable, "-m", "ruff", "check", "--no-cache", *PYTHON)
    assert result.returncode == 0, f"ruff check {' '.join(PYTHON)}:\n{result.stdout}{result.stderr}"


def test_code_is_ruff_formatted():
    result = run(sys.executable, "-m", "ruff", "format", "--check", "--no-cache", *PYTHON)
    assert result.returncode == 0, (
        f"run `ruff format {' '.join(PYTHON)}`; these files differ:\n{result.stdout}{result.stderr}"
    )


def eslint() -> str:
    """ESLint at the version package.json pins, installed into node_modules/ (git-ignored) on first use."""
    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]["eslint"]
    binary = ROOT / "node_modules" / ".bin" / "eslint"
    if not binary.is_file() or run(str(binary), "--version").stdout.strip() != f"v{pinned}":
        npm = shutil.which("npm")
        assert npm, "the JavaScript check needs npm to install ESLint (apt-get install npm)"
        installed = run(npm, "install", "--no-package-lock", "--no-audit", "--no-fund")
        assert installed.returncode == 0, installed.stdout + installed.stderr
    return str(binary)


def test_javascript_passes_eslint_in_one_dialect():
    result = run(eslint(), "--max-warnings", "0", *JAVASCRIPT)
    assert result.returncode == 0, f"eslint (eslint.config.mjs):\n{result.stdout}{result.stderr}"


def test_prose_and_comments_have_no_common_misspellings():
    prose = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "book").glob("*.md"))
    assert prose, "no chapters found"
    words = ["--ignore-words-list", ",".join(ALLOWED_WORDS)] if ALLOWED_WORDS else []
    result = run(sys.executable, "-m", "codespell_lib", *words, "README.md", *prose, *PYTHON)
    assert result.returncode == 0, f"codespell (fix the word, or allow it in ALLOWED_WORDS):\n{result.stdout}"
