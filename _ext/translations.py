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
- **Interactive figures' words.** An interactive figure's HTML (``selfattn.figures``) holds its
  title, description and other words, made when the chapter ran. Before MyST-NB picks each
  output's format (the gettext build keeps the PNG), the gettext build offers them as messages of
  the chapter's catalog, and a translated build replaces them in the HTML by their translations.
- **What the site's scripts write.** The figures' script and the live code's write their labels
  and messages through one lookup, ``phrase("English {name}", values)``, that reads the page's
  ``window.selfattnText``. A translated build gives every page that dictionary, as a static
  script made from ``locale/<language>/scripts.json`` (``python -m tools.catalogs`` keeps that
  file in step with the scripts); English pages have none and keep the English.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import myst_nb.ext.glue.roles as glue_roles
import myst_nb.ext.glue.utils as glue_utils
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.locale import init as init_locale
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.i18n import docname_to_domain
from sphinx.util.nodes import traverse_parent

from selfattn.figures.output import map_texts

RENDERER = "nb_renderer"
SCRIPT_TEXTS = "scripts.json"  # in locale/<language>/: the scripts' English texts and their translations
PAGE_TEXT = "page-text.js"  # what a translated site's pages load of it
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


def translated(language: str | None) -> bool:
    """Whether a build in ``language`` is a translated edition."""
    return bool(language) and language != "en"


class ChapterTranslation(SphinxPostTransform):
    """A post-transform that translates with the chapter's catalog."""

    def gettext(self) -> Callable[[str], str]:
        """The chapter's catalog's ``gettext`` (the English text itself when there is none)."""
        domain = docname_to_domain(self.env.docname, self.config.gettext_compact)
        dirs = [str(self.app.srcdir / d) for d in self.config.locale_dirs]
        catalog, found = init_locale(dirs, self.config.language, domain)
        return catalog.gettext if found else str


class TranslateAltTexts(ChapterTranslation):
    """Offer figures' alt texts for translation (gettext build), or translate them."""

    default_priority = 6  # after MyST-NB has made the images (SelectMimeType, 4)

    def run(self, **kwargs: Any) -> None:
        images = [node for node in self.document.findall(nodes.image) if node.get("alt")]
        if self.app.builder.name == "gettext":
            for node in images:
                node["translatable"] = True
            return
        if translated(self.config.language):
            gettext = self.gettext()
            for node in images:
                node["alt"] = gettext(node["alt"])


class figure_words(nodes.Element, addnodes.translatable):
    """The words of one interactive figure, as messages for the gettext build."""

    def extract_original_messages(self) -> Sequence[str]:
        return self["texts"]


def words_of(html: str) -> list[str]:
    """The words of the interactive figures in ``html``, in order."""
    texts: list[str] = []

    def offer(text: str) -> str:
        texts.append(text)
        return text

    map_texts(html, offer)
    return texts


class TranslateFigureWords(ChapterTranslation):
    """Offer interactive figures' words for translation (gettext build), or translate them."""

    default_priority = 3  # before MyST-NB picks each output's format (SelectMimeType, 4)

    def run(self, **kwargs: Any) -> None:
        figures = [
            node
            for node in self.document.findall(nodes.raw)
            if "html" in node.get("format", "").split() and 'class="sa-fig"' in node.astext()
        ]
        if self.app.builder.name == "gettext":
            for node in figures:
                words = figure_words(texts=words_of(node.astext()))
                words.uid = ""  # what the gettext build files a message under
                words.source, words.line = next(
                    ((n.source, n.line) for n in traverse_parent(node) if n.source), (None, None)
                )
                # beside the output's bundle of formats, which MyST-NB replaces by the one it picks
                bundle = next(
                    (n for n in traverse_parent(node) if n.get("nb_element") == "mime_bundle"), node
                )
                bundle.parent.insert(bundle.parent.index(bundle) + 1, words)
        elif translated(self.config.language) and figures:
            gettext = self.gettext()
            for node in figures:
                node.replace(node[0], nodes.Text(map_texts(node.astext(), gettext)))


def page_text_script(app: Sphinx, config: Config) -> None:
    """A translated site: on every page, the translations of what the scripts write (a static
    script made from ``SCRIPT_TEXTS``, loaded before the scripts that read it)."""
    if not translated(config.language):
        return
    for folder in config.locale_dirs:
        path = Path(app.srcdir, folder, config.language, SCRIPT_TEXTS)
        if path.is_file():
            texts = json.dumps(json.loads(path.read_text(encoding="utf-8")), ensure_ascii=False)
            static = Path(app.doctreedir, "page-text")
            static.mkdir(parents=True, exist_ok=True)
            (static / PAGE_TEXT).write_text(f"window.selfattnText = {texts};\n", encoding="utf-8")
            config.html_static_path = [*config.html_static_path, str(static)]
            app.add_js_file(PAGE_TEXT)
            return


def setup(app: Sphinx) -> dict[str, Any]:
    glue_utils.retrieve_glue_data = glue_roles.retrieve_glue_data = retrieve_glue_data
    app.add_post_transform(TranslateAltTexts)
    app.add_post_transform(TranslateFigureWords)
    app.connect("config-inited", page_text_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
