"""Code and prose quality as tests, so CI enforces them: ruff lint and format on the Python, ESLint on
the JavaScript (the four browser scripts, and the build's two Node.js scripts), and a spell check."""

from __future__ import annotations

import ast
import subprocess
import sys

from bookbuild import ROOT
from selfattn import run_cache
from tests.helpers import npm_bin

PYTHON = ["code", "tests", "benchmarks", "bookbuild", "tools", "_ext"]
JAVASCRIPT = [
    "code/selfattn/figures/figures.js",
    "_ext/content/live_code_static/live-code.js",
    "_static/lazy-sections.js",
    "_ext/editions/chinese_search.js",
    "_ext/content/katex_render.js",
    "bookbuild/unused_rules.js",
]
# Words codespell mistakes for typos (lower case); add one here rather than misspell on purpose.
# Philip Gage, who described byte-pair encoding (1994); "empress", what 后 means (tang-poems)
ALLOWED_WORDS: list[str] = ["gage", "empress"]


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


def test_javascript_passes_eslint_in_one_dialect():
    eslint = npm_bin("eslint")  # the version package-lock.json pins
    result = run(*eslint, "--max-warnings", "0", *JAVASCRIPT)
    assert result.returncode == 0, f"eslint (eslint.config.mjs):\n{result.stdout}{result.stderr}"


def test_prose_and_comments_have_no_common_misspellings():
    prose = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "book").glob("*.md"))
    assert prose, "no chapters found"
    words = ["--ignore-words-list", ",".join(ALLOWED_WORDS)] if ALLOWED_WORDS else []
    docs = ["README.md", "CONTRIBUTING.md"]
    result = run(sys.executable, "-m", "codespell_lib", *words, *docs, *prose, *PYTHON)
    assert result.returncode == 0, f"codespell (fix the word, or allow it in ALLOWED_WORDS):\n{result.stdout}"


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of ``graph`` (module → the modules it imports), as a path, or [] when it has none."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str]:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return []
        for imported in sorted(graph[module]):
            cycle = visit(imported, [*path, module])
            if cycle:
                return cycle
        done.add(module)
        return []

    return next((cycle for module in sorted(graph) if (cycle := visit(module, []))), [])


def package_imports() -> dict[str, set[str]]:
    """Each module of the package → the package's modules it imports (its ``__init__`` aside: it
    gathers the public names of the modules under it)."""
    modules = set(run_cache.every_module()) - {"selfattn"}
    return {module: set(run_cache.imports_of(module)) & modules - {module} for module in modules}


def test_the_package_imports_without_a_cycle():
    graph = package_imports()
    assert graph["selfattn.training"] >= {"selfattn.run_cache", "selfattn.models"}, "the graph is read"
    assert import_cycle(graph) == [], f"modules that import each other: {' -> '.join(import_cycle(graph))}"


def test_the_cycle_check_finds_a_cycle():
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert import_cycle({"a": {"b"}, "b": set()}) == []


def imported_names(folder: str) -> set[str]:
    """Every module name the Python files under ``folder`` import (``import a.b``, ``from a.b import c``)."""
    names = set()
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
    return names


def test_the_extensions_need_nothing_of_the_build():
    """bookbuild imports _ext (its paths, the site's file helpers), never the other way round."""
    assert "_ext.paths" in imported_names("bookbuild"), "the check reads imports"
    assert not {name for name in imported_names("_ext") if name.split(".")[0] == "bookbuild"}
