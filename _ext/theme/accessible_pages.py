"""Pages every reader can use: with a screen reader, in WCAG 2.1 AA contrast, on a phone.

What the theme and Sphinx's HTML writer leave short of that, fixed where the book renders it
(the checks: axe in the browser crawl of every page, ``tests/site/test_site.py``):

- The sidebar's search button reads "Search Ctrl+K", but the theme names it "Search" alone, so
  the name a reader hears is not the text a reader sees. The book's template
  (``accessible_pages_templates/search-button-field.html``, found before the theme's own
  ``components/`` folder, which the theme adds to ``templates_path``) names it by its text.
- Two things in the pages' body are changed through ``html-page-context``, the event Sphinx
  offers for changing a page's body before it is written:
  - The bibliography is a list whose items carry ``doc-biblioentry``, a role ARIA 1.2 deprecated,
    so a screen reader finds no items in it. They are given ``listitem``.
  - MyST-NB names the summary of a hidden cell "Toggle hidden content", though it shows "Show code
    cell source". The summary is left to be named by its text.
- Links inside exercise and note boxes fall below AA contrast on the boxes' tint, and the
  header's row of icons is wider than a phone: fixed in the site's general stylesheet,
  ``_static/book.css``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

HERE = Path(__file__).parent
TEMPLATES = HERE / "accessible_pages_templates"
BODY_FIXES = {
    'role="doc-biblioentry"': 'role="listitem"',  # docutils' HTML5 writer, on each citation
    '<summary aria-label="Toggle hidden content">': "<summary>",  # MyST-NB, on a hidden cell
}


def _configure(app: Sphinx, config: Config) -> None:
    config.templates_path = [str(TEMPLATES), *config.templates_path]


def _fix_body(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    body = context.get("body")
    if body:
        for found, fixed in BODY_FIXES.items():
            body = body.replace(found, fixed)
        context["body"] = body


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _fix_body)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
