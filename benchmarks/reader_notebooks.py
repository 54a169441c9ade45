"""How long each chapter's reader's notebook takes, run top to bottom in a fresh environment.

One fresh virtual environment (this machine's torch and a kernel, as Colab's machine has), then
each notebook of a built edition from its own install cell (``tools.notebook_run``), its runs
served from the site's ``runs/``. Prints each notebook's time, whether it loaded or trained its
runs, and the total next to the budget; exits 1 if a notebook trained a run or failed.

    python -m benchmarks.reader_notebooks [--language zh_CN] [CHAPTER ...]   # after make site
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from _ext.content.reader_notebooks import FOLDER
from tests.helpers import HTML
from tools.notebook_run import environment, run

BUDGET = 30 * 60  # seconds for every notebook of an edition, on 2 cores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapter names (default: every notebook)")
    parser.add_argument("--language", default="en", choices=["en", "zh_CN"])
    args = parser.parse_args(argv)
    site = HTML if args.language == "en" else HTML / "zh"
    books = sorted((site / FOLDER / "book").glob("*.ipynb"))
    books = [book for book in books if not args.chapters or book.stem in args.chapters]
    failed = []
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        python = environment(Path(folder) / "venv")
        print(f"fresh environment: {time.perf_counter() - start:.0f} s")
        total = 0.0
        for book in books:
            try:
                ran = run(book, python, HTML / "runs", Path(folder))
            except Exception as err:  # a failing notebook is reported, and the others still run
                print(f"{book.stem}: failed ({err})")
                failed.append(book.stem)
                continue
            total += ran.seconds
            print(f"{book.stem}: {ran.seconds:.0f} s, {ran.loaded} runs loaded, {ran.trained} trained")
            if ran.trained:
                failed.append(book.stem)
    print(f"{len(books)} notebooks: {total / 60:.1f} min (budget {BUDGET / 60:.0f} min)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
