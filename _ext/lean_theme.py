"""The theme, lighter: what every page loads is only what it shows.

- pydata-sphinx-theme puts its Font Awesome script (1.5 MB) on every page; the script only
  redraws, as inline SVG, the icons that the theme's style sheet and web fonts already draw. The
  pages leave it out (``lean_theme_templates/layout.html``) and the site does not ship it.
- The header's search box repeats the one at the top of the sidebar: the header has none.
- The theme also loads Sphinx's search tools and the whole search index (100 kB and more, and it
  grows with the book) into every page, for a search-as-you-type the book leaves off. Only the
  search page loads them.
- The scripts in a page's head wait until the page is parsed (``defer``), so none holds up its
  first paint; only the two that set values the page's inline scripts read at once do not
  (``lean_theme_templates/layout.html`` names them). The page's style sheets come as one
  (``one_stylesheet.py``).
- On a reader's first visit the theme's first script leaves the colour theme undecided ("auto",
  which no style rule matches) until its main script runs, so the page was first painted without
  its colours and borders (white in dark mode), and moved when they came. The page decides at
  once, from the reader's setting, as the theme's script then does (``layout.html``).
- The site ships none of the theme files no page loads: that script, the source maps of the
  theme's bundles (for the theme's own developers), and the translation catalogs the theme's
  templates read while the book is built.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

TEMPLATES = Path(__file__).with_name("lean_theme_templates")
UNUSED_FILES = ("scripts/fontawesome.js", "scripts/fontawesome.js.LICENSE.txt", "**/*.map")
UNUSED_FOLDERS = ("locales",)


def _configure(app: Sphinx, config: Config) -> None:
    config.templates_path = [*config.templates_path, str(TEMPLATES)]
    config.html_theme_options["navbar_persistent"] = []


def _drop_unused(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        for pattern in UNUSED_FILES:
            for path in static.glob(pattern):
                path.unlink()
        for name in UNUSED_FOLDERS:
            shutil.rmtree(static / name, ignore_errors=True)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    app.connect("build-finished", _drop_unused)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
