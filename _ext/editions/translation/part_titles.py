"""Parts' titles, and the PDF's.

sphinx-external-toc adds the root page's toctrees after Sphinx has translated the page, so their
captions (the parts of ``_toc.yml``, which the PDF prints as part titles) would stay English; they
are translated from the root page's catalog once inserted. Jupyter Book sets the PDF's title
(``latex_documents``) from ``_config.yml`` after Sphinx has started; it is translated before the
pages are read, from the root page's catalog. The name of the back matter's part, which the PDF's
style sets apart (``pdf/sabook.sty``), goes into the preamble (``latex_elements``) as Sphinx
starts, from the same catalog.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.transforms import SphinxTransform
from sphinx.util.i18n import docname_to_domain

from _ext.editions.translation import catalog, translated

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
    """The translated PDF's title (Jupyter Book sets it after Sphinx has started)."""
    translations = catalog(app, app.config.root_doc)
    if app.builder.name != "latex" or translations is None:
        return
    app.config.latex_documents = [
        (start, target, translations.gettext(title), *rest)
        for start, target, title, *rest in app.config.latex_documents
    ]


def name_the_back_matter(app: Sphinx, config: Config) -> None:
    """The back matter's translated name, for the PDF's style, in the preamble (``latex_elements``,
    set before the LaTeX builder reads it). It is read from the root page's catalog as written
    (``.po``): Sphinx compiles the catalogs only later."""
    if not translated(config.language):
        return
    domain = docname_to_domain(config.root_doc, config.gettext_compact)
    for folder in config.locale_dirs:
        po = Path(app.srcdir, folder, config.language, "LC_MESSAGES", f"{domain}.po")
        if po.is_file():
            with po.open("rb") as file:
                message = read_po(file).get(BACK_MATTER)
            if message is not None and message.string and not message.fuzzy:
                command = f"\n\\renewcommand\\sabookbackmattername{{{message.string}}}\n"
                config.latex_elements = {
                    **config.latex_elements,
                    "preamble": config.latex_elements.get("preamble", "") + command,
                }
            return


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(TranslateCaptions)
    # after sphinx-external-toc has set root_doc from _toc.yml (its config-inited handler, at 900)
    app.connect("config-inited", name_the_back_matter, priority=950)
    app.connect("env-before-read-docs", translate_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
