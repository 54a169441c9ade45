"""Build the book on every core: ``python -m tools.build [jupyter-book build options]``.

The same as ``jupyter-book build .`` with the same options, except that Sphinx
reads the chapters, and so executes them, in one process per core. Jupyter
Book's command line has no option for that, so this passes Sphinx the job count
itself, and hands each process one chapter at a time instead of Sphinx's batches
of ten, so a chapter that trains for minutes does not hold up the rest of its
batch. Two chapters that need the same trained model do not both train it: the
run cache lets one train while the other waits (``selfattn.cache.claimed``).

Jupyter Book re-executes a chapter when its code cells change, not when the
package they import does; so when any file of ``code/selfattn`` changed since
the last build, this clears the execution cache first and every chapter runs
again (trained models stay in the run cache unless their own code changed). It
also creates that cache's database before the parallel processes start.

``--language zh_CN`` builds the Chinese edition from the same chapters and the message catalogs
in ``locale/``, into ``_build/zh_CN`` (its site is then copied to ``_build/html/zh``). It reads
the English build's execution cache, so translating never runs a chapter again. The gettext
build (``--builder custom --custom-builder gettext``) reads it too, in ``_build/messages``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import jupyter_book.sphinx
import sphinx.builders
from jupyter_book.cli.main import main as jupyter_book_cli
from jupyter_cache import get_cache

from tools import MESSAGES, ROOT

PACKAGE = ROOT / "code" / "selfattn"


def one_chapter_each(docnames: Sequence[str], nproc: int, maxbatch: int = 10) -> list[list[str]]:
    """Sphinx's read batches: one document each, so free processes take the next chapter."""
    return [[name] for name in docnames]


def package_digest() -> str:
    """A hash of every file of the package the chapters import."""
    digest = hashlib.sha256()
    for path in sorted(p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def prepare_execution_cache(build: Path) -> None:
    """Make ``build``'s execution cache before the chapters are read in parallel.

    Outputs of another version of the package are forgotten. The cache's database is
    created here, once: two processes creating it at the same moment can collide.
    """
    cache, stamp = build / ".jupyter_cache", build / ".package.sha256"
    digest = package_digest()
    if cache.exists() and (not stamp.is_file() or stamp.read_text() != digest):
        print("The package changed since the last build: every chapter is executed again.")
        shutil.rmtree(cache)
        shutil.rmtree(build / ".doctrees", ignore_errors=True)  # so Sphinx reads every chapter again
    get_cache(cache).db  # noqa: B018 (creates the database, once)
    stamp.write_text(digest)


def with_overrides(build_sphinx: Callable[..., Any], overrides: dict[str, Any]) -> Callable[..., Any]:
    """``build_sphinx`` with these Sphinx settings on top of the book's own."""

    def build(*args: Any, confoverrides: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        return build_sphinx(*args, confoverrides={**(confoverrides or {}), **overrides}, **kwargs)

    return build


def main(argv: Sequence[str]) -> None:
    argv = list(argv)
    language = None
    if "--language" in argv:
        at = argv.index("--language")
        language = argv[at + 1]
        del argv[at : at + 2]
        argv += ["--path-output", str(ROOT / "_build" / language)]
    elif "gettext" in argv:  # its own doctrees: Sphinx cannot share them with the site's build
        argv += ["--path-output", str(MESSAGES)]
    output = Path(argv[argv.index("--path-output") + 1]) if "--path-output" in argv else ROOT
    build_sphinx = partial(jupyter_book.sphinx.build_sphinx, jobs=os.cpu_count())
    if output == ROOT:
        prepare_execution_cache(output / "_build")
    else:  # the English build's outputs: translating and extracting run nothing
        cache = str(ROOT / "_build" / ".jupyter_cache")
        overrides = {"nb_execution_cache_path": cache} | ({"language": language} if language else {})
        build_sphinx = with_overrides(build_sphinx, overrides)
    jupyter_book.sphinx.build_sphinx = build_sphinx
    sphinx.builders.make_chunks = one_chapter_each
    jupyter_book_cli(["build", str(ROOT), *argv], standalone_mode=False)
    if language is not None and "--builder" not in argv:
        site = ROOT / "_build" / "html" / language.split("_")[0]
        shutil.rmtree(site, ignore_errors=True)
        shutil.copytree(output / "_build" / "html", site)


if __name__ == "__main__":
    main(sys.argv[1:])
