"""The package's words in the reader's language: ``say``, the setting that picks the language, and
the translated edition's built pages, which write the English run's lines as a live page prints them."""

from __future__ import annotations

import re

import pytest
import torch
from torch.nn import functional as F

from _ext.editions.translation.package_lines import translated_line
from selfattn import checks
from selfattn.errors import ConfigError
from selfattn.language import LANGUAGE_ENV, language, say, translations

CHINESE = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def test_say_speaks_english_unless_the_setting_names_another_language(monkeypatch):
    english = "your head matches the book's on {B} sequences of {T} positions"
    monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    assert say(english, B=4, T=8) == "your head matches the book's on 4 sequences of 8 positions"
    monkeypatch.setenv(LANGUAGE_ENV, "zh_CN")
    chinese = say(english, B=4, T=8)
    assert CHINESE.search(chinese) and NUMBER.findall(chinese) == ["4", "8"]
    assert say("a text the package never says") == "a text the package never says"


def test_a_language_the_book_does_not_speak_is_said_once_and_english_goes_on(monkeypatch, capsys):
    monkeypatch.setenv(LANGUAGE_ENV, "klingon")
    assert [language(), language()] == ["en", "en"]
    assert say("✓ {right}", right="ok") == "✓ ok", "a run in progress is not stopped by the setting"
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1 and re.match(
        r"SELFATTN_LANGUAGE='klingon' is not a language.*en, zh_CN.*unset", said[0]
    )
    monkeypatch.setenv(LANGUAGE_ENV, "")
    assert language() == "en"


def test_every_translation_fills_in_the_fields_its_english_has():
    for english, chinese in translations("zh_CN").items():
        names = dict.fromkeys(re.findall(r"\{(\w+)", english), 1.5)
        assert chinese.format(**names), english


# A reader's answers to the checkers: right ones, the book's slips, and other mistakes.
ANSWERS = [
    (checks.check_causal_mask, lambda T: torch.ones(T, T).tril()),
    (checks.check_causal_mask, checks.buggy_mask),
    (checks.check_causal_mask, lambda T: torch.ones(T, T)),
    (checks.check_scaled_scores, checks.buggy_scores),
    (checks.check_scaled_scores, lambda q, k: q @ k.mT / 4 + 1),
    (checks.check_softmax_rows, checks.buggy_weights),
    (checks.check_softmax_rows, lambda wei: None),
    (checks.check_softmax_rows, lambda wei: wei.softmax(-1).double()),
    (checks.check_head, checks.buggy_head),
    (checks.check_head, lambda x, key, query, value: key(x)),
    (checks.check_bigram_loss, checks.buggy_loss),
    (checks.check_bigram_loss, lambda logits, targets: F.cross_entropy(logits, targets)),
    (checks.check_bigram_loss, lambda logits, targets: torch.tensor(float("nan"))),
]


@pytest.mark.parametrize(("check", "answer"), ANSWERS)
def test_a_translated_page_shows_each_verdict_as_a_live_page_prints_it(check, answer, monkeypatch, capsys):
    monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    english = check(answer).message
    monkeypatch.setenv(LANGUAGE_ENV, "zh_CN")
    chinese = check(answer).message
    capsys.readouterr()
    assert CHINESE.search(chinese), chinese
    assert translated_line(english, "zh_CN") == chinese
    assert sorted(NUMBER.findall(chinese)) == sorted(NUMBER.findall(english))


# Settings a reader may type wrong: out of range, of the wrong type, misspelled, or not fitting
# together; a page shows some of them on purpose.
MISTAKES = [
    dict(head_size=0),
    dict(learning_rate=3.0),
    dict(learning_rate=float("nan")),
    dict(block_size=8.5),
    dict(learnig_rate=1e-3),
    dict(zzz=1),
    dict(seed=-1),
    dict(dropout=True),
    dict(init_std="big"),
    dict(n_embd=32, n_head=3),
    dict(warmup_iters=10, max_iters=5),
    dict(batch_size=4096, block_size=4096, n_embd=1024, n_layer=24),
]


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda mistake: ",".join(mistake))
def test_a_translated_page_shows_each_setting_error_as_a_live_page_raises_it(mistake, monkeypatch):
    from selfattn import TrainConfig

    messages = []
    for chosen in ("", "zh_CN"):
        monkeypatch.setenv(LANGUAGE_ENV, chosen)
        with pytest.raises(ConfigError) as raised:
            TrainConfig(**mistake)
        messages.append(str(raised.value))
    english, chinese = messages
    assert CHINESE.search(chinese), chinese
    assert translated_line(english, "zh_CN") == chinese
    assert sorted(NUMBER.findall(chinese)) == sorted(NUMBER.findall(english))


# Arguments a reader may give the package's functions wrong: a model's kind, a recipe setting the
# model does not take, a figure's prompt, the toy's text, a split too short for its windows, a
# sampling setting, a character the tokenizer lacks, a --dtype.
def _package_mistakes() -> list:
    from selfattn import TrainConfig, batches, engine, registry, toy
    from selfattn.figures import choice, mechanism
    from selfattn.sampling import Sampling
    from selfattn.tokenizers import CharTokenizer

    return [
        pytest.param(lambda: registry.make_model("gpt2", 65, TrainConfig()), id="kind"),
        pytest.param(lambda: registry.make_model("bigram", 65, TrainConfig(tie_weights=True)), id="gpt-only"),
        pytest.param(lambda: choice.next_token_choice(None, None, ""), id="empty-prompt"),
        pytest.param(lambda: toy.untrained_toy(text="a"), id="toy-text"),
        pytest.param(lambda: batches.get_batch(torch.arange(5), 2, 8, torch.Generator()), id="short-split"),
        pytest.param(lambda: mechanism.context_window("abc", block_size=8), id="short-window"),
        pytest.param(lambda: Sampling(top_k=100).probabilities(torch.zeros(1, 65)), id="top-k"),
        pytest.param(lambda: Sampling(greedy=True, temperature=0.5), id="greedy"),
        pytest.param(lambda: CharTokenizer("abc").encode("z"), id="unknown-character"),
        pytest.param(lambda: engine.start(engine.ALONE, "cpu", "float64", False, TrainConfig()), id="dtype"),
    ]


@pytest.mark.parametrize("mistake", _package_mistakes())
def test_a_translated_page_shows_each_package_error_as_a_live_page_raises_it(mistake, monkeypatch):
    from selfattn.errors import ReaderError

    messages = []
    for chosen in ("", "zh_CN"):
        monkeypatch.setenv(LANGUAGE_ENV, chosen)
        with pytest.raises(ReaderError) as raised:
            mistake()
        messages.append(str(raised.value))
    english, chinese = messages
    assert CHINESE.search(chinese), chinese
    assert translated_line(english, "zh_CN") == chinese
    assert sorted(NUMBER.findall(chinese)) == sorted(NUMBER.findall(english))
