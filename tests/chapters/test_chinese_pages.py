"""The Chinese edition's pages as a Chinese reader meets them: code cells whose comments and
printed words are Chinese, while the code and every number printed are the English edition's
(``_ext/editions/translation/code_text.py``), and the lines the package printed in Chinese
(``package_lines.py``); and each glossary term's English where a chapter first uses it
(``term_english.py``)."""

from __future__ import annotations

import io
import re
import tokenize

from _ext.editions.translation.code_text import pieces
from _ext.editions.translation.package_lines import translated_line
from _ext.editions.translation.term_english import pairs
from bookbuild import ROOT
from tests.helpers import code_cells, page_text

CHINESE = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
TERM_LINK = re.compile(r'href="glossary\.html#term-([\w-]+)"><span class="xref std std-term">([^<]+)</span>')


def code(source: str) -> list[str]:
    """A cell's tokens, its comments and strings set aside."""
    kept = {tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE}
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [token.string for token in tokens if token.type not in kept]


def test_chinese_code_cells_keep_the_code_and_the_numbers_and_read_in_chinese(built_book):
    problems, chinese = [], 0
    for path in sorted((built_book / "book").glob("*.html")):
        name = path.stem
        english = code_cells(path.read_text(encoding="utf-8"))
        translated = code_cells((built_book / "zh" / "book" / path.name).read_text(encoding="utf-8"))
        if len(english) != len(translated):
            problems.append(f"{name}: {len(english)} code cells, {len(translated)} in Chinese")
            continue
        for at, ((source, printed), (zh_source, zh_printed)) in enumerate(
            zip(english, translated, strict=True)
        ):
            where = f"{name}, code cell {at + 1}"
            if code(source) != code(zh_source):
                problems.append(f"{where}: the code differs, not only its comments and strings")
            if sorted(NUMBER.findall(printed)) != sorted(NUMBER.findall(zh_printed)):
                problems.append(f"{where}: prints other numbers: {zh_printed[:200]!r}")
            for piece, zh_piece in zip(pieces(source), pieces(zh_source), strict=False):
                if CHINESE.search(zh_piece.text):
                    chinese += 1
                elif zh_piece.text == piece.text and re.search(r"\b[a-z]{2,} [a-z]{2,}\b", piece.text):
                    problems.append(f"{where}: still English: {zh_piece.text!r}")
    assert not problems, "\n".join(problems[:40])
    assert chinese > 500, chinese


def test_no_line_the_package_printed_is_left_in_english(built_book):
    """A checker's verdict or a setting's error that a page shows reads in Chinese on the Chinese
    page, as a live Chinese page prints it (``selfattn.language``)."""
    said, left = 0, []
    for path in sorted((built_book / "book").glob("*.html")):
        english = [
            line
            for _, printed in code_cells(path.read_text(encoding="utf-8"))
            for line in printed.split("\n")
        ]
        said += sum(translated_line(line.strip(), "zh_CN") != line.strip() for line in english)
        translated = code_cells((built_book / "zh" / "book" / path.name).read_text(encoding="utf-8"))
        lines = [line.strip() for _, printed in translated for line in printed.split("\n")]
        left += [f"{path.stem}: {line!r}" for line in lines if translated_line(line, "zh_CN") != line]
    assert said >= 15, "the English pages show the checkers' verdicts and the settings' errors"
    assert not left, "\n".join(left[:20])


def test_a_chapter_gives_each_glossary_term_s_english_where_it_links_the_term(built_book):
    """Every Chinese term that a chapter links to the glossary has its English beside it once in
    that chapter, as terminology.txt pairs them: 查询（query）."""
    chapters = sorted(p for p in (built_book / "zh" / "book").glob("*.html") if p.stem != "glossary")
    links = {path: TERM_LINK.findall(path.read_text(encoding="utf-8")) for path in chapters}
    glossary = {slug.replace("-", " ") for found in links.values() for slug, _ in found}
    terms = pairs((ROOT / "locale" / "zh_CN" / "terminology.txt").read_text(encoding="utf-8"), glossary)
    assert {"词元", "查询", "键", "值", "嵌入"} <= terms.keys(), terms
    problems, given = [], 0
    for path, found in links.items():
        text = page_text(path)
        for slug, chinese in found:
            english = terms.get(chinese)
            if english and english.lower() == slug.replace("-", " "):
                given += 1
                if not re.search(rf"{chinese}\s*[（(]\s*{re.escape(english)}", text, re.IGNORECASE):
                    problems.append(f"{path.stem}: {chinese} without （{english}）")
    assert not problems, "\n".join(sorted(set(problems)))
    assert given > 50, given
