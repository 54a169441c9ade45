"""Figures' alt texts.

A notebook's figures become images only after reading (MyST-NB picks each output's format per
builder), too late for Sphinx to extract or translate their alt texts. After that step, the
gettext build marks each image with an alt text for extraction, and a translated build replaces
the alt text by its translation from the chapter's catalog.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from _ext.editions.translation import catalog


class TranslateAltTexts(SphinxPostTransform):
    """Offer figures' alt texts for translation (gettext build), or translate them."""

    default_priority = 6  # after MyST-NB has made the images (SelectMimeType, 4)

    def run(self, **kwargs: Any) -> None:
        images = [node for node in self.document.findall(nodes.image) if node.get("alt")]
        if self.app.builder.name == "gettext":
            for node in images:
                node["translatable"] = True
            return
        translations = catalog(self.app, self.env.docname)
        if translations is not None:
            for node in images:
                node["alt"] = translations.gettext(node["alt"])


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_post_transform(TranslateAltTexts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
