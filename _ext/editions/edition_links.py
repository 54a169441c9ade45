"""Two editions from one source: every page links to the same page in the other edition.

The English site is the root of the build (``_build/html``), the Chinese one lives beside it in
``zh/`` (``python -m bookbuild.build --language zh_CN``). A button at the top of each page, beside
the theme's own, leads to the page with the same name in the other edition.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

TEMPLATES = Path(__file__).with_name("edition_links_templates")
STATIC = Path(__file__).with_name("edition_links_static")
# language -> (the edition's name, written in its own language; its folder in the site)
EDITIONS = {"en": ("English", ""), "zh_CN": ("中文", "zh/")}


def other_edition(language: str | None, pagename: str) -> tuple[str, str, str]:
    """(name, language tag, relative URL) of ``pagename`` in the other edition."""
    here = EDITIONS.get(language or "en", EDITIONS["en"])
    there_language = "en" if here is not EDITIONS["en"] else "zh_CN"
    name, folder = EDITIONS[there_language]
    to_site_root = "../" * pagename.count("/") + ("../" * here[1].count("/"))
    return name, there_language.replace("_", "-"), f"{to_site_root}{folder}{pagename}.html"


def _configure(app: Sphinx, config: Config) -> None:
    config.templates_path = [*config.templates_path, str(TEMPLATES)]
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    header = config.html_theme_options.get("article_header_end", ["article-header-buttons.html"])
    config.html_theme_options["article_header_end"] = [*header, "edition-switch.html"]


def _link(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    name, lang, url = other_edition(app.config.language, pagename)
    context["other_edition"] = {"name": name, "lang": lang, "url": url}


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _link)
    app.add_css_file("edition-links.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
