"""The theme's icon fonts, cut to the icons the site shows.

pydata-sphinx-theme draws its icons with Font Awesome's web fonts: about 300 kB of WOFF2 that a
first visit downloads, before it can draw the header, for the two dozen icons the site uses.
Once the site is written (``build-finished``), each font in ``_static`` is cut with fontTools to
the icons that can appear (``used_icons``), and saved under its own name, so the theme's style
sheet finds it as before:

- every ``fa-*`` class that a page or a script of the site names, as Font Awesome's style sheet
  maps it to a character;
- every icon character that the site's style sheets draw outside that map (the theme's
  admonition, link and dropdown icons).

The TrueType copies beside them are left whole: a browser that reads WOFF2 never fetches them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fontTools import subset
from sphinx.application import Sphinx

FONTS = "vendor/fontawesome/webfonts/*.woff2"  # under _static
# Font Awesome's map from class to character: `.fa-rocket:before{content:"\f135"}`.
ICON_RULE = re.compile(r"((?:\.fa-[a-z0-9-]+:{1,2}before,?)+)\{content:\"([^\"]+)\"\}")
ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")
CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6}) ?")
PRIVATE_USE = re.compile("[\ue000-\uf8ff]")  # where Font Awesome keeps its icons


def characters(css_string: str) -> set[int]:
    """The code points a CSS string holds, its escapes (``\\f135``) read."""
    text = CSS_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), css_string)
    return {ord(c) for c in text}


def used_icons(css: str, pages: Iterable[str]) -> set[int]:
    """The icon code points that ``pages`` (HTML and scripts) and the style sheets ``css`` can show."""
    by_class: dict[str, set[int]] = {}
    for selectors, content in ICON_RULE.findall(css):
        for name in ICON_CLASS.findall(selectors):
            by_class.setdefault(name, set()).update(characters(content))
    named = set().union(*(ICON_CLASS.findall(text) for text in pages))
    drawn = characters(ICON_RULE.sub("", css))  # what the style sheets draw outside the map
    icons = {c for c in drawn if PRIVATE_USE.match(chr(c))}
    return icons.union(*(by_class.get(name, set()) for name in named))


def cut(font: Path, code_points: set[int]) -> None:
    """Keep only ``code_points`` of the WOFF2 file ``font``, in place."""
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    loaded = subset.load_font(str(font), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=code_points)
    subsetter.subset(loaded)
    subset.save_font(loaded, str(font), options)


def _cut_fonts(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    css = "\n".join(p.read_text(encoding="utf-8") for p in static.rglob("*.css"))
    pages = (
        p.read_text(encoding="utf-8")
        for pattern in ("**/*.html", "_static/**/*.js")
        for p in out.glob(pattern)
    )
    icons = used_icons(css, pages)
    for font in static.glob(FONTS):
        cut(font, icons)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("build-finished", _cut_fonts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
