"""What Sphinx's translation machinery misses in this book (the Chinese edition), one gap a module.

- ``glue_text``: glued values inside translated paragraphs;
- ``alt_texts``: the figures' alt texts;
- ``exercise_titles``: the exercises' and solutions' titles;
- ``part_titles``: the parts' titles (the toctrees' captions) and the PDF's title;
- ``figure_words``: the words of the interactive figures;
- ``figure_text``: the words drawn in the figures' images;
- ``code_text``: the code cells' comments and what they print;
- ``package_lines``: the lines the package printed in the cells' outputs;
- ``term_english``: each glossary term's English at its first use in a chapter;
- ``script_texts``: what the site's scripts write.

This module holds what they share: whether a build translates, the chapter's catalog (and which
chapter a node comes from, in the PDF's one doctree), and the few
words the book's own extensions write around the chapters (the title, the footer, the logo's alt
text), translated by :func:`say`. ``_ext.editions.translation`` loads every one of them.
"""

from __future__ import annotations

from gettext import NullTranslations
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import init as init_locale
from sphinx.util.i18n import docname_to_domain

GAPS = (
    "glue_text",
    "alt_texts",
    "exercise_titles",
    "part_titles",
    "figure_words",
    "figure_text",
    "code_text",
    "package_lines",
    "term_english",
    "script_texts",
)
# What the extensions write, in each edition other than the English one.
WORDS = {
    "zh_CN": {
        "Self-attention from scratch": "从零实现自注意力",
        "The Self-attention from scratch authors": "《从零实现自注意力》编写组",
        "{title}: home": "{title}：首页",
        "{day} {month} {year}": "{year} 年 {month_number} 月 {day} 日",
        "Version {version}, built {date}{commit}.": "版本 {version}，构建于 {date}{commit}。",
        " from commit {commit}": "，提交 {commit}",
        "Built {date}{commit}": "构建于 {date}{commit}",
        "Version": "版本",
        "Question {number}": "第 {number} 题",
        "Answer": "答案",
        "Answers to the quick questions": "小测验答案",
        "Show code cell {type}": "显示代码",
        "Hide code cell {type}": "隐藏代码",
        "The book's package at the version this notebook was built from, and what": (
            "本书的软件包（与构建这个笔记本的版本相同）及它所需的其他包"
        ),
        "it needs besides torch, which stays as it is here. Run this first.": (
            "（torch 保留这台机器上已有的版本）。请先运行这个单元格。"
        ),
        "selfattn {version} installed, with torch {torch} ({device}).": (
            "已安装 selfattn {version}，torch {torch}（{device}）。"
        ),
        "Download this chapter as a notebook": "下载本章的笔记本",
        "Run this chapter's notebook": "运行本章的笔记本",
        "Open in {name}": "在 {name} 中打开",
    }
}


def translated(language: str | None) -> bool:
    """Whether a build in ``language`` makes a translated edition (not the English source)."""
    return bool(language) and language != "en"


def say(language: str | None, english: str, **values: Any) -> str:
    """``english`` in the edition of ``language``, its ``{fields}`` filled in from ``values``."""
    text = WORDS[language][english] if translated(language) else english
    return text.format(**values)


def chapter_of(node: nodes.Node, docname: str) -> str:
    """The chapter ``node`` comes from: the page's own, ``docname``, or in the PDF's one doctree
    (a page with every chapter inlined) the chapter it was inlined from, which Sphinx marks on a
    ``start_of_file`` node and sphinx-jupyterbook-latex on the chapter's section (``docname``)."""
    while node is not None:
        if isinstance(node, nodes.Element) and node.get("docname"):
            return node["docname"]
        node = node.parent
    return docname


def catalog(app: Sphinx, docname: str) -> NullTranslations | None:
    """The translated build's catalog for ``docname``, or None (English, gettext, no catalog)."""
    language = app.config.language
    if app.builder.name == "gettext" or not translated(language):
        return None
    domain = docname_to_domain(docname, app.config.gettext_compact)
    translations, found = init_locale([str(app.srcdir / d) for d in app.config.locale_dirs], language, domain)
    return translations if found else None


def setup(app: Sphinx) -> dict[str, Any]:
    for gap in GAPS:
        app.setup_extension(f"{__name__}.{gap}")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
