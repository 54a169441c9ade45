"""One copy of the interactive figures' script per built page.

Every figure output carries the script so it works on its own (in Jupyter, and
when live code re-runs a cell). On the built site that means one copy per
figure; this extension removes them from the page body and appends a single
copy after the content. Pages without figures are left alone, and a site built
without the extension works the same, only heavier.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx

COPY = re.compile(r"<script data-selfattn-figures>.*?</script>", re.S)


def one_copy(body: str) -> str:
    """``body`` with the copies of the figure script moved to its end, each distinct one once."""
    copies = dict.fromkeys(COPY.findall(body))
    return COPY.sub("", body) + "".join(copies) if copies else body


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if "body" in context:
        context["body"] = one_copy(context["body"])


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
