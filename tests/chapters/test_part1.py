"""What "Prerequisite concepts" and "From text to vectors" claim, against what the package computes,
and on the built pages."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import torch
import torch.nn as nn

from selfattn import AttentionLanguageModel, Head, get_batch, gpt2_tokenizer
from selfattn.batches import split_train_val
from selfattn.corpus import load_corpus
from selfattn.data import load_text
from selfattn.models import generate
from selfattn.tokenizers import CharTokenizer
from tests.helpers import chapter, code_blocks, figure_alts, shows_source

FLOAT_INDEX_ERROR = (
    "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
    "but got torch.FloatTensor instead"
)


@pytest.fixture(scope="module")
def gpt2():
    return gpt2_tokenizer()


def test_leading_space_and_capitals_change_the_gpt2_token(gpt2):
    variants = {v: gpt2.encode(v) for v in ["Your", " Your", "your", " your"]}
    assert variants == {"Your": [7120], " Your": [3406], "your": [14108], " your": [534]}
    assert gpt2.encode(" journey") == [7002], "with its space, the word is one token"
    assert [gpt2.decode([i]) for i in gpt2.encode("journey")] == ["j", "ourney"], "without it, two"


def test_characters_keep_every_table_row_trained_and_gpt2_does_not(corpus, gpt2):
    char_counts = Counter(corpus.text)
    assert set(char_counts) == set(corpus.tokenizer.chars), "every character of the vocabulary occurs"
    assert sorted(ch for ch, n in char_counts.items() if n < 100) == ["$", "&", "3"]
    book_ids = gpt2.encode(corpus.text)
    gpt2_counts = Counter(book_ids)
    assert len(book_ids) == 338_025
    assert len(gpt2_counts) == 11_706, "most of GPT-2's 50,257 ids never occur in tiny Shakespeare"
    assert sum(n < 5 for n in gpt2_counts.values()) == 7_144


def test_attention_without_positions_cannot_tell_word_order(gpt2):
    a = gpt2.encode("The dog bites the man today")
    b = gpt2.encode("The man bites the dog today")
    assert a != b and sorted(a) == sorted(b) and a[-1] == b[-1]
    torch.manual_seed(123)
    tok_table = nn.Embedding(gpt2.n_vocab, 6)
    pos = nn.Embedding(6, 6)(torch.arange(6))
    torch.manual_seed(0)
    head = Head(n_embd=6, head_size=4, block_size=6)
    with torch.no_grad():
        out_a, out_b = (head(tok_table(torch.tensor([ids]))) for ids in (a, b))
        assert torch.allclose(out_a[0, -1], out_b[0, -1], atol=1e-6)
        out_a, out_b = (head(tok_table(torch.tensor([ids])) + pos) for ids in (a, b))
        assert (out_a[0, -1] - out_b[0, -1]).abs().max() > 1e-2


# --- the built pages ------------------------------------------------------------------------------------


def _number_after(text: str, phrase: str) -> float:
    match = re.search(re.escape(phrase) + r"\s*(-?[\d,]+(?:\.\d+)?(?:e-?\d+)?)", text)
    assert match, f"the page says {phrase!r} followed by a number"
    return float(match.group(1).replace(",", ""))


def _printed(path: Path, label: str) -> str:
    """What the one cell that prints ``label`` shows after it, in its own output."""
    blocks = code_blocks(path)
    cells = [i for i, block in enumerate(blocks) if f'print("{label}"' in block]
    assert len(cells) == 1, f"one cell prints {label!r}"
    output = blocks[cells[0] + 1] if cells[0] + 1 < len(blocks) else ""
    values = [line[len(label) :].strip() for line in output.splitlines() if line.startswith(f"{label} ")]
    assert len(values) == 1, f"the output of the cell that prints {label!r} shows it once:\n{output}"
    return values[0]


# What each check in "From text to vectors" prints, as the prose around it says: calling the
# embedding is indexing its table, the two sentences are the same tokens, the head gives both the
# same vector at ' today' but not at ' dog' / ' man', X is tok + pos, yb is xb moved by one.
TEXT_TO_VECTORS_CHECKS = {
    "token_embedding(ids) equals token_embedding.weight[ids]:": "True",
    "same tokens:": "True",
    "the same (up to float rounding):": "True",
    "at ' dog' / ' man', the same:": "False",
    "X[0] equals tok[0] + pos[0]:": "True",
    "every entry:": "True",
    "yb is xb moved one to the left:": "True",
}


@pytest.mark.book
def test_prerequisites_page_shows_its_computed_numbers_and_errors(built_book):
    path, text = chapter(built_book, "prerequisites")
    assert "become 0.659, 0.242 and 0.099." in text
    assert "[4, 5, 6] is 32." in text
    assert "5 × 3 = 15 parameters" in text and "plus 2 biases = 8." in text
    assert _number_after(text, "a chance of") == pytest.approx(0.024, abs=1e-3)
    for message in [
        "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)",
        "at non-singleton dimension 1",
        "shape '[5, 2]' is invalid for input of size 12",
        "(4x5 and 3x2)",
    ]:
        assert message in text
    assert _number_after(text, "doubled the gradient (ratio") == 2.0
    with_zero_grad = _number_after(text, "instead of")
    without = _number_after(text, "ends at a loss of")
    assert without > 10 * with_zero_grad, "forgetting zero_grad visibly hurts"
    alts = figure_alts(path)
    assert len(alts) == 9 and all(len(alt) > 40 for alt in alts), "every figure has real alt text"


@pytest.mark.book
def test_text_to_vectors_page_shows_ids_errors_and_numbers(built_book):
    path, text = chapter(built_book, "text-to-vectors")
    assert "[7120, 7002, 4940, 351, 530, 2239]" in text
    assert '"Your" is token 7120' in text
    assert "vocabulary of 50,257 tokens" in text
    assert "That is the whole vocabulary: 65 symbols" in text
    assert "62 of the 65 characters occur at least 100 times" in text
    assert "use only 11,706 different ids, 7,144 of them fewer than five times: 38,551 rows" in text
    assert "4,225 numbers for characters, 2,525,766,049 for GPT-2's vocabulary" in text
    assert FLOAT_INDEX_ERROR in text
    assert "IndexError: index out of range in self" in text
    assert "asks the model for 32 predictions" in text
    assert _number_after(text, "differ (by up to") > 0.01
    alts = figure_alts(path)
    assert len(alts) == 4 and all(len(alt) > 40 for alt in alts)


@pytest.mark.book
def test_text_to_vectors_checks_print_what_the_chapter_says_they_print(built_book):
    path, _ = chapter(built_book, "text-to-vectors")
    shown = {label: _printed(path, label) for label in TEXT_TO_VECTORS_CHECKS}
    assert shown == TEXT_TO_VECTORS_CHECKS


@pytest.mark.book
def test_text_to_vectors_page_shows_the_data_preparation_as_the_package_has_it(built_book, corpus):
    path, text = chapter(built_book, "text-to-vectors")
    shown = [CharTokenizer, load_text, load_corpus, split_train_val, get_batch]
    shown += [AttentionLanguageModel.forward, generate]
    assert [obj.__qualname__ for obj in shown if not shows_source(path, obj)] == []
    share = len(corpus.train) / (len(corpus.train) + len(corpus.val))
    assert f"The first {share:.0%} of the ids, {len(corpus.train):,} of them, are for training." in text
    assert text.index("class CharTokenizer") < text.index("That is the whole vocabulary")
    assert text.index("def load_corpus") < text.index("def split_train_val") < text.index("def get_batch")
