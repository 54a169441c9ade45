"""A chapter's sections drawn as a reader reaches them, not all while the page loads.

A long chapter is thousands of elements (its formulas, code and figures), and a phone styles and
lays out every one of them before the page answers a tap; the theme's scripts then ask for the
layout again as they start. ``lazy_sections_static/lazy-sections.css`` gives each of a chapter's
sections (the ones under its title) CSS's ``content-visibility: auto``: the browser skips the
sections off screen until they come near, keeping them in the page for finding, linking and
assistive technology. From a chapter's third section on, the paragraphs, lists, formulas and
figures inside them are drawn the same way, because the theme measures every code block and
output as the page loads (for their tab stops), which draws each section that holds one; prose is
then still skipped. (Blocks drawn this way inside a section on the first screen would appear a
frame after it and push what follows down.) A page with a link's target (``:target``) draws
everything, so the browser scrolls to where the target is, not to where guessed heights put it.

An element drawn that way clips what is wider than the column, as it would scroll the page
sideways otherwise, and room is left at its edges for focus rings; the site's tests measure each
page with everything drawn.

A collapsed solution is not laid out at all (``display: none``) until a reader opens it: the
toggle's own style hid it with no height, which still laid out all the code inside, and the theme
measured it as the page loaded. ``lazy_sections_static/lazy-sections.js`` gives the code blocks and
outputs an opened solution reveals the tab stops the theme gives the rest of the page.

A copy button's tooltip (sphinx-copybutton's) is drawn only while a pointer rests on its button:
its own style hid it without taking it out of the layout, one per code block.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

STATIC = Path(__file__).with_name("lazy_sections_static")


def _configure(app: Sphinx, config: Config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    app.add_css_file("lazy-sections.css")
    app.add_js_file("lazy-sections.js", loading_method="defer")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
