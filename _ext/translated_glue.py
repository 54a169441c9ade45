"""Glued values inside translated paragraphs (the Chinese edition).

Sphinx translates a paragraph by parsing its translation as a small document of its own, and
MyST-NB's glue roles look their values up on the document they are parsed in, where a
notebook's glued values are not. The first glue lookup of each chapter, made while its English
source is parsed, keeps the notebook's renderer in the chapter's temporary data; a lookup from a
translated paragraph of the same chapter then borrows it for the one call.
"""

from __future__ import annotations

from typing import Any

import myst_nb.ext.glue.roles as glue_roles
import myst_nb.ext.glue.utils as glue_utils
from docutils import nodes
from sphinx.application import Sphinx

RENDERER = "nb_renderer"
_retrieve = glue_utils.retrieve_glue_data


def retrieve_glue_data(document: nodes.document, key: str) -> Any:
    """MyST-NB's lookup, for a translated paragraph too."""
    kept = document.settings.env.temp_data
    if RENDERER in document:
        kept[RENDERER] = document[RENDERER]
        return _retrieve(document, key)
    if RENDERER not in kept:
        return _retrieve(document, key)
    document[RENDERER] = kept[RENDERER]
    try:
        return _retrieve(document, key)
    finally:
        del document[RENDERER]  # a renderer cannot be pickled with the doctree


def setup(app: Sphinx) -> dict[str, Any]:
    glue_utils.retrieve_glue_data = glue_roles.retrieve_glue_data = retrieve_glue_data
    return {"parallel_read_safe": True, "parallel_write_safe": True}
