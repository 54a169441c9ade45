"""Code cells' words in the Chinese edition: which comments and printed strings are messages, and
how a translation is written into a cell's source and into what it printed, the values kept."""

from __future__ import annotations

from _ext.editions.translation.code_text import pieces, translated_output, translated_source

CELL = """x = torch.zeros(4)  # (B, T) = (32, 8) each
# (B, T, C)
print("yb is xb moved one to the left:", ok)
print(f"question {i}: after {seen!r:<6} comes {answer!r}:", end=" ")
print(f"{'model':<12} {'val loss':>9}", "-" "-", name)
"""
CHINESE = {
    "(B, T) = (32, 8) each": "每个都是 (B, T) = (32, 8)",
    "yb is xb moved one to the left:": "yb 就是 xb 左移一位：",
    "question {i}: after {seen!r:<6} comes {answer!r}:": "第 {i} 题：{seen!r:<6} 之后是 {answer!r}：",
    "{'model':<12} {'val loss':>9}": "{'模型':<12} {'验证损失':>9}",
}


def test_the_messages_are_comments_and_printed_strings_with_words_outside_code():
    assert [piece.text for piece in pieces(CELL)] == list(CHINESE)


def test_a_translation_changes_the_comments_and_strings_and_nothing_else():
    found = pieces(CELL)
    source = translated_source(CELL, {piece: CHINESE[piece.text] for piece in found})
    assert source.splitlines()[0] == "x = torch.zeros(4)  # 每个都是 (B, T) = (32, 8)"
    assert 'print("yb 就是 xb 左移一位：", ok)' in source
    assert 'print(f"第 {i} 题：{seen!r:<6} 之后是 {answer!r}：", end=" ")' in source
    assert source.splitlines()[1:2] == ["# (B, T, C)"] and source.endswith('"-" "-", name)\n')


def test_what_a_cell_printed_keeps_its_values_in_the_translated_order():
    printed = "yb is xb moved one to the left: True\nquestion 3: after 'F'    comes 'i': p = 0.25\n"
    for piece in pieces(CELL):
        if piece.quote:
            printed = translated_output(printed, piece, CHINESE[piece.text])
    assert printed == "yb 就是 xb 左移一位： True\n第 3 题：'F'    之后是 'i'： p = 0.25\n"


def test_a_string_is_translated_only_as_a_whole_word():
    (piece,) = [p for p in pieces('print("loss")\n') if p.quote]
    assert translated_output("loss 2.5, losses 3", piece, "损失") == "损失 2.5, losses 3"


JOINED = """print(f"step {step}: train loss {train:.4f}, "
      f"val loss {val:.4f}")
print("\\ngradient on the {weights}: "  # a comment between: not one message
      f"{g:.3f}")
print(f"with the cache: {n} tokens in {s:.2f} s,"
      f" {ratio:.1f}x faster")
"""


def test_literals_side_by_side_are_one_message_written_back_side_by_side():
    step, cache = [piece for piece in pieces(JOINED) if piece.quote]
    assert step.text == "step {step}: train loss {train:.4f}, val loss {val:.4f}"
    source = translated_source(
        JOINED,
        {
            step: "第 {step} 步：训练损失 {train:.4f}，验证损失 {val:.4f}",
            cache: "用缓存：{n} 个词元用时 {s:.2f} 秒，快 {ratio:.1f} 倍",
        },
    )
    assert source.splitlines()[:2] == [
        'print(f"第 {step} 步：训练损失 {train:.4f}，验证损失 "',
        '      f"{val:.4f}")',
    ]
    assert source.splitlines()[4:] == [
        'print(f"用缓存：{n} 个词元用时 {s:.2f} 秒，快 "',
        '      f"{ratio:.1f} 倍")',
    ]
    printed = translated_output(
        "with the cache: 160 tokens in 0.59 s, 1.0x faster\n", cache, "{ratio:.1f} 倍，{n}"
    )
    assert printed == "1.0 倍，160\n"


def test_a_plain_literal_beside_an_f_string_keeps_its_braces_as_printed():
    (piece,) = [p for p in pieces('print("{a} is " f"{b}")\n') if p.quote]
    assert piece.text == "{{a}} is {b}"
    assert translated_output("{a} is 3\n", piece, "{{a}} 是 {b}") == "{a} 是 3\n"
    assert (
        translated_source('print("{a} is " f"{b}")\n', {piece: "{{a}} 是 {b}"}) == 'print("{a} 是 " f"{b}")\n'
    )


def test_a_column_title_written_in_a_field_is_a_word_to_translate_padded_as_in_english():
    (title,) = [p for p in pieces(CELL) if p.text.startswith("{'model'")]
    printed = translated_output("model         val loss\n", title, CHINESE[title.text])
    assert printed == f"{'模型':<12} {'验证损失':>9}\n"
    assert pieces("print(f\"{name:<12} {'':>9}\")\n") == []  # a name's value, a blank column: no word


def test_a_one_line_docstring_is_translated_in_the_source_and_marked_as_never_printed():
    cell = 'def f(x):\n    """Double x."""\n    print("Double x.")\n    return 2 * x\n'
    docstring, printed = pieces(cell)
    assert (docstring.docstring, printed.docstring) == (True, False)
    assert translated_source(cell, {docstring: "把 x 翻倍。"}).splitlines()[1] == '    """把 x 翻倍。"""'
    assert pieces('def g():\n    """Two\n    lines."""\n') == []  # a docstring of several lines stays
