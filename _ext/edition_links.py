"""Two editions from one source: every page links to the same page in the other edition.

The English site is the root of the build (``_build/html``), the Chinese one lives beside it in
``zh/`` (``python -m tools.build --language zh_CN``). A button at the top of each page, beside
the theme's own, leads to the page with the same name in the other edition.

The chapters' words come from the message catalogs (``locale/``); the few words the book's own
extensions write around them (the title, the footer, the logo's alt text) are translated here,
by ``say``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders.latex.constants import ADDITIONAL_SETTINGS
from sphinx.config import Config
from sphinx.search.zh import SearchChinese
from translations import translated

TEMPLATES = Path(__file__).with_name("editions_templates")
STATIC = Path(__file__).with_name("editions_static")
# language -> (the edition's name, written in its own language; its folder in the site)
EDITIONS = {"en": ("English", ""), "zh_CN": ("中文", "zh/")}
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
    }
}


def say(language: str | None, english: str, **values: Any) -> str:
    """``english`` in the edition of ``language``, its ``{fields}`` filled in from ``values``."""
    text = WORDS[language][english] if translated(language) else english
    return text.format(**values)


def other_edition(language: str | None, pagename: str) -> tuple[str, str, str]:
    """(name, language tag, relative URL) of ``pagename`` in the other edition."""
    here = EDITIONS.get(language or "en", EDITIONS["en"])
    there_language = "en" if here is not EDITIONS["en"] else "zh_CN"
    name, folder = EDITIONS[there_language]
    to_site_root = "../" * pagename.count("/") + ("../" * here[1].count("/"))
    return name, there_language.replace("_", "-"), f"{to_site_root}{folder}{pagename}.html"


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
    if (config.language or "").startswith("zh"):
        config.html_title = config.project = say(config.language, config.html_title)
        config.author = say(config.language, config.author)
        elements = config.latex_elements
        # XeLaTeX's own settings where Sphinx would switch to xeCJK's for Chinese
        elements["fontenc"] = ADDITIONAL_SETTINGS["xelatex"]["fontenc"]
        elements.setdefault("fvset", ADDITIONAL_SETTINGS["xelatex"]["fvset"])
        elements["preamble"] = elements.get("preamble", "") + CHINESE_LATEX
    config.templates_path = [*config.templates_path, str(TEMPLATES)]
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    header = config.html_theme_options.get("article_header_end", ["article-header-buttons.html"])
    config.html_theme_options["article_header_end"] = [*header, "edition-switch.html"]


class ChineseQueries(SearchChinese):
    """Sphinx's Chinese search, with queries cut into words the way the index was."""

    js_splitter_code = Path(__file__).with_name("editions_search.js").read_text(encoding="utf-8")


def _compact_index(app: Sphinx, exception: Exception | None) -> None:
    """Write the Chinese search index's characters as UTF-8, not as ``\\uXXXX`` escapes.

    Every page loads the index, and an escape takes six bytes where the character takes three.
    """
    index = Path(app.outdir, "searchindex.js")
    if exception or app.builder.name != "html" or not (app.config.language or "").startswith("zh"):
        return
    text = index.read_text(encoding="utf-8")  # as Sphinx writes it (ASCII), or as compacted before
    start, end = text.index("(") + 1, text.rindex(")")
    data = json.loads(text[start:end])
    compact = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    index.write_text(f"{text[:start]}{compact}{text[end:]}", encoding="utf-8")


def _link(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    name, lang, url = other_edition(app.config.language, pagename)
    context["other_edition"] = {"name": name, "lang": lang, "url": url}


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure, priority=400)  # the title, before others use it
    app.connect("html-page-context", _link)
    app.add_css_file("editions.css")
    app.add_search_language(ChineseQueries)
    app.connect("build-finished", _compact_index)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
