"""The theme, lighter: what every page loads is only what it shows.

- pydata-sphinx-theme puts its Font Awesome script (1.5 MB) on every page; the script only
  redraws, as inline SVG, the icons that the theme's style sheet and web fonts already draw. The
  pages leave it out (``lean_theme_templates/layout.html``), and the site does not ship it
  (``bookbuild/optimize.py``).
- The header's search box repeats the one at the top of the sidebar: the header has none.
- The theme also loads Sphinx's search tools and the whole search index (100 kB and more, and it
  grows with the book) into every page, for a search-as-you-type the book leaves off. Only the
  search page loads them.
- The scripts in a page's head wait until the page is parsed (``defer``), so none holds up its
  first paint; only the two that set values the page's inline scripts read at once do not
  (``lean_theme_templates/layout.html`` names them).
- On a reader's first visit the theme's first script leaves the colour theme undecided ("auto",
  which no style rule matches) until its main script runs, so the page was first painted without
  its colours and borders (white in dark mode), and moved when they came. The page decides at
  once, from the reader's setting, as the theme's script then does (``layout.html``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

TEMPLATES = Path(__file__).with_name("lean_theme_templates")


def _configure(app: Sphinx, config: Config) -> None:
    config.templates_path = [*config.templates_path, str(TEMPLATES)]
    config.html_theme_options["navbar_persistent"] = []


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
