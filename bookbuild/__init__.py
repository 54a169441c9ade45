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

from _ext.paths import (  # noqa: F401 (the build's paths, read from here too)
    CONFIG,
    EPUB_NAME,
    PDF_NAME,
    ROOT,
    SETTINGS,
    built_epub,
    built_pdf,
    epub_build,
    pdf_build,
)

EXECUTE = SETTINGS["execute"]
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
