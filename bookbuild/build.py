"""Build the book: ``python -m bookbuild.build [--language LANG] [jupyter-book build options]``.

Three steps, each through its tool's public interface:

1. **Execute** the chapters into the execution cache, one process per core (``bookbuild.execute``:
   nbclient, then jupyter-cache's store); chapters already cached are not run again.
2. **Build** with ``jupyter-book build`` and the options given. ``_config.yml`` reads every
   chapter's outputs from that cache (``execute_notebooks: cache``), so nothing runs here.
   Docutils reads its settings from ``docutils.conf`` (``DOCUTILSCONFIG``, docutils' own way).
3. **Optimize** the written site for a reader's browser (``bookbuild.optimize``), unless
   ``--unoptimized``: an HTML build's site, the Chinese edition's before it is copied.

A build into another folder (``--path-output``, ``--language``, the gettext build) reads the same
cache: it gets a config of its own, ``_config.yml`` with the cache's path, the extensions' folder
and the language set, written into its output folder and passed with ``--config``.
``--language zh_CN`` builds the Chinese edition from the same chapters and the message catalogs
in ``locale/``, into ``_build/zh_CN`` (its site is then copied to ``_build/html/zh``), or with
``--path-output`` into that folder alone (the tests' one-chapter Chinese site); a PDF
edition (``--builder pdflatex``) is built into a folder of its own, ``_build/pdf-en`` or
``_build/pdf-zh_CN`` (``bookbuild.pdf_build``), and so is an EPUB edition (``--builder custom
--custom-builder epub``): ``_build/epub-en`` or ``_build/epub-zh_CN`` (``bookbuild.epub_build``);
the gettext build (``--builder custom --custom-builder gettext``) writes into ``_build/messages``.
"""

from __future__ import annotations

import os
import shutil
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import yaml
from jupyter_book.cli.main import main as jupyter_book

from bookbuild import (
    CONFIG,
    EXECUTION_CACHE,
    MESSAGES,
    PDF_NAME,
    PROSE_MESSAGES,
    ROOT,
    SITE,
    epub_build,
    pdf_build,
    site_of,
)
from bookbuild.execute import BOOK_TOC, execute, notebooks_in_toc
from bookbuild.optimize import optimize

DOCUTILS_CONFIG = ROOT / "docutils.conf"
LATEX_BUILDERS = {"latex", "pdflatex"}  # a PDF edition's


def _option(argv: list[str], name: str) -> str | None:
    """Remove ``name VALUE`` from ``argv``; return VALUE (None if absent)."""
    if name not in argv:
        return None
    at = argv.index(name)
    value = argv[at + 1]
    del argv[at : at + 2]
    return value


def config_for(output: Path, language: str | None, pdf: bool = False, execute: bool = True) -> Path:
    """``_config.yml`` for a build into ``output``: reading the book's execution cache (or, not
    ``execute``, no chapter's outputs at all), loading the extensions from the repository, and in
    ``language``; written into ``output``.

    For a ``pdf`` build, ``numfig_secnum_depth`` is 2 from the start: sphinx-jupyterbook-latex
    sets it so when it makes the table of contents' parts LaTeX parts, after Sphinx has loaded the
    saved environment, which would otherwise look out of date at every build.
    """
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    config["execute"]["cache"] = str(EXECUTION_CACHE)
    if not execute:
        config["execute"]["execute_notebooks"] = "off"
    sphinx = config["sphinx"]
    # jupyter-book finds a local extension's folder from the config file's own folder
    sphinx["local_extensions"] = {name: str(ROOT / path) for name, path in sphinx["local_extensions"].items()}
    if language:
        sphinx["config"]["language"] = language
    if pdf:
        sphinx["config"]["numfig_secnum_depth"] = 2
    output.mkdir(parents=True, exist_ok=True)
    path = output / "_config.yml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def edition_folder(argv: Sequence[str], language: str | None) -> Path | None:
    """The folder of its own that a PDF or EPUB edition in ``language`` is built into, as the
    builder named in ``argv`` makes one; None for any other build."""
    if LATEX_BUILDERS & set(argv):
        return pdf_build(language or "en")
    if "epub" in argv:
        return epub_build(language or "en")
    return None


def main(argv: Sequence[str]) -> None:
    argv = list(argv)
    if {"-h", "--help"} & set(argv):  # this tool's options, then jupyter-book build's
        print(__doc__)
        jupyter_book(["build", "--help"], prog_name="jupyter-book")
    unoptimized = "--unoptimized" in argv
    argv = [arg for arg in argv if arg != "--unoptimized"]
    language = _option(argv, "--language")
    toc = _option(argv, "--toc")
    output = _option(argv, "--path-output")
    pdf = bool(LATEX_BUILDERS & set(argv))
    own_folder = edition_folder(argv, language)
    edition = language is not None and output is None and own_folder is None  # the site's other edition
    if output is None and own_folder is not None:
        output = str(own_folder)
    elif edition:
        output = str(ROOT / "_build" / language)
    elif output is None and "gettext" in argv:  # its own doctrees: Sphinx cannot share them
        output = str(MESSAGES)
    execute(notebooks_in_toc(Path(toc) if toc else BOOK_TOC), train_first=toc is None)
    options = ["--toc", toc] if toc else []
    if output is not None:
        options += ["--path-output", output, "--config", str(config_for(Path(output), language, pdf))]
    if pdf:  # latexmk's steps, not LaTeX's thousands of lines; its errors if it fails
        os.environ.setdefault("LATEXMKOPTS", "-silent")
        # jupyter-book runs make in the LaTeX folder without make's jobserver (under make -j2 it
        # would say so and run one job at a time): it runs one job, and is not told otherwise.
        os.environ.pop("MAKEFLAGS", None)
    try:
        sphinx([*options, *argv])
    except RuntimeError:
        if pdf and output is not None:
            print(latex_errors(Path(output) / "_build" / "latex" / PDF_NAME.with_suffix(".log").name))
        raise
    if "--builder" in argv:
        return
    written = site_of(Path(output) if output else ROOT)
    if not unoptimized:
        optimize(written)
    if edition:
        site = SITE / language.split("_")[0]
        shutil.rmtree(site, ignore_errors=True)
        shutil.copytree(written, site)


def sphinx(options: list[str], root: Path = ROOT) -> None:
    """``jupyter-book build`` of the book at ``root`` with ``options``, docutils set by
    ``docutils.conf``."""
    os.environ["DOCUTILSCONFIG"] = str(DOCUTILS_CONFIG)
    with warnings.catch_warnings():
        # sphinx-external-toc looks at every object of the process (gc.get_objects()) for Sphinx's
        # toctree collector, and torch, imported by the execution step, warns when one is its
        # deprecated alias torch.distributed.reduce_op: nothing of the book's.
        warnings.filterwarnings("ignore", r"`torch\.distributed\.reduce_op` is deprecated", FutureWarning)
        jupyter_book(["build", str(root), *options], standalone_mode=False)


def latex_errors(log: Path, context: int = 4) -> str:
    """The errors LaTeX wrote into ``log``: each line that starts with ``!`` and the lines after it
    up to the one that names the source line (``l.<n>``), at most ``context`` of them."""
    if not log.is_file():
        return f"LaTeX wrote no log ({log})."
    lines = log.read_text("utf-8", errors="replace").splitlines()
    errors = []
    for at, line in enumerate(lines):
        if line.startswith("! "):
            shown = [line]
            for after in lines[at + 1 : at + 1 + context]:
                shown.append(after)
                if after.startswith("l."):
                    break
            errors.append("\n".join(shown))
    if not errors:
        return f"LaTeX failed; its log says why: {log}"
    return f"LaTeX's errors (from {log}):\n\n" + "\n\n".join(errors)


def extract_prose(output: Path = PROSE_MESSAGES, root: Path = ROOT, toc: Path | None = None) -> Path:
    """The English messages of the chapters' text, extracted from the book at ``root`` into
    ``output`` without executing a chapter; return the folder of their templates (``.pot``).

    Every message but those of the chapters' outputs (a figure's words, a glued alt text), which
    only the executed book has: ``make translations`` extracts those too.
    """
    config = config_for(output, None, execute=False)
    options = ["--path-output", str(output), "--config", str(config), "--builder", "custom"]
    sphinx([*options, "--custom-builder", "gettext", *(["--toc", str(toc)] if toc else []), "-qq"], root)
    return output / "_build" / "gettext" / "book"


if __name__ == "__main__":
    main(sys.argv[1:])
