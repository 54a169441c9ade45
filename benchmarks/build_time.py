"""How long the book takes to build and test: the cheap test tiers, then cold, warm and edited builds.

Clones the repository's last commit (or ``--commit``'s) into a temporary folder and, with this
Python environment and this checkout's ``node_modules`` taken as installed (``npm ci`` installs
the same packages from the same lock), times there:

- **make lint** and **make test-fast**, in the fresh clone, as CI runs them before any build;
- **cold make book**: empty caches: every chapter executed, every model trained, both sites, then
  both PDF editions when XeLaTeX is installed;
- **warm make book**: the same again, nothing changed;
- **prose edit**: ``make book`` after a sentence is added to the text of one chapter;
- with ``--ci``, **bash .ci/run** in another fresh clone: the whole of CI, its installs included.

    python -m benchmarks.build_time [--commit REV] [--ci] [--keep]

Prints each time next to its budget (a 2-core machine) and exits 1 if any is over it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bookbuild import ROOT

BUDGETS_S = {
    "make lint": 60.0,
    "make test-fast": 240.0,
    "cold make book": 900.0,
    "warm make book": 60.0,
    "prose edit": 90.0,
    "bash .ci/run": 1800.0,
}
# What make compares with its install stamps (the Makefile's $(STAMP) and $(NODE_STAMP)).
INSTALL_INPUTS = ("requirements.lock", "pyproject.toml", "package.json", "package-lock.json")
EDITED = "book/bigram.md"  # the chapter whose prose the third build changes
SENTENCE = "\nA sentence added to time a rebuild after an edit of the prose.\n"


def timed(clone: Path, *command: str) -> float:
    """Run ``command`` in ``clone`` with this environment; return the wall time in seconds."""
    env = dict(os.environ, PYTHONPATH=str(clone / "code"))
    start = time.perf_counter()
    result = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        output = f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        raise SystemExit(f"{' '.join(command)} failed in {clone}:\n{output}")
    return time.perf_counter() - start


def clone_of(commit: str, folder: Path, installed: bool) -> Path:
    """A fresh clone of ``commit`` in ``folder``; ``installed``: with this environment taken as
    its install (its install inputs older than this environment, node_modules linked)."""
    clone = folder / "book"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
    if installed:
        (clone / "node_modules").symlink_to(ROOT / "node_modules")
        for name in INSTALL_INPUTS:  # older than this environment's install: make takes it as done
            os.utime(clone / name, (0, 0))
    return clone


def measure(commit: str, ci: bool, keep: bool) -> dict[str, float]:
    """Each step's wall time in seconds, in the order of BUDGETS_S."""
    folder = Path(tempfile.mkdtemp(prefix="selfattn-build-"))
    make = ["make", f"VENV={sys.prefix}"]  # this environment
    times: dict[str, float] = {}
    try:
        clone = clone_of(commit, folder / "tiers", installed=True)
        times["make lint"] = timed(clone, *make, "lint")
        times["make test-fast"] = timed(clone, *make, "test-fast")
        times["cold make book"] = timed(clone, *make, "book")
        times["warm make book"] = timed(clone, *make, "book")
        with open(clone / EDITED, "a", encoding="utf-8") as chapter:
            chapter.write(SENTENCE)
        times["prose edit"] = timed(clone, *make, "book")
        if ci:  # a clone of its own, installed by CI's script as CI installs it
            times["bash .ci/run"] = timed(clone_of(commit, folder / "ci", installed=False), "bash", ".ci/run")
    finally:
        if keep:
            print(f"kept in {folder}")
        else:
            shutil.rmtree(folder)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commit", default="HEAD", help="the commit to build (default: HEAD)")
    parser.add_argument("--ci", action="store_true", help="also time bash .ci/run in a fresh clone")
    parser.add_argument("--keep", action="store_true", help="keep the clones and their builds")
    args = parser.parse_args(argv)
    if not (ROOT / "node_modules").is_dir():
        raise SystemExit(f"no node_modules in {ROOT}: run `npm ci` there first (make book does)")
    times = measure(args.commit, args.ci, args.keep)
    print(f"{'step':<16}{'seconds':>9}{'budget':>9}")
    for name, seconds in times.items():
        over = seconds > BUDGETS_S[name]
        print(f"{name:<16}{seconds:>9.0f}{BUDGETS_S[name]:>9.0f}{'  OVER' if over else ''}")
    return 1 if any(times[name] > BUDGETS_S[name] for name in times) else 0


if __name__ == "__main__":
    sys.exit(main())
