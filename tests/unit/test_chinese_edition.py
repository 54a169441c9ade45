"""The Chinese PDF lets a line break before a link, as between any two Chinese characters."""

from __future__ import annotations

from docutils import nodes

from _ext.editions.chinese_edition import LINK_BREAK, break_before_links


def link(text: str) -> nodes.reference:
    return nodes.reference("", text, refuri="glossary.html")


def breaks(*children: nodes.Node, title: bool = False) -> list[str]:
    """Where ``children`` may break, as the text before each break."""
    holder = nodes.title("", "", *children) if title else nodes.paragraph("", "", *children)
    document = nodes.document(None, None)
    document += nodes.section("", holder)
    break_before_links(document)
    breaks = [raw for raw in holder.findall(nodes.raw) if raw.astext() == LINK_BREAK]
    return [
        "".join(node.astext() for node in holder[: holder.index(raw)] if node not in breaks) for raw in breaks
    ]


def test_a_link_to_a_chinese_term_after_chinese_text_may_start_a_line():
    children = (link("查询"), nodes.Text("（query）、"), link("键"), nodes.Text("（key）、"), link("值"))
    assert breaks(*children) == ["查询（query）、", "查询（query）、键（key）、"]


def test_no_break_after_an_opening_bracket_or_a_space_before_english_or_in_a_title():
    assert breaks(nodes.Text("（"), link("键"), nodes.Text("“"), link("值")) == []
    assert breaks(nodes.Text("见 "), link("键")) == []  # a space breaks already
    assert breaks(nodes.Text("见"), link("head_size")) == []
    assert breaks(nodes.Text("见"), link("键"), title=True) == []
