"""How long each chapter's "try it" cells take with their default values, on one core.

A chapter's try cell starts with ``# Hyperparameters:``; a reader who changes it re-runs it and
the code cells that follow it up to the next paragraph of text. For each chapter, a Jupyter
kernel pinned to one CPU core runs the chapter's cells up to the try cell (trained runs come
from the build's run cache), turns the cache off so that the try cell really trains, and times
the try cells as the kernel reports them.

    python -m benchmarks.try_cells [CHAPTER ...]      # after a build (make book)

Prints each chapter's time next to the budget and exits 1 if any is over it.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

from bookbuild import BUILD_RUNS, CELL_TIMEOUT, ROOT
from selfattn.run_cache import RUN_CACHE_ENV
from selfattn.runs import TRY_SECONDS

TRY_MARK = "# Hyperparameters:"
TRAIN_FOR_REAL = 'import os\nos.environ["SELFATTN_NO_RUN_CACHE"] = "1"'


def chapters_with_try_cells() -> list[Path]:
    return [path for path in sorted((ROOT / "book").glob("*.md")) if TRY_MARK in path.read_text()]


def try_notebook(path: Path) -> tuple[nbformat.NotebookNode, list[int]]:
    """The chapter's code cells up to its try cells, and the indices of those try cells."""
    cells = jupytext.read(path).cells
    start = next(i for i, c in enumerate(cells) if c.cell_type == "code" and c.source.startswith(TRY_MARK))
    end = start + 1
    while end < len(cells) and cells[end].cell_type == "code":
        end += 1
    before = [c for c in cells[:start] if c.cell_type == "code"]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [*before, nbformat.v4.new_code_cell(TRAIN_FOR_REAL), *cells[start:end]]
    first = len(before) + 1
    return notebook, list(range(first, len(notebook.cells)))


def cell_seconds(cell: nbformat.NotebookNode) -> float:
    timing = cell.metadata["execution"]
    started = datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
    finished = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
    return (finished - started).total_seconds()


def time_try_cells(path: Path) -> float:
    notebook, tried = try_notebook(path)
    NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3", record_timing=True).execute(
        cwd=str(path.parent)
    )
    return sum(cell_seconds(notebook.cells[i]) for i in tried)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapter names (default: every chapter with a try cell)")
    args = parser.parse_args(argv)
    paths = [ROOT / "book" / f"{name}.md" for name in args.chapters] or chapters_with_try_cells()
    os.environ.setdefault(RUN_CACHE_ENV, str(BUILD_RUNS))
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # the kernels inherit one core
    over = 0
    print(f"{'chapter':<26}{'seconds':>9}{'budget':>9}")
    for path in paths:
        seconds = time_try_cells(path)
        over += seconds > TRY_SECONDS
        print(f"{path.stem:<26}{seconds:>9.1f}{TRY_SECONDS:>9.0f}{'  OVER' if seconds > TRY_SECONDS else ''}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
