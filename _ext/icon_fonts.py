"""The theme's icons, cut to those the site shows: its icon fonts, and its style sheet's icon rules.

pydata-sphinx-theme draws its icons with Font Awesome's web fonts: about 300 kB of WOFF2 that a
first visit downloads, before it can draw the header, for the two dozen icons the site uses; and
its style sheet maps every one of Font Awesome's 1,900 classes to its character
(``.fa-rocket:before{content:"\\f135"}``), about 86 kB that every page downloads, parses and
matches against its elements. Once the site is written (``build-finished``, after the page's
style sheets are bundled, ``_ext/one_stylesheet.py``), the icons that can appear are:

- every ``fa-*`` class that a page or a script of the site names (``named_icons``), as Font
  Awesome's style sheet maps it to a character;
- every icon character that the site's style sheets draw outside that map (the theme's
  admonition, link and dropdown icons).

Each font in ``_static`` is cut with fontTools to those characters (``used_icons``), and saved
under its own name, so the style sheet finds it as before; and each style sheet keeps the rules
of the map for the named classes alone (``named_rules``). The TrueType copies beside the fonts are
left whole: a browser that reads WOFF2 never fetches them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fontTools import subset
from sphinx.application import Sphinx

from _ext.written_site import pages, write_atomically

FONTS = "vendor/fontawesome/webfonts/*.woff2"  # under _static
# Font Awesome's map from class to character: `.fa-rocket:before{content:"\f135"}`.
ICON_RULE = re.compile(r"((?:\.fa-[a-z0-9-]+:{1,2}before,?)+)\{content:\"([^\"]+)\"\}")
WHOLE_ICON_RULE = re.compile(rf"(?:^|(?<=[{{}}])){ICON_RULE.pattern}", re.M)
ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")
CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6}) ?")
PRIVATE_USE = re.compile("[\ue000-\uf8ff]")  # where Font Awesome keeps its icons


def characters(css_string: str) -> set[int]:
    """The code points a CSS string holds, its escapes (``\\f135``) read."""
    text = CSS_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), css_string)
    return {ord(c) for c in text}


def named_icons(texts: Iterable[str]) -> set[str]:
    """The ``fa-*`` classes that ``texts`` (pages and scripts) name."""
    return set().union(*(ICON_CLASS.findall(text) for text in texts))


def used_icons(css: str, named: set[str]) -> set[int]:
    """The icon code points that the classes ``named`` and the style sheets ``css`` can show."""
    by_class: dict[str, set[int]] = {}
    for selectors, content in ICON_RULE.findall(css):
        for name in ICON_CLASS.findall(selectors):
            by_class.setdefault(name, set()).update(characters(content))
    drawn = characters(ICON_RULE.sub("", css))  # what the style sheets draw outside the map
    icons = {c for c in drawn if PRIVATE_USE.match(chr(c))}
    return icons.union(*(by_class.get(name, set()) for name in named))


def named_rules(css: str, named: set[str]) -> str:
    """``css`` with the map's rules for the classes ``named`` alone (a rule keeps the selectors of
    those it names). Only a whole rule is changed: one that starts the sheet, a line or a block."""

    def kept(rule: re.Match) -> str:
        selectors = [s for s in rule[1].split(",") if ICON_CLASS.search(s)[0] in named]
        return f'{",".join(selectors)}{{content:"{rule[2]}"}}' if selectors else ""

    return WHOLE_ICON_RULE.sub(kept, css)


def cut(font: Path, code_points: set[int]) -> None:
    """Keep only ``code_points`` of the WOFF2 file ``font``, in place."""
    # fontTools reports every table it cuts at INFO, which a build prints once a package it loads
    # has set the root logger to INFO (accessible-pygments does, with the theme's code colours).
    logging.getLogger("fontTools.subset").setLevel(logging.WARNING)
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    loaded = subset.load_font(str(font), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=code_points)
    subsetter.subset(loaded)
    subset.save_font(loaded, str(font), options)


def _cut_icons(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    sheets = {path: path.read_text(encoding="utf-8") for path in static.rglob("*.css")}
    scripts = static.glob("**/*.js")
    named = named_icons(path.read_text(encoding="utf-8") for path in [*pages(out), *scripts])
    icons = used_icons("\n".join(sheets.values()), named)
    for font in static.glob(FONTS):
        cut(font, icons)
    for path, css in sheets.items():
        if (kept := named_rules(css, named)) != css:
            write_atomically(path, kept)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("build-finished", _cut_icons, priority=950)  # after one_stylesheet's bundles (900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
