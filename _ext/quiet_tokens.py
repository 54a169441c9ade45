"""Code blocks without the spans that change nothing.

Pygments wraps every token of a code block in a ``<span>`` of its type's class. In the styles the
theme uses for light and dark mode, a name (``n``) or a punctuation mark (``p``) looks exactly
like the block's plain text, yet those two classes are more than half the spans of a chapter's
code, a quarter of the elements of its page, and a browser styles and lays out every one. A
token whose type is drawn like plain text in every style the site offers (the theme's
``pygments_light_style`` and ``pygments_dark_style``) loses its span and keeps its text; every
other token keeps its class. The change is made through ``html-page-context``, the event Sphinx
offers for changing a page's body before it is written.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Text
from sphinx.application import Sphinx

BLOCK = re.compile(r'(<div class="highlight"><pre>)(.*?)(</pre></div>)', re.S)
STYLES = ("theme_pygments_light_style", "theme_pygments_dark_style")  # the theme's options


@cache
def plain_classes(styles: tuple[str, ...]) -> frozenset[str]:
    """The token classes drawn exactly like plain text in every one of ``styles``."""
    found = None
    for name in styles:
        style = get_style_by_name(name)
        text = style.style_for_token(Text)
        same = {css for token, css in STANDARD_TYPES.items() if css and style.style_for_token(token) == text}
        found = same if found is None else found & same
    return frozenset(found or ())


def quiet(body: str, classes: frozenset[str]) -> str:
    """``body`` with the spans of ``classes`` inside its code blocks replaced by their text."""
    if not classes:
        return body
    names = "|".join(map(re.escape, sorted(classes)))
    span = re.compile(rf'<span class="(?:{names})">([^<]*)</span>')
    return BLOCK.sub(lambda block: block[1] + span.sub(r"\1", block[2]) + block[3], body)


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    styles = tuple(context[option] for option in STYLES if context.get(option))
    if styles and context.get("body"):
        context["body"] = quiet(context["body"], plain_classes(styles))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
