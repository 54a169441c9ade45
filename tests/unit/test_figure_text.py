"""Drawn figures' words (_ext/editions/translation/figure_text.py): which texts of a figure's SVG become
messages (words, in any font), how numbers stay out of them, and a translated figure drawn again
at the English PNG's size with its words in Chinese."""

from __future__ import annotations

import io
import re
import shutil

import matplotlib as mpl
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from _ext.editions.translation.figure_text import draw, legend_overflows, messages, template, translated_svg
from selfattn.plotting import STYLE

CHINESE = {
    "training step": "训练步数",
    "Your run: lr {0}, {1} steps": "你的运行：学习率 {0}，{1} 步",
    "your run: val": "你的运行：验证",
    "{0} snippets of {1} characters": "{0} 段、每段 {1} 个字符",
}


def drawn() -> tuple[bytes, str]:
    """A figure as the chapters draw one: PNG and SVG, with words, numbers, ticks and code."""
    with mpl.rc_context(STYLE):
        fig = Figure()
        ax = fig.add_subplot()
        ax.plot([0, 100, 200], [4.2, 2.9, 2.4], label="your run: val")
        ax.set_xlabel("training step")
        ax.set_title("Your run: lr 0.001, 200 steps")
        ax.set_xticks([0, 100, 200], ["start", "middle", "end"])
        ax.text(50, 3.5, "x @ W", family="monospace")
        ax.text(50, 3.2, "32 snippets of 8 characters", family="monospace")
        ax.text(50, 3.0, "2.41")
        ax.text(50, 2.7, r"$\sqrt{d}$ scaled")
        ax.legend()
        png, svg = io.BytesIO(), io.StringIO()
        FigureCanvasAgg(fig).print_png(png)
        fig.savefig(svg, format="svg")
    return png.getvalue(), svg.getvalue()


def test_a_message_is_a_texts_words_with_its_numbers_left_out():
    assert template("Your run: lr 0.001, 5,000 steps") == ("Your run: lr {0}, {1} steps", ["0.001", "5,000"])
    assert template("GPT-2: 17 tokens") == ("GPT-2: {0} tokens", ["17"])
    assert template("softmax(−2 × scores) {x}") == ("softmax({0} × scores) {{x}}", ["−2"])


def test_the_messages_are_the_words_a_reader_reads_not_ticks_numbers_or_maths():
    _, svg = drawn()
    words = [
        "training step",
        "Your run: lr {0}, {1} steps",
        "{0} snippets of {1} characters",
        "your run: val",
    ]
    assert sorted(messages(svg)) == sorted(words)


def test_a_translated_figure_is_drawn_again_at_the_english_size(tmp_path):
    if shutil.which("rsvg-convert") is None:
        pytest.skip("rsvg-convert (Debian's librsvg2-bin) draws the translated figures: make missing-debs")
    png, svg = drawn()
    english = tmp_path / "english.png"
    english.write_bytes(png)
    translated = translated_svg(svg, lambda message: CHINESE.get(message, message))
    assert translated is not None
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", translated)
    assert {"训练步数", "你的运行：学习率 0.001，200 步", "你的运行：验证", "x @ W", "start"} <= set(texts)
    assert "32 段、每段 8 个字符" in texts and "Noto Sans Mono CJK SC" in translated  # monospaced still
    assert "training step" not in texts
    out = draw(translated, english, tmp_path / "drawn")
    with Image.open(out) as ours, Image.open(english) as theirs:
        assert ours.size == theirs.size
    assert out.read_bytes() != png
    assert draw(translated, english, tmp_path / "drawn") == out  # named for its content: drawn once


def test_a_figure_whose_words_have_no_translation_is_kept():
    _, svg = drawn()
    assert translated_svg(svg, lambda message: message) is None


def test_a_translation_too_long_for_its_legend_is_found():
    """The English legend fits its frame as matplotlib drew it; a longer translation is measured
    with the fonts rsvg-convert draws it with, and found to run past the frame."""
    if shutil.which("fc-match") is None:
        pytest.skip("fontconfig (fc-match) finds the fonts the translated figures are drawn with")
    _, svg = drawn()
    assert legend_overflows(svg) == []
    shorter = translated_svg(svg, lambda message: "验证" if message == "your run: val" else message)
    assert legend_overflows(shorter) == []
    longer = "你的运行：在验证集上的损失，以及更多更多的说明文字"
    too_long = translated_svg(svg, lambda message: longer if message == "your run: val" else message)
    [(text, past)] = legend_overflows(too_long)
    assert text == longer and past > 20


def test_a_legend_without_a_frame_is_held_to_the_figure_s_edge():
    if shutil.which("fc-match") is None:
        pytest.skip("fontconfig (fc-match) finds the fonts the translated figures are drawn with")
    with mpl.rc_context(STYLE):
        fig = Figure(figsize=(4, 2), layout="constrained")  # room for the legend beside the axes
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1], label="your run: val")
        ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        svg = io.StringIO()
        fig.savefig(svg, format="svg")
    assert legend_overflows(svg.getvalue()) == []
    wide = translated_svg(svg.getvalue(), lambda message: "你的运行：验证集上的损失，还有很长很长的说明")
    [(_, past)] = legend_overflows(wide)
    assert past > 0
