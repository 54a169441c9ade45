"""How long the book takes to build: cold, warm, and after a prose edit.

Clones the repository's last commit (or ``--commit``'s) into a temporary folder and runs
``make book`` there (the PDF editions when XeLaTeX is installed, then the sites, English and
Chinese), with this Python environment and this checkout's ``node_modules`` taken as installed
(``npm ci`` installs the same packages from the same lock):

- **cold**: the fresh clone, with empty caches: every chapter executed, every model trained;
- **warm**: the same again, nothing changed;
- **prose edit**: after a sentence is added to the text of one chapter.

    python -m benchmarks.build_time [--commit REV] [--keep]

Prints each time next to its budget and exits 1 if any is over it.
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

from tools import ROOT

BUDGETS_S = {"cold": 600.0, "warm": 45.0, "prose edit": 90.0}
# What make compares with its install stamps (the Makefile's $(STAMP) and $(NODE_STAMP)).
INSTALL_INPUTS = ("requirements.lock", "pyproject.toml", "package.json", "package-lock.json")
EDITED = "book/bigram.md"  # the chapter whose prose the third build changes
SENTENCE = "\nA sentence added to time a rebuild after an edit of the prose.\n"


def build(clone: Path) -> float:
    """Build ``clone`` with ``make book``; return the wall time in seconds."""
    env = dict(os.environ, PYTHONPATH=str(clone / "code"))
    start = time.perf_counter()
    command = ["make", f"VENV={sys.prefix}", "book"]  # this environment
    result = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"build failed in {clone}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commit", default="HEAD", help="the commit to build (default: HEAD)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and its build")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="selfattn-build-"))
    clone = folder / "book"
    if not (ROOT / "node_modules").is_dir():
        raise SystemExit(f"no node_modules in {ROOT}: run `npm ci` there first (make book does)")
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", args.commit], check=True)
    (clone / "node_modules").symlink_to(ROOT / "node_modules")
    for name in INSTALL_INPUTS:  # older than this environment's install: make takes it as done
        os.utime(clone / name, (0, 0))
    try:
        times = {"cold": build(clone), "warm": build(clone)}
        with open(clone / EDITED, "a", encoding="utf-8") as chapter:
            chapter.write(SENTENCE)
        times["prose edit"] = build(clone)
    finally:
        if not args.keep:
            shutil.rmtree(folder)
    print(f"{'build':<12}{'seconds':>9}{'budget':>9}")
    for name, seconds in times.items():
        over = seconds > BUDGETS_S[name]
        print(f"{name:<12}{seconds:>9.0f}{BUDGETS_S[name]:>9.0f}{'  OVER' if over else ''}")
    return 1 if any(times[name] > BUDGETS_S[name] for name in times) else 0


if __name__ == "__main__":
    sys.exit(main())
