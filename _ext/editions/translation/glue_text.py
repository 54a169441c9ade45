"""Glued values inside translated paragraphs.

Sphinx translates a paragraph by parsing its translation as a small document of its own, and
MyST-NB's glue roles look their values up on the document they are parsed in, where a notebook's
glued values are not. The book's ``{glue:text}`` role is MyST-NB's own, subclassed: its first
lookup in each chapter, made while the English source is parsed, keeps the notebook's renderer in
the chapter's temporary data, and a lookup from a translated paragraph of the same chapter then
borrows it for the one call. It replaces MyST-NB's role in the ``glue`` domain through Sphinx's
``add_role_to_domain`` (``override``), the registry's public way to do so.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from myst_nb.ext.glue.roles import PasteTextRole
from sphinx.application import Sphinx

RENDERER = "nb_renderer"  # where MyST-NB keeps a notebook's renderer on its document (private:
# CONTRIBUTING.md, "Other packages' private parts", "glue renderer")


class PasteTextRoleTranslated(PasteTextRole):
    """``{glue:text}``, in a translated paragraph too."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        kept = self.document.settings.env.temp_data
        if RENDERER in self.document:
            kept[RENDERER] = self.document[RENDERER]
            return super().run()
        if RENDERER not in kept:
            return super().run()
        self.document[RENDERER] = kept[RENDERER]
        try:
            return super().run()
        finally:
            del self.document[RENDERER]  # a renderer cannot be pickled with the doctree


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("myst_nb")  # its glue domain first
    app.add_role_to_domain("glue", "text", PasteTextRoleTranslated(), override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
