"""Build the book on every core: ``python -m tools.build [jupyter-book build options]``.

The same as ``jupyter-book build .`` with the same options, except that Sphinx
reads the chapters, and so executes them, in one process per core. Jupyter
Book's command line has no option for that, so this passes Sphinx the job count
itself, and hands each process one chapter at a time instead of Sphinx's batches
of ten, so a chapter that trains for minutes does not hold up the rest of its
batch. Two chapters that need the same trained model do not both train it: the
run cache lets one train while the other waits (``selfattn.cache.claimed``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from functools import partial

import jupyter_book.sphinx
import sphinx.builders
from jupyter_book.cli.main import main as jupyter_book_cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_chapter_each(docnames: Sequence[str], nproc: int, maxbatch: int = 10) -> list[list[str]]:
    """Sphinx's read batches: one document each, so free processes take the next chapter."""
    return [[name] for name in docnames]


def main(argv: Sequence[str]) -> None:
    jupyter_book.sphinx.build_sphinx = partial(jupyter_book.sphinx.build_sphinx, jobs=os.cpu_count())
    sphinx.builders.make_chunks = one_chapter_each
    jupyter_book_cli(["build", ROOT, *argv])


if __name__ == "__main__":
    main(sys.argv[1:])
