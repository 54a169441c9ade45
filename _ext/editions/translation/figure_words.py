"""Interactive figures' words.

An interactive figure's HTML (``selfattn.figures``) holds its title, description and other words,
made when the chapter ran. Before MyST-NB picks each output's format (the gettext build keeps the
PNG), the gettext build offers them as messages of the chapter's catalog, and a translated build
replaces them in the HTML by their translations (:func:`map_texts`).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.nodes import traverse_parent

from _ext.editions.translation import catalog
from selfattn.figures.output import TEXT_KEYS, Words, embedded_json

# The parts of a figure's HTML that hold words: (opening tag, text, closing tag).
FIGURE = re.compile(r'<figure class="sa-fig".*?</figure>', re.S)
WORDS = re.compile(r'(<(figcaption|p) class="sa-(?:title|sr|fallback)"[^>]*>)([^<]*)(</\2>)')
DATA = re.compile(r'(<script type="application/json" class="sa-data">)(.*?)(</script>)', re.S)
# Where a figure keeps the templates of its data's Words: [[path into the data, words], ...].
TEMPLATES = re.compile(r'(<script type="application/json" class="sa-words">)(.*?)(</script>)', re.S)
TEMPLATE = re.compile(r'data-words="([^"]*)"')


def _put(data, path: list, value) -> None:
    for step in path[:-1]:
        data = data[step]
    data[path[-1]] = value


def _data_texts(value, change: Callable[[str], str], words: bool = False):
    """``value`` (a figure's data) with ``change`` applied to its words: every string under a key of
    TEXT_KEYS (``words``: ``value`` is under one)."""
    if isinstance(value, str):
        return change(value) if words else value
    if isinstance(value, list):
        return [_data_texts(item, change, words) for item in value]
    if isinstance(value, dict):
        return {key: _data_texts(item, change, words or key in TEXT_KEYS) for key, item in value.items()}
    return value


def _unembedded(text: str):
    return json.loads(text.replace("<\\/", "</").replace("<\\!--", "<!--"))


def map_texts(page: str, change: Callable[[str], str]) -> str:
    """``page`` with ``change`` applied to every text of its figures a reader reads as words.

    The texts, in order: each figure's title, description and fallback, then its data's strings
    under :data:`TEXT_KEYS`, then the templates of its data's Words. For :class:`Words`,
    ``change`` gets the template (and those of the Words among its values), and the values are
    filled in after. Everything else is kept as it is, byte for byte.
    """

    def words(match: re.Match) -> str:
        opening, _, text, closing = match.groups()
        template = TEMPLATE.search(opening)
        if template:
            text = Words.from_json(json.loads(html.unescape(template.group(1)))).render(change)
        else:
            text = change(html.unescape(text))
        return opening + html.escape(text) + closing

    def figure(match: re.Match) -> str:
        fig = WORDS.sub(words, match.group())
        templates = TEMPLATES.search(fig)
        placed = _unembedded(templates.group(2)) if templates else []

        def data(found: re.Match) -> str:
            value = _unembedded(found.group(2))
            for path, _ in placed:
                _put(value, path, None)  # not offered as plain text: its template is
            value = _data_texts(value, change)
            for path, template in placed:
                _put(value, path, Words.from_json(template).render(change))
            return found.group(1) + embedded_json(value) + found.group(3)

        return DATA.sub(data, fig)

    return FIGURE.sub(figure, page)


class figure_words(nodes.Element, addnodes.translatable):
    """The words of one interactive figure, as messages for the gettext build."""

    def extract_original_messages(self) -> Sequence[str]:
        return self["texts"]


def offer(node: nodes.Node, texts: list[str]) -> None:
    """Offer ``texts``, the words of the figure in ``node`` (an output) or of a code cell's
    source, as messages of the gettext build, filed under the node's place in its chapter."""
    words = figure_words(texts=texts)
    words.uid = ""  # what the gettext build files a message under
    places = ((n.source, n.line) for n in traverse_parent(node) if n.source)
    words.source, words.line = next(places, (None, None))
    # beside the output's bundle of formats, which MyST-NB replaces by the one it picks
    bundle = next((n for n in traverse_parent(node) if n.get("nb_element") == "mime_bundle"), node)
    bundle.parent.insert(bundle.parent.index(bundle) + 1, words)


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
                offer(node, words_of(node.astext()))
        elif figures and (translations := catalog(self.app, self.env.docname)) is not None:
            for node in figures:
                node.replace(node[0], nodes.Text(map_texts(node.astext(), translations.gettext)))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_post_transform(TranslateFigureWords)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
