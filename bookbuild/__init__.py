"""The book's build: the steps ``make`` runs to turn ``book/`` into the sites and the PDFs, and
the paths and settings they share.

- ``bookbuild.execute``: every chapter run into the execution cache, one per core, the book's
  runs trained first;
- ``bookbuild.build``: ``jupyter-book build`` for one edition and format, after the chapters ran;
- ``bookbuild.optimize``: the written site made lighter for a reader's browser (``build``'s last step);
- ``bookbuild.catalogs``: the Chinese edition's message catalogs, refreshed and checked;
- ``bookbuild.check_determinism``: every chapter executed again and compared with the build.

The development and test helpers are in ``tools``; the measurements in ``benchmarks``. Run them
from the repository's root (``python -m bookbuild.build``); pytest finds them there too
(``pythonpath`` in pyproject.toml).
"""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "_config.yml"
_SETTINGS = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
EXECUTE = _SETTINGS["execute"]
# How long one cell may run, and whether a cell may fail, as the book's build allows.
CELL_TIMEOUT, ALLOW_ERRORS = EXECUTE["timeout"], EXECUTE["allow_errors"]
# The build's run cache (selfattn/run_cache.py): every chapter, test and benchmark that trains shares
# it, and make site publishes the runs in it with the site (selfattn/published.py).
BUILD_RUNS = ROOT / "_build" / "runs"
# The executed chapters (jupyter-cache): every build reads the outputs from there.
EXECUTION_CACHE = ROOT / "_build" / ".jupyter_cache"


def site_of(output: Path) -> Path:
    """The site a build into the folder ``output`` writes (``--path-output``; the book's: ROOT)."""
    return output / "_build" / "html"


# The site make site writes: the English edition, the Chinese in zh/, the published runs in runs/.
SITE = site_of(ROOT)
# The gettext build (`make translations`): the English messages, extracted with their own doctrees.
MESSAGES = ROOT / "_build" / "messages"
# The chapters' text alone, extracted without executing the book (``bookbuild.catalogs current``).
PROSE_MESSAGES = ROOT / "_build" / "prose-messages"
# PDF_NAME: the PDF editions' file name, as latex_documents' targetname names it; EPUB_NAME: the
# EPUB editions', as epub_basename does.
PDF_NAME = Path(_SETTINGS["latex"]["latex_documents"]["targetname"])
EPUB_NAME = Path(f"{_SETTINGS['sphinx']['config']['epub_basename']}.epub")


def pdf_build(language: str) -> Path:
    """The folder the PDF edition in ``language`` ("en", "zh_CN") is built into.

    A folder of its own, with doctrees of their own: the LaTeX extension changes a setting
    (``numfig_secnum_depth``) that the sites' builds read too, so with the site's doctrees each
    build would find the other's and read every chapter again.
    """
    return ROOT / "_build" / f"pdf-{language}"


def built_pdf(language: str) -> Path:
    """The PDF edition in ``language`` as ``make pdf`` leaves it."""
    return pdf_build(language) / "_build" / "latex" / PDF_NAME.with_suffix(".pdf").name


def epub_build(language: str) -> Path:
    """The folder the EPUB edition in ``language`` is built into: one of its own, as a PDF
    edition's, so that its build and the site's never find each other's doctrees."""
    return ROOT / "_build" / f"epub-{language}"


def built_epub(language: str) -> Path:
    """The EPUB edition in ``language`` as ``make epub`` leaves it."""
    return epub_build(language) / "_build" / "epub" / EPUB_NAME.name
