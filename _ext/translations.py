"""What Sphinx's translation machinery misses in this book (the Chinese edition).

- **Glued values inside translated paragraphs.** Sphinx translates a paragraph by parsing its
  translation as a small document of its own, and MyST-NB's glue roles look their values up on
  the document they are parsed in, where a notebook's glued values are not. The first glue
  lookup of each chapter, made while its English source is parsed, keeps the notebook's renderer
  in the chapter's temporary data; a lookup from a translated paragraph of the same chapter then
  borrows it for the one call.
- **Figures' alt texts.** A notebook's figures become images only after reading (MyST-NB picks
  each output's format per builder), too late for Sphinx to extract or translate their alt
  texts. After that step, the gettext build marks each image with an alt text for extraction,
  and a translated build replaces the alt text by its translation from the chapter's catalog.
"""

from __future__ import annotations

from typing import Any

import myst_nb.ext.glue.roles as glue_roles
import myst_nb.ext.glue.utils as glue_utils
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import init as init_locale
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.i18n import docname_to_domain

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


class TranslateAltTexts(SphinxPostTransform):
    """Offer figures' alt texts for translation (gettext build), or translate them."""

    default_priority = 6  # after MyST-NB has made the images (SelectMimeType, 4)

    def run(self, **kwargs: Any) -> None:
        images = [node for node in self.document.findall(nodes.image) if node.get("alt")]
        if self.app.builder.name == "gettext":
            for node in images:
                node["translatable"] = True
            return
        if not self.config.language or self.config.language == "en":
            return
        domain = docname_to_domain(self.env.docname, self.config.gettext_compact)
        dirs = [str(self.app.srcdir / d) for d in self.config.locale_dirs]
        catalog, found = init_locale(dirs, self.config.language, domain)
        if found:
            for node in images:
                node["alt"] = catalog.gettext(node["alt"])


def setup(app: Sphinx) -> dict[str, Any]:
    glue_utils.retrieve_glue_data = glue_roles.retrieve_glue_data = retrieve_glue_data
    app.add_post_transform(TranslateAltTexts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
