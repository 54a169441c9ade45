"""Development helpers shared by the tests, the benchmarks and ``make live`` (not the build, which
is ``bookbuild``).

- ``tools.browser``: Debian's headless Chromium through Playwright, an offline browser context, and
  what a visit to a page did (files fetched, requests blocked or failed, errors);
- ``tools.serve``: a built site on a loopback port;
- ``tools.page_downloads``: what a first visit to each page downloads, against the budget;
- ``tools.figure_page``: the interactive figures drawn here, and as one executed notebook page;
- ``tools.live``: ``make live``, the site with live code on a local Jupyter server.

Run them from the repository's root (``python -m tools.live``); pytest finds them there too
(``pythonpath`` in pyproject.toml).
"""
