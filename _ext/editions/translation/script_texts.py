"""What the site's scripts write.

The figures' script and the live code's write their labels and messages through one lookup,
``phrase("English {name}", values)``, that reads the page's ``window.selfattnText``. A translated
build gives every page that dictionary, as a static script made from
the package's words in that language, ``selfattn/locale/<language>.json`` (``selfattn.language``,
which the package's printed lines read too; ``python -m bookbuild.catalogs`` keeps that file in
step with the package); English pages have none and keep the English.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

from _ext.editions.translation import translated
from selfattn.language import translations

PAGE_TEXT = "page-text.js"  # what a translated site's pages load of it
# Before the extensions' scripts (priority 500), which read it as soon as they run: every one is
# deferred, and deferred scripts run in the order the page names them.
TEXTS_FIRST = 400


def page_text_script(app: Sphinx, config: Config) -> None:
    """A translated site: on every page, the translations of what the scripts write (a static
    script made from the package's words in that language, loaded before the scripts that read it)."""
    if not translated(config.language):
        return
    texts = json.dumps(translations(config.language), ensure_ascii=False)
    static = Path(app.doctreedir, "page-text")
    static.mkdir(parents=True, exist_ok=True)
    (static / PAGE_TEXT).write_text(f"window.selfattnText = {texts};\n", encoding="utf-8")
    config.html_static_path = [*config.html_static_path, str(static)]
    app.add_js_file(PAGE_TEXT, priority=TEXTS_FIRST)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", page_text_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
