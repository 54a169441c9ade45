"""Development helpers shared by the tests, the benchmarks and ``make live`` (not part of the book).

- ``tools.browser``: Debian's headless Chromium through Playwright, an offline browser context, and
  what a visit to a page did (files fetched, requests blocked or failed, errors);
- ``tools.serve``: a built site on a loopback port;
- ``tools.page_weight``: what a first visit to each page downloads, against the budget;
- ``tools.figure_page``: the interactive figures drawn here, and as one executed notebook page;
- ``tools.build``: ``jupyter-book build``, after ``tools.execute`` has run the chapters into the
  execution cache on every core;
- ``tools.live``: ``make live``, the site with live code on a local Jupyter server;
- ``tools.catalogs``: the Chinese edition's message catalogs, refreshed and checked.

Run them from the repository's root (``python -m tools.live``, ``python -m benchmarks.page_weight``);
pytest finds them there too (``pythonpath`` in pyproject.toml).
"""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "_config.yml"
EXECUTE = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))["execute"]
# How long one cell may run, and whether a cell may fail, as the book's build allows.
CELL_TIMEOUT, ALLOW_ERRORS = EXECUTE["timeout"], EXECUTE["allow_errors"]
# The build's run cache (selfattn/cache.py): every chapter, test and benchmark that trains shares
# it, and make site publishes the runs in it with the site (selfattn/published.py).
RUNS = ROOT / "_build" / "runs"
# The gettext build (`make translations`): the English messages, extracted with their own doctrees.
MESSAGES = ROOT / "_build" / "messages"
# PDF_NAME: the PDF editions' file name, as latex_documents' targetname names it.
PDF_NAME = Path(yaml.safe_load(CONFIG.read_text(encoding="utf-8"))["latex"]["latex_documents"]["targetname"])


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
