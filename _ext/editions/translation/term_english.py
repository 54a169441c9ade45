"""Each term's English at its first use in a chapter: 词元（token）, 查询（query）.

A reader of the Chinese edition meets the English names in the code (``token_embedding_table``,
``query``) and in the tutorials they came from. ``locale/<language>/terminology.txt`` pairs each
English term with its Chinese one; for every pair whose English is a term of the glossary, a
translated build writes the English in parentheses after the Chinese term's first use in each
chapter's text (not in a heading, code, maths, or the glossary itself, which shows the English
beside every term). A term of one character (键, 值) counts only where it is a link's whole
text, since it is part of many other words; a longer one counts in any text (in a link, as its
whole text: not in a section's title a link names), the longest
term matching first (词元嵌入 before 词元), and not inside parentheses. Where the chapter already
gives the English, nothing is added.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from _ext.editions.translation import chapter_of, translated

TERMINOLOGY = "terminology.txt"
LINE = re.compile(r"(\S.*?)\s{2,}(\S.*?)(?:\s+\[not: [^\]]+\])?$")
ASIDE = re.compile(r"\s*\([^)]*\)")
CHINESE_TERM = re.compile(r"[\u4e00-\u9fff]+")
# Where the text is not the chapter's running text.
SKIPPED = (nodes.title, nodes.FixedTextElement, nodes.literal, nodes.math, nodes.raw, addnodes.toctree)


def pairs(text: str, glossary: set[str]) -> dict[str, str]:
    """The Chinese terms of a terminology file's ``text`` whose English is in ``glossary``
    (lower case), each with its English."""
    found = {}
    for line in text.splitlines():
        term = LINE.match(line)
        if not term:
            continue
        english, chinese = (ASIDE.sub("", side).split(" / ") for side in term.groups())
        if len(english) != len(chinese):
            continue
        for en, zh in zip(english, chinese, strict=True):
            if CHINESE_TERM.fullmatch(zh.strip()) and en.strip().lower() in glossary:
                found[zh.strip()] = en.strip()
    return found


def _skipped(node: nodes.Node) -> bool:
    return any(isinstance(parent, SKIPPED) for parent in _parents(node))


def _parents(node: nodes.Node):
    while node is not None:
        yield node
        node = node.parent


def _link(node: nodes.Text) -> nodes.reference | None:
    return next((parent for parent in _parents(node) if isinstance(parent, nodes.reference)), None)


def add_english(document: nodes.document, terms: dict[str, str], docname: str = "") -> list[str]:
    """Write each term's English after its first use in each chapter of ``document``, the page
    ``docname`` (unless the text there gives it already, or the chapter is the glossary); return
    the terms used."""
    if not terms:
        return []
    longest_first = sorted(terms, key=len, reverse=True)
    pattern = re.compile("|".join(map(re.escape, longest_first)))
    used: dict[str, set[str]] = {}  # by chapter
    queue = list(document.findall(nodes.Text))
    while queue:
        text = queue.pop(0)
        chapter = chapter_of(text, docname)
        if _skipped(text) or chapter.endswith("glossary"):
            continue
        done = used.setdefault(chapter, set())
        link = _link(text)
        source = str(text)
        for match in pattern.finditer(source):
            term = match.group()
            if (
                term in done
                or (link is not None and link.astext() != term)
                or (len(term) == 1 and link is None)
            ):
                continue  # in a link, only as its whole text; one character, only as a link
            if source.count("（", 0, match.start()) > source.count("）", 0, match.start()):
                continue  # inside parentheses: the next use gets it
            done.add(term)
            english = terms[term]
            after = _following_text(link or text, source[match.end() :] if link is None else "")
            if re.match(rf"\s*[（(]\s*{re.escape(english)}", after, re.IGNORECASE):
                continue  # the chapter gives the English already
            rest = _insert(text, link, match.end(), f"（{english}）")
            if rest is not None:
                queue.insert(0, rest)  # the rest of this text, now a node of its own
            break
    return sorted(set().union(*used.values()))


def _following_text(node: nodes.Node, rest: str) -> str:
    """What a reader reads right after ``node``, starting with ``rest``, its own text left."""
    following = node.next_node(nodes.Text, include_self=False, descend=True, siblings=True, ascend=True)
    return rest + (str(following) if following is not None else "")


def _insert(text: nodes.Text, link: nodes.reference | None, at: int, words: str) -> nodes.Text | None:
    """Write ``words`` at ``at`` in ``text``, or after the ``link`` it is in; return the rest of
    ``text`` as a node of its own (None after a link)."""
    if link is not None:  # after the link, not inside it
        link.parent.insert(link.parent.index(link) + 1, nodes.Text(words))
        return None
    source = str(text)
    rest = nodes.Text(source[at:])
    text.parent.replace(text, [nodes.Text(source[:at] + words), rest])
    return rest


class AddTermEnglish(SphinxPostTransform):
    """In a translated build, each glossary term's English at its first use in a chapter."""

    default_priority = 900  # after the glossary links are resolved

    def run(self, **kwargs: Any) -> None:
        language = self.app.config.language
        if self.app.builder.name == "gettext" or not translated(language):
            return
        path = Path(self.app.srcdir, self.app.config.locale_dirs[0], language, TERMINOLOGY)
        std = self.env.get_domain("std")
        glossary = {name.lower() for name, _, kind, *_ in std.get_objects() if kind == "term"}
        terms = pairs(path.read_text(encoding="utf-8"), glossary) if path.is_file() else {}
        add_english(self.document, terms, self.env.docname)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_post_transform(AddTermEnglish)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
