"""What "From characters to byte pairs" shows, against what the package computes.

The page must show the package's own byte-pair code, the merges it learns, and a table whose bits
per character are the runs' own, in both editions with the same numbers.
"""

from __future__ import annotations

import re

import pytest

from selfattn import bpe, fit, load_corpus
from selfattn.corpus import Corpus
from selfattn.runs import LADDER, byte_pairs
from tests.helpers import chapter, source_shown_wrongly

PAGE = "byte-pairs"
SHOWN = [
    bpe.pieces,
    bpe.most_frequent,
    bpe.merge,
    bpe.train_naive,
    bpe.train,
    bpe.BytePairTokenizer.encode_piece,
    Corpus.bits_per_char,
]
pytestmark = pytest.mark.book


def table_row(text: str, name: str) -> list[str]:
    """The numbers of the comparison table's row ``name`` as the page printed them."""
    numbers = r" (\d+) (\d+\.\d\d) (\d+\.\d) ([\d,]+) ([\d,]+) (\d\.\d{3}) (\d\.\d{3})"
    row = re.search(rf"(?<![\w-]){re.escape(name)}{numbers}", text)
    assert row, f"no table row {name!r}"
    return list(row.groups())


def test_the_page_shows_the_package_s_own_byte_pair_code(built_book):
    assert source_shown_wrongly(built_book, PAGE, SHOWN) == []


def test_the_first_merges_on_the_page_are_the_packages(built_book):
    _, text = chapter(built_book, PAGE)
    corpus = load_corpus()
    merges = bpe.train(corpus.tokenizer.decode(corpus.train.tolist()), bpe.BYTES + 10)
    vocab = bpe.BytePairTokenizer(merges).vocab
    learned = [f"{new}: {vocab[a]!r} + {vocab[b]!r} -> {vocab[new]!r}" for (a, b), new in merges.items()]
    assert " ".join(learned) in text


@pytest.mark.parametrize("edition", ["", "zh"])
def test_the_table_s_bits_per_character_are_the_runs_own(built_book, edition):
    """Both editions print the same numbers: the runs' final losses as bits per character."""
    _, text = chapter(built_book / edition if edition else built_book, PAGE)
    layernorm = LADDER["layernorm"]
    runs = {"characters": layernorm} | {n: r for n, r in byte_pairs().items() if "seed" not in n}
    for name, run in runs.items():
        tokens = load_corpus(bpe_vocab=run.config.bpe_vocab)
        history = fit(run.kind, run.config)[1]
        vocab, _, _, _, _, loss, bits = table_row(text, name)
        assert int(vocab) == tokens.tokenizer.vocab_size
        assert float(loss) == pytest.approx(history.final_val, abs=5e-4)
        assert float(bits) == pytest.approx(tokens.bits_per_char(history.final_val), abs=5e-4)
