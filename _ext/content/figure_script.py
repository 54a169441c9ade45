"""The interactive figures' script as one static file, which every page with figures loads.

Every figure output carries the script so it works on its own (in Jupyter, and when live code
re-runs a cell). On the built site each page's copies are taken out of its body, and the script
is written once, as the output carries it, to ``_static/figures-<hash>.js`` (named by its text):
a browser fetches it once for the whole site, and the page's head loads it with ``defer``, so it
holds up neither the page's parsing nor its first paint. Deferred scripts run in the order the
page names them, so it runs after the head's, among them the translated site's texts that it
reads (``_ext/editions/translation/script_texts.py``). A figure that live code re-runs brings its own copy,
which mounts it (the script defines ``window.selfattnFigures`` once per page); a reader without
JavaScript reads each figure's fallback text. Pages without figures are left alone, and a site
built without the extension works the same, only heavier.

The copies are taken out and the file is written and named in the page's head when the page is
written (``html-page-context``, through ``app.add_js_file``, Sphinx's way to add a script to one
page). Once the site is written (``build-finished``), a script no page loads any more is removed.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from _ext.written_site import loaded, write_text_atomically

COPY = re.compile(r"<script data-selfattn-figures>(.*?)</script>", re.S)
SCRIPT = re.compile(r"\bfigures-[0-9a-f]{16}\.js\b")  # in _static
MARK = "data-selfattn-figures"  # the attribute of every script element that holds or loads it


def taken_out(body: str) -> tuple[str, list[str]]:
    """``body`` without its copies of the figure script, and the text of each distinct one, in order."""
    return COPY.sub("", body), list(dict.fromkeys(COPY.findall(body)))


def script_name(text: str) -> str:
    """The static file that holds the script ``text``."""
    return f"figures-{hashlib.sha256(text.encode()).hexdigest()[:16]}.js"


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.builder.format != "html" or "body" not in context:
        return
    body, scripts = taken_out(context["body"])
    if not scripts:
        return
    static = Path(app.outdir, "_static")
    static.mkdir(parents=True, exist_ok=True)
    for text in scripts:
        name = script_name(text)
        if not (static / name).is_file():
            write_text_atomically(static / name, text)
        app.add_js_file(name, loading_method="defer", **{MARK: ""})
    context["body"] = body


def _remove_unloaded(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    kept = loaded(out, SCRIPT)
    for path in (out / "_static").glob("figures-*.js"):
        if SCRIPT.fullmatch(path.name) and path.name not in kept:
            path.unlink()


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _remove_unloaded)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
