"""Every command the README shows works as a reader runs it: from the repository's root, in a
subprocess, with the reader's environment (none of the import paths pytest adds).

Each documented ``python -m tools...`` and ``python -m benchmarks...`` answers ``--help`` (and
does nothing else); ``make live`` itself is run in ``tests/site/test_live.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.helpers import reader_environment
from tools import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
MODULES = sorted(set(re.findall(r"python3? -m ((?:tools|benchmarks)\.[a-z_]+)", README)))


def test_the_readme_shows_the_tools_and_benchmarks():
    assert {"tools.live", "tools.build", "tools.catalogs", "benchmarks.build_time"} <= set(MODULES), MODULES


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
