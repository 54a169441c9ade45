"""The Chinese edition gives each glossary term's English at its first use in a chapter."""

from __future__ import annotations

from docutils import nodes

from _ext.editions.translation.term_english import add_english, pairs
from bookbuild import ROOT

TERMS = {"词元": "token", "词元嵌入": "token embedding", "键": "key", "向量": "vector", "批次": "batch"}


def paragraph(*children: nodes.Node) -> nodes.document:
    document = nodes.document(None, None)
    document += nodes.section("", nodes.title("", "词元是什么"), nodes.paragraph("", "", *children))
    return document


def test_the_first_use_of_each_term_gets_its_english_once():
    document = paragraph(
        nodes.Text("（见词元）词元嵌入把每个词元变成向量，词元也一样；一个批次（batch）"),
        nodes.reference("", "键", refuri="glossary.html#term-key"),
        nodes.Text("和键盘。"),
    )
    assert set(add_english(document, TERMS)) == set(TERMS)
    assert document[0][0].astext() == "词元是什么"  # not in a heading
    assert document[0][1].astext() == (
        "（见词元）词元嵌入（token embedding）把每个词元（token）变成向量（vector），词元也一样；"
        "一个批次（batch）键（key）和键盘。"
    )


def test_a_one_character_term_counts_only_as_a_link_s_whole_text():
    document = paragraph(nodes.Text("数值和键盘"), nodes.literal("", "键"))
    add_english(document, TERMS)
    assert document.astext().endswith("数值和键盘键")


def test_the_terms_are_terminology_txt_s_whose_english_the_glossary_has():
    text = (ROOT / "locale" / "zh_CN" / "terminology.txt").read_text(encoding="utf-8")
    found = pairs(text, {"token", "query", "key", "value", "block_size", "head", "dropout"})
    assert found == {"词元": "token", "查询": "query", "键": "key", "值": "value", "头": "head"}


def test_in_the_pdf_s_one_doctree_each_chapter_gets_its_own_first_use():
    document = nodes.document(None, None)
    for chapter in ("book/a", "book/b"):
        document += nodes.section("", nodes.paragraph("", "", nodes.Text("词元和词元")), docname=chapter)
    add_english(document, TERMS, "book/intro")
    assert [section.astext() for section in document] == ["词元（token）和词元"] * 2
