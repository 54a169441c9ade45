"""The Chinese edition: its title and author, its fonts, its PDF's settings, and its search.

The chapters' words come from the message catalogs (``locale/``, ``_ext.editions.translation``); this is
what the Chinese edition needs besides: the book's title and author in Chinese (and the button
that shows a cell's hidden code), the site's fonts
for Chinese text named (``chinese_edition_static/chinese-fonts.css``: a phone's browser that has
to look for them draws the page's first screen later), XeLaTeX set for Chinese text, and a search
that cuts a query into words the way the index was cut.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import jieba
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.builders.latex.constants import ADDITIONAL_SETTINGS
from sphinx.config import Config
from sphinx.search.zh import SearchChinese
from sphinx.transforms.post_transforms import SphinxPostTransform

from _ext.editions.translation import say

STATIC = Path(__file__).with_name("chinese_edition_static")  # chinese-fonts.css


def chinese(language: str | None) -> bool:
    return (language or "").startswith("zh")


# The Chinese PDF: the book's fonts already switch to Noto CJK for Chinese text (pdf/sabook.sty);
# XeTeX may break a line between any two Chinese characters. (Sphinx would load xeCJK, which
# needs TeX Live's Chinese collection: a hundred megabytes of packages more.) The names LaTeX
# prints are English (TeX Live has no Chinese Babel): the contents, the introduction, the parts
# ("第 I 部分": \partname is only ever followed by the part's number), the chapters' heading line
# ("第 3 章") and the running head's comma are set in Chinese here (its "Version" is in WORDS).
CHINESE_LATEX = r"""
\XeTeXlinebreaklocale "zh"
\XeTeXlinebreakskip=0pt plus 1pt
\renewcommand\sabookintroname{引言}
\AtBeginDocument{\renewcommand\contentsname{目录}\def\partname#1\thepart{第\,\thepart\,部分}}
\renewcommand\DOCH{\raggedleft\CNV\FmN{第}\,\CNoV\thechapter\,\CNV\FmN{章}\par\nobreak\vskip 40pt}
\renewcommand\sphinxheadercomma{，}
"""


def _configure(app: Sphinx, config: Config) -> None:
    if chinese(config.language):
        config.html_title = config.project = say(config.language, config.html_title)
        config.author = say(config.language, config.author)
        # the button of a cell whose code is hidden (the book hides only cells' code)
        config.nb_code_prompt_show = say(config.language, config.nb_code_prompt_show)
        config.nb_code_prompt_hide = say(config.language, config.nb_code_prompt_hide)
        config.html_static_path = [*config.html_static_path, str(STATIC)]
        app.add_css_file("chinese-fonts.css")
        elements = config.latex_elements
        # XeLaTeX's own settings where Sphinx would switch to xeCJK's for Chinese
        elements["fontenc"] = ADDITIONAL_SETTINGS["xelatex"]["fontenc"]
        elements.setdefault("fvset", ADDITIONAL_SETTINGS["xelatex"]["fvset"])
        elements["preamble"] = elements.get("preamble", "") + CHINESE_LATEX


# XeTeX breaks lines only inside a run of text, and a link starts a new one: "查询（query）、键（key）"
# with both terms linked would not break after 、 and runs into the margin of a table's column.
# A link that starts with a Chinese character gets the break Chinese text has between any two
# characters, unless what comes before it opens a bracket or a quote, or is a space.
LINK_BREAK = r"\hskip\XeTeXlinebreakskip\relax "
CHINESE_START = re.compile(r"[\u3400-\u9fff]")
NO_BREAK_AFTER = "（“「《‘〈【"


def break_before_links(document: nodes.Node) -> int:
    """Let a LaTeX line break before each link of ``document`` that starts with a Chinese character
    right after Chinese text (not in a title or code); return how many."""
    count = 0
    for link in list(document.findall(nodes.reference)):
        parent = link.parent
        at = parent.index(link)
        before = str(parent[at - 1]) if at and isinstance(parent[at - 1], nodes.Text) else ""
        if (
            before[-1:].strip()
            and before[-1] not in NO_BREAK_AFTER
            and CHINESE_START.match(link.astext())
            and not _in_title_or_code(parent)
        ):
            parent.insert(at, nodes.raw("", LINK_BREAK, format="latex"))
            count += 1
    return count


def _in_title_or_code(node: nodes.Node | None) -> bool:
    while node is not None:
        if isinstance(node, (nodes.title, nodes.FixedTextElement)):
            return True
        node = node.parent
    return False


class BreakBeforeLinks(SphinxPostTransform):
    """In the Chinese PDF, a line may break before a link as between two Chinese characters."""

    builders = ("latex",)
    default_priority = 950  # after each term's English is written (term_english, 900)

    def run(self, **kwargs: Any) -> None:
        if chinese(self.app.config.language):
            break_before_links(self.document)


class ChineseQueries(SearchChinese):
    """Sphinx's Chinese search, with queries cut into words the way the index was."""

    js_splitter_code = Path(__file__).with_name("chinese_search.js").read_text(encoding="utf-8")

    def init(self, options: dict) -> None:
        jieba.setLogLevel(logging.WARNING)  # jieba cuts the index's words; it need not say it loads
        super().init(options)


def _compact_index(app: Sphinx, exception: Exception | None) -> None:
    """Write the Chinese search index's characters as UTF-8, not as ``\\uXXXX`` escapes.

    Every page loads the index, and an escape takes six bytes where the character takes three.
    """
    index = Path(app.outdir, "searchindex.js")
    if exception or app.builder.name != "html" or not chinese(app.config.language):
        return
    text = index.read_text(encoding="utf-8")  # as Sphinx writes it (ASCII), or as compacted before
    start, end = text.index("(") + 1, text.rindex(")")
    data = json.loads(text[start:end])
    compact = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    index.write_text(f"{text[:start]}{compact}{text[end:]}", encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure, priority=400)  # the title, before others use it
    app.add_search_language(ChineseQueries)
    app.add_post_transform(BreakBeforeLinks)
    app.connect("build-finished", _compact_index)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
