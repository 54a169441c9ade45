"""The book's logo (``logo`` in ``_config.yml``), small, beside the book's title in the sidebar.

The theme shows a logo alone and as wide as the sidebar; here it is a 3 rem mark next to the
title, in both light and dark mode (the logo carries its own dark card).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

from _ext.editions.translation import say

STATIC = Path(__file__).with_name("brand_static")


def _configure(app: Sphinx, config: Config) -> None:
    config.html_theme_options["logo"] = {
        **config.html_theme_options.get("logo", {}),
        "text": config.html_title,
        "alt_text": say(config.language, "{title}: home", title=config.html_title),
    }
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    app.add_css_file("brand.css")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
