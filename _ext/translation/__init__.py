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
- **Exercises' titles.** sphinx-exercise makes a title's words without a source, so Sphinx takes
  them for its own words and neither extracts nor translates them; they get their exercise's.
  The gettext build extracts messages after sphinx-exercise has merged each title into a plain
  one, so there each title's words are wrapped, just before, in an element of their own. A
  solution's title, which repeats its exercise's, is taken from the translated exercise.
- **Parts' titles.** sphinx-external-toc adds the root page's toctrees after Sphinx has translated
  the page, so their captions (the parts of ``_toc.yml``, which the PDF prints as part titles)
  would stay English; they are translated from the root page's catalog once inserted.
- **The PDF's title.** Jupyter Book sets it (``latex_documents``) from ``_config.yml`` after
  Sphinx has started; it is translated before the pages are read, from the root page's catalog,
  as is the name of the back matter's part, which the PDF's style sets apart (``pdf/sabook.sty``).
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
from collections.abc import Sequence
from gettext import NullTranslations
from pathlib import Path
from typing import Any

import myst_nb.ext.glue.roles as glue_roles
import myst_nb.ext.glue.utils as glue_utils
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.locale import init as init_locale
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.i18n import docname_to_domain
from sphinx.util.nodes import traverse_parent
from sphinx_exercise.nodes import exercise_subtitle

from selfattn.figures.output import map_texts

RENDERER = "nb_renderer"
BACK_MATTER = "Back matter"  # the last part of _toc.yml, as pdf/sabook.sty names it
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
    """Whether a build in ``language`` makes a translated edition (not the English source)."""
    return bool(language) and language != "en"


def catalog(app: Sphinx, docname: str) -> NullTranslations | None:
    """The translated build's catalog for ``docname``, or None (English, gettext, no catalog)."""
    language = app.config.language
    if app.builder.name == "gettext" or not translated(language):
        return None
    domain = docname_to_domain(docname, app.config.gettext_compact)
    translations, found = init_locale([str(app.srcdir / d) for d in app.config.locale_dirs], language, domain)
    return translations if found else None


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


class SourceExerciseTitles(SphinxTransform):
    """Give each exercise's title its exercise's source, so it is extracted and translated."""

    default_priority = 19  # before Sphinx translates (Locale, 20)

    def apply(self, **kwargs: Any) -> None:
        for node in self.document.findall(exercise_subtitle):
            exercise = node.parent.parent
            node.source = exercise.source or self.document["source"]
            node.line = exercise.line or 1
            node.rawsource = node.astext()  # the message, as written (before smart quotes)


class ShareExerciseTitles(SphinxTransform):
    """Give solutions their exercise's translated title.

    sphinx-exercise keeps a copy of each exercise, made before Sphinx translated it, for the
    titles of its solutions; this copy is made again after.
    """

    default_priority = 21  # after Sphinx translates (Locale, 20)

    def apply(self, **kwargs: Any) -> None:
        registry = getattr(self.env, "sphinx_exercise_registry", {})
        for node in self.document.findall(exercise_subtitle):
            exercise = node.parent.parent
            if exercise.get("label") in registry:
                registry[exercise["label"]]["node"] = exercise.deepcopy()


class KeepExerciseTitles(SphinxPostTransform):
    """Gettext build: keep each exercise title's words extractable through sphinx-exercise's merge."""

    default_priority = 19  # before sphinx-exercise merges the titles (ResolveTitlesInExercises, 20)
    builders = ("gettext",)

    def run(self, **kwargs: Any) -> None:
        for node in self.document.findall(exercise_subtitle):
            words = nodes.inline(node.rawsource, "", *node.children, translatable=True)
            words.source, words.line, words.uid = node.source, node.line, node.uid
            node.children = [words]


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
    app.builder.context["preamble"] += f"\n\\renewcommand\\sabookbackmattername{{{back_matter}}}\n"


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


class TranslateFigureWords(SphinxPostTransform):
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
        elif figures and (translations := catalog(self.app, self.env.docname)) is not None:
            for node in figures:
                node.replace(node[0], nodes.Text(map_texts(node.astext(), translations.gettext)))


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
    app.add_transform(SourceExerciseTitles)
    app.add_transform(ShareExerciseTitles)
    app.add_post_transform(KeepExerciseTitles)
    app.add_transform(TranslateCaptions)
    app.connect("env-before-read-docs", translate_pdf)
    app.add_post_transform(TranslateFigureWords)
    app.connect("config-inited", page_text_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
