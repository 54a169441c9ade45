"""The Chinese edition's built pages write what the package printed in English as a live Chinese
page prints it: whole lines, and paragraphs a cell wrapped."""

from __future__ import annotations

import textwrap

import pytest

from _ext.editions.translation.package_lines import translated_line, translated_text
from selfattn import ConfigError, TrainConfig
from selfattn.language import LANGUAGE_ENV

VERDICT = "✓ your head matches the book's on 4 sequences of 8 positions"


def error_of(mistake: dict, language: str, monkeypatch) -> str:
    monkeypatch.setenv(LANGUAGE_ENV, language)
    with pytest.raises(ConfigError) as raised:
        TrainConfig(**mistake)
    return str(raised.value)


@pytest.mark.parametrize(
    "mistake", [dict(learnig_rate=1e-3), dict(learning_rate=3.0), dict(n_embd=32, n_head=3)]
)
def test_a_wrapped_error_is_read_whole_and_wrapped_again(mistake, monkeypatch):
    english, chinese = error_of(mistake, "", monkeypatch), error_of(mistake, "zh_CN", monkeypatch)
    printed = "TrainConfig(...) raises ConfigError:\n" + textwrap.indent(textwrap.fill(english, 72), "    ")
    lines = translated_text(printed, "zh_CN").split("\n")
    assert lines[0] == "TrainConfig(...) raises ConfigError:", "not one of the package's texts: kept"
    assert " ".join(line.strip() for line in lines[1:]) == chinese
    assert all(line.startswith("    ") and len(line) <= 4 + 72 for line in lines[1:])


def test_lines_that_are_texts_each_are_not_read_as_one(monkeypatch):
    monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    printed = (
        f"  {VERDICT}\n  {VERDICT}\n    (key): Linear(in_features=32, out_features=32, bias=False)\n   \n"
    )
    lines = translated_text(printed, "zh_CN").split("\n")
    assert lines[3:] == ["   ", ""], "blank lines, indented or not, as they were"
    assert lines[0] == lines[1] == "  " + translated_line(VERDICT, "zh_CN") != "  " + VERDICT
    assert lines[2] == "    (key): Linear(in_features=32, out_features=32, bias=False)"


def test_a_word_in_a_field_stays_code_and_a_line_not_the_packages_stays_as_it_is():
    assert translated_line(
        "✗ loss differs: it is the sum over the B*T positions, not their mean; keep cross_entropy's mean",
        "zh_CN",
    ).startswith("✗ loss ")
    assert translated_line("n_head=4: heads of  8, 3,072 query/key/value numbers", "zh_CN") == (
        "n_head=4: heads of  8, 3,072 query/key/value numbers"
    )


@pytest.mark.parametrize(
    "line",
    [
        "Ay, and injumy more shall come it",  # a model's sample: "{low} and {high}" is a fragment
        "warmup and cosine decay        3    2.078  2.081",
        "row sums after dropout: [1.25, 0.82, 1.25]",  # a script's "row {r}" is not the package's Python
        "step  20  loss 0.2104     0.57    0.21",
        "ConfigError: learning_rate=-0.1 is printed after a word of the cell's",
    ],
)
def test_a_line_that_only_shares_a_few_words_with_a_package_text_is_kept(line):
    assert translated_text(line, "zh_CN") == line
