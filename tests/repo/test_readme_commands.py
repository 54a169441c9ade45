"""Every command the README and CONTRIBUTING.md show works as a reader runs it: from the
repository's root, in a subprocess, with the reader's environment (none of the import paths pytest
adds).

Each documented ``python -m bookbuild...``, ``python -m tools...`` and ``python -m benchmarks...``
answers ``--help`` (and does nothing else), every ``make`` target either file names is one the
Makefile has, and the README names the two commands, every test tier and ``make help``. What
``make live`` runs, ``python -m tools.live``, serves a chapter's live build in
``tests/site/test_live.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from bookbuild import ROOT
from tests.helpers import reader_environment

README = (ROOT / "README.md").read_text(encoding="utf-8")
CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
DOCS = {"README.md": README, "CONTRIBUTING.md": CONTRIBUTING}
MODULES = sorted(
    {
        module
        for text in DOCS.values()
        for module in re.findall(r"python3? -m ((?:bookbuild|tools|benchmarks)\.[a-z_]+)", text)
    }
)
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
TARGETS = set(re.findall(r"^([a-z][\w-]*)\s*:(?!=)", MAKEFILE, flags=re.M))


def make_targets_named(text: str) -> set[str]:
    """The targets of every ``make TARGET`` in inline code or at the start of a line of a code block."""
    return set(re.findall(r"(?:`|^)make ([a-z][\w-]*)", text, flags=re.M))


def test_the_docs_show_the_tools_and_benchmarks():
    assert {"tools.live", "bookbuild.build", "bookbuild.catalogs", "benchmarks.build_time"} <= set(MODULES), (
        MODULES
    )


@pytest.mark.parametrize("module", MODULES)
def test_each_documented_module_answers_help(module):
    result = subprocess.run(
        [sys.executable, "-m", module, "--help"],
        cwd=ROOT,
        env=reader_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = f"python -m {module} --help:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    assert result.returncode == 0, output
    assert "usage" in result.stdout.lower(), result.stdout[-2000:]


@pytest.mark.parametrize("name", sorted(DOCS))
def test_every_make_target_the_docs_name_is_in_the_makefile(name):
    named = make_targets_named(DOCS[name])
    assert named <= TARGETS, f"{name} names targets the Makefile lacks: {sorted(named - TARGETS)}"


def test_the_readme_names_every_test_tier_its_marker_make_help_and_contributing():
    # the tiers are the Makefile's TIER_ variables: lint, then test-fast, test-book, ...
    tiers = [
        "lint" if tier == "LINT" else f"test-{tier.lower()}"
        for tier in re.findall(r"^TIER_(\w+)\s*:=", MAKEFILE, flags=re.M)
    ]
    assert len(tiers) >= 6 and set(tiers) <= TARGETS, tiers
    wanted = {*tiers, "book", "test", "site", "help"}
    assert wanted <= make_targets_named(README), sorted(wanted - make_targets_named(README))
    # the markers that put a test in a tier other than the fast one (the Makefile's NEEDS)
    markers = re.search(r"^NEEDS\s*:=\s*(.+)$", MAKEFILE, flags=re.M).group(1).split(" or ")
    assert markers and all(f"`{marker}`" in README for marker in markers), markers
    assert "](CONTRIBUTING.md)" in README, "the README links CONTRIBUTING.md"
    assert "not slow" not in README + CONTRIBUTING, "there is no slow marker: the tiers replace it"


def test_the_docs_run_npm_as_the_makefile_does():
    """The npm of the Python lock's Node.js wheel, as the Makefile runs it: never a bare `npm`,
    which would be the system's (Debian 12's cannot read package.json's overrides)."""
    docs = README + CONTRIBUTING
    npm = re.search(r"^NPM\s*:=\s*(.+)$", MAKEFILE, flags=re.M).group(1).replace("$(BIN)", ".venv/bin")
    assert npm in CONTRIBUTING, "CONTRIBUTING.md shows how to run the Makefile's npm"
    # a line of a code block, an inline `npm install ...`, or "run `npm ...`" would be the bare npm
    bare = re.findall(r"^\s*npm \S.*|`npm (?:install|i|update)\b[^`]*`|run `npm[^`]*`", docs, flags=re.M)
    assert not bare, f"say `make install`, or show the Makefile's npm: {bare}"
