"""The EPUB edition: the book's pages as an e-reader shows them, with nothing epubcheck rejects.

Sphinx's ``epub`` builder writes the EPUB 3 (``make epub``, ``bookbuild.build``) from the chapters
as executed for the site; its ``epub`` theme has none of the site's scripts. This extension gives
it what the site's extensions, written for a browser, leave out or add:

- its metadata: the book's title (the site's, in the edition's language), the language as a
  language tag (``zh-CN``), also on every page's ``<html>`` so that an e-reader picks the fonts
  for it, an identifier that stays the same from one build to the next (the address the site
  offers the file at, ``html.baseurl``), and the book's author as its contributor and its title
  as its description (both otherwise "unknown");
- style sheets an e-reader reads: the epub theme's, Pygments', those of the book's content
  (math, exercises, sphinx-design's boxes, folded cells) and ``epub_edition_static/epub-edition.css``;
  not the site's own, nor MyST-NB's, whose newer selectors (``:has()``, nesting) epubcheck rejects;
- pages that run no script: an e-reader may run none, and the live code, the only script left in
  a page's body, needs a kernel the reader does not have; so every script is left out, with the
  live code's button;
- pages that are valid XHTML where the site's HTML is only tolerated by browsers: the summary of
  a folded code cell holds its prompts as spans, not paragraphs (MyST-NB's), and each id is given
  once (sphinx-exercise repeats its own);
- the files its pages use, and no other: Sphinx would pack every file of its output folder, where
  the site's extensions write theirs too (thebe, the favicon, the readers' notebooks); the
  EPUB holds its pages and what they and their style sheets refer to;
- packed once the build has finished, not before (Sphinx's way): MyST-NB and sphinx-exercise
  write the style sheets the pages load when it has (``build-finished``);
- no header: the site's theme (sphinx-book-theme) still adds its header's buttons to every page's
  context, launch, repository, issues, edit, download, for a page that never shows them (they need
  the repository's details, which only the site's theme options give); they are switched off;
- a manifest that declares each page holding MathML (KaTeX's, ``_ext/content/katex_math.py``) or
  an SVG drawing, as EPUB 3 requires (Sphinx declares neither).

The interactive figures show their PNG, as in the PDF (``nb_mime_priority_overrides`` in
``_config.yml``).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin

from sphinx.application import Sphinx
from sphinx.builders.epub3 import HTML_TAG, Epub3Builder
from sphinx.config import Config

from _ext.content.live_code import BUTTON_PLACE
from _ext.editions.edition_links import EDITIONS

SCRIPT = re.compile(r"<script\b.*?</script>\s*", re.S)
SUMMARY = re.compile(r"<summary>.*?</summary>", re.S)
PARAGRAPH_TAG = re.compile(r"<(/?)p\b")
ID = re.compile(r'\sid="([^"]*)"')
# What a page or a style sheet refers to within the EPUB: an address without a scheme
PAGE_REFERENCE = re.compile(r'\s(?:href|src)="([^"#:?]+)[^"]*"')
STYLE_REFERENCE = re.compile(r"""url\(\s*["']?([^"')#:?]+)""")
NAV = "nav.xhtml"  # Sphinx's, written after the manifest
STATIC = Path(__file__).with_name("epub_edition_static")
STYLE = "epub-edition.css"
# The style sheets the EPUB's pages load (by name): the theme's, Pygments', and the content's
STYLES = {
    STYLE,
    "epub.css",
    "pygments.css",
    "katex-math.css",
    "exercise.css",
    "sphinx-design.min.css",
    "togglebutton.css",
}
# A page's entry in content.opf, as Sphinx's template writes it
PAGE_ITEM = re.compile(r'<item id="[^"]*" href="([^"]*\.xhtml)" media-type="application/xhtml\+xml" />')
# EPUB 3's manifest properties of a page, and what in the page calls for each
PAGE_PROPERTIES = {"mathml": re.compile(r"<math\b"), "svg": re.compile(r"<svg\b")}


class EpubEdition(Epub3Builder):
    """Sphinx's EPUB 3 builder, with each page's language and manifest properties declared."""

    def toc_metadata(self, level: int, navpoints: list) -> dict[str, Any]:
        """toc.ncx's metadata, its identifier the book's (Sphinx gives the identifier's XML id)."""
        return {**super().toc_metadata(level, navpoints), "uid": html.escape(self.config.epub_identifier)}

    def handle_finish(self) -> None:
        """Nothing yet: the EPUB is packed once the build has finished (``_pack``)."""

    def prepare_writing(self, docnames: set[str]) -> None:
        super().prepare_writing(docnames)
        language = self.config.epub_language
        self.globalcontext["html_tag"] = HTML_TAG.replace(">", f' lang="{language}" xml:lang="{language}">')

    def build_content(self) -> None:
        folder = Path(self.outdir)
        every = {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}
        unused = sorted(every - used_files(folder))
        self.config.epub_exclude_files = [*self.config.epub_exclude_files, *unused]
        super().build_content()
        opf = Path(self.outdir, "content.opf")
        text = opf.read_text(encoding="utf-8")
        opf.write_text(PAGE_ITEM.sub(self._declared, text), encoding="utf-8")

    def _declared(self, item: re.Match[str]) -> str:
        page = Path(self.outdir, item.group(1)).read_text(encoding="utf-8")
        found = [name for name, marker in PAGE_PROPERTIES.items() if marker.search(page)]
        return item.group(0).replace(" />", f' properties="{" ".join(found)}" />') if found else item.group(0)


def used_files(folder: Path) -> set[str]:
    """The files of an EPUB's ``folder`` that it holds: its pages, and every file they and the
    style sheets they load refer to (paths within ``folder``)."""
    pages = [page for page in folder.rglob("*.xhtml") if page.name != NAV]
    used, unread = {page.relative_to(folder).as_posix() for page in pages}, pages
    while unread:
        path = unread.pop()
        pattern = STYLE_REFERENCE if path.suffix == ".css" else PAGE_REFERENCE
        for reference in pattern.findall(path.read_text(encoding="utf-8", errors="replace")):
            target = (path.parent / unquote(reference)).resolve()
            if not target.is_file() or not target.is_relative_to(folder.resolve()):
                continue
            name = target.relative_to(folder.resolve()).as_posix()
            if name not in used:
                used.add(name)
                unread.append(target)
    return used


def _configure(app: Sphinx, config: Config) -> None:
    language = config.language or "en"
    config.epub_title = config.html_title
    config.epub_language = language.replace("_", "-")
    folder = EDITIONS.get(language, EDITIONS["en"])[1]
    config.epub_identifier = urljoin(config.html_baseurl, f"{folder}{config.epub_basename}.epub")
    config.epub_scheme = "URL"
    config.epub_contributor = config.author
    config.epub_description = config.html_title


def _epub_builder(app: Sphinx) -> None:
    """The EPUB's style sheet, and no header: its buttons switched off."""
    if app.builder.name == EpubEdition.name:
        app.config.html_static_path.append(str(STATIC))
        app.add_css_file(STYLE)
        options = app.config.html_theme_options
        options["launch_buttons"] = {}
        options.update(
            {name: False for name in options if name.startswith("use_") and name.endswith("_button")}
        )


def epub_body(body: str) -> str:
    """A page's body as the EPUB holds it: no script and no live-code button, a summary's
    paragraphs made spans, each id kept at its first element only."""
    body = SCRIPT.sub("", body).replace(BUTTON_PLACE, "")
    body = SUMMARY.sub(lambda summary: PARAGRAPH_TAG.sub(r"<\1span", summary.group()), body)
    seen: set[str] = set()

    def once(attribute: re.Match[str]) -> str:
        if attribute.group(1) in seen:
            return ""
        seen.add(attribute.group(1))
        return attribute.group()

    return ID.sub(once, body)


def _epub_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if app.builder.name != EpubEdition.name:
        return
    context["script_files"] = []
    context["css_files"] = [css for css in context["css_files"] if Path(css.filename).name in STYLES]
    if "body" in context:
        context["body"] = epub_body(context["body"])


def _pack(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and isinstance(app.builder, EpubEdition):
        Epub3Builder.handle_finish(app.builder)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_builder(EpubEdition, override=True)
    # after the Chinese edition's title and author (_ext/editions/chinese_edition.py)
    app.connect("config-inited", _configure, priority=600)
    app.connect("builder-inited", _epub_builder)
    app.connect("html-page-context", _epub_page, priority=900)
    app.connect("build-finished", _pack, priority=900)  # after the other extensions' files
    return {"parallel_read_safe": True, "parallel_write_safe": True}
