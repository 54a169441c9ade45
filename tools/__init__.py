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
# The gettext build (`make translations`): the English messages, extracted with their own doctrees.
MESSAGES = ROOT / "_build" / "messages"
