"""Images that never hold up a page: fetched as a reader scrolls to them, with their size known.

A chapter's figures are PNG files far down the page; a browser fetches every one of them while
the page first loads, competing with its text and styles, unless told to wait. Each ``<img>`` of
a page's body that shows one of the book's images (``_images/``) is given ``loading="lazy"`` and
its pixel ``width`` and ``height``, read from the file, so the browser keeps its place before it
arrives and nothing below it moves (``web_images_static/web-images.css`` lets it scale to the
column). The change is made through ``html-page-context``, the event Sphinx offers for changing
a page's body before it is written.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PIL import Image
from sphinx.application import Sphinx
from sphinx.config import Config

STATIC = Path(__file__).with_name("web_images_static")
IMG = re.compile(r'<img (?P<attributes>[^>]*?)src="(?P<src>[^"]*?_images/(?P<name>[^"/]+))"')


def sizes(app: Sphinx, names: set[str]) -> dict[str, tuple[int, int]]:
    """The pixel size of each raster image the HTML builder copies into ``_images/`` as one of
    ``names``."""
    found = {}
    for source, name in app.builder.images.items():  # private: CONTRIBUTING.md, "builder images"
        if name in names:
            try:
                with Image.open(Path(app.srcdir, source)) as image:
                    found[name] = image.size
            except OSError:  # not a raster image (an SVG): the browser reads its size itself
                continue
    return found


def lazy(body: str, known: dict[str, tuple[int, int]]) -> str:
    """``body`` with each image of ``_images/`` loaded lazily and, where known, sized."""

    def mark(found: re.Match) -> str:
        attributes = found["attributes"]
        extra = "" if "loading=" in attributes else 'loading="lazy" '
        size = known.get(found["name"])
        if size and "width=" not in attributes and "height=" not in attributes:
            extra += f'width="{size[0]}" height="{size[1]}" '
        return f'<img {attributes}{extra}src="{found["src"]}"'

    return IMG.sub(mark, body)


def _configure(app: Sphinx, config: Config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    app.add_css_file("web-images.css")


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    body = context.get("body") or ""
    names = {found["name"] for found in IMG.finditer(body)}
    if names:
        context["body"] = lazy(body, sizes(app, names))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
