"""Parts' titles, and the PDF's.

sphinx-external-toc adds the root page's toctrees after Sphinx has translated the page, so their
captions (the parts of ``_toc.yml``, which the PDF prints as part titles) would stay English; they
are translated from the root page's catalog once inserted. Jupyter Book sets the PDF's title
(``latex_documents``) from ``_config.yml`` after Sphinx has started; it is translated before the
pages are read, from the root page's catalog, as is the name of the back matter's part, which the
PDF's style sets apart (``pdf/sabook.sty``).
"""

from __future__ import annotations

from typing import Any

from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.transforms import SphinxTransform

from _ext.translation import catalog

BACK_MATTER = "Back matter"  # the last part of _toc.yml, as pdf/sabook.sty names it


class TranslateCaptions(SphinxTransform):
    """Translate the captions of the toctrees sphinx-external-toc has inserted."""

    default_priority = 150  # after InsertToctrees (100), before the toctrees are collected

    def apply(self, **kwargs: Any) -> None:
        translations = catalog(self.app, self.env.docname)
        if translations is None:
            return
        for node in self.document.findall(addnodes.toctree):
            if node.get("caption"):
                node["caption"] = translations.gettext(node["caption"])


def translate_pdf(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """The translated PDF's title, and its name for the back matter."""
    translations = catalog(app, app.config.root_doc)
    if app.builder.name != "latex" or translations is None:
        return
    app.config.latex_documents = [
        (start, target, translations.gettext(title), *rest)
        for start, target, title, *rest in app.config.latex_documents
    ]
    back_matter = translations.gettext(BACK_MATTER)
    # private: CONTRIBUTING.md, "Other packages' private parts", "LaTeX preamble"
    app.builder.context["preamble"] += f"\n\\renewcommand\\sabookbackmattername{{{back_matter}}}\n"


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(TranslateCaptions)
    app.connect("env-before-read-docs", translate_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
