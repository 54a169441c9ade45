"""What "Prerequisite concepts" and "From text to vectors" claim, checked directly and on the built pages."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest
import torch
import torch.nn as nn
from torch.nn import functional as F

from conftest import figure_alts, reader_text
from selfattn import AttentionLanguageModel, Head, get_batch, gpt2_tokenizer

SENTENCE = "Your journey starts with one step"
FLOAT_INDEX_ERROR = (
    "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
    "but got torch.FloatTensor instead"
)


@pytest.fixture(scope="module")
def gpt2():
    return gpt2_tokenizer()


# --- tokenizers -----------------------------------------------------------------------------------------


def test_gpt2_ids_and_pieces_of_the_running_sentence(gpt2):
    ids = gpt2.encode(SENTENCE)
    assert ids == [7120, 7002, 4940, 351, 530, 2239]
    assert [gpt2.decode([i]) for i in ids] == ["Your", " journey", " starts", " with", " one", " step"]
    assert gpt2.decode(ids) == SENTENCE
    assert gpt2.n_vocab == 50257


def test_leading_space_and_capitals_change_the_token(gpt2):
    variants = {v: gpt2.encode(v) for v in ["Your", " Your", "your", " your"]}
    assert variants == {"Your": [7120], " Your": [3406], "your": [14108], " your": [534]}
    assert gpt2.encode(" journey") == [7002], "with its space, the word is one token"
    assert [gpt2.decode([i]) for i in gpt2.encode("journey")] == ["j", "ourney"], "without it, two"


def test_characters_keep_every_table_row_trained_and_gpt2_does_not(corpus, gpt2):
    assert corpus.tokenizer.vocab_size == 65
    char_counts = Counter(corpus.text)
    assert set(char_counts) == set(corpus.tokenizer.chars), "every character of the vocabulary occurs"
    assert sorted(ch for ch, n in char_counts.items() if n < 100) == ["$", "&", "3"]
    book_ids = gpt2.encode(corpus.text)
    gpt2_counts = Counter(book_ids)
    assert len(book_ids) == 338_025
    assert len(gpt2_counts) == 11_706, "most of GPT-2's 50,257 ids never occur in tiny Shakespeare"
    assert sum(n < 5 for n in gpt2_counts.values()) == 7_144
    assert 3.2 < len(corpus.text) / len(book_ids) < 3.4


# --- the two building blocks ----------------------------------------------------------------------------


def test_embedding_is_indexing_its_table_and_a_one_hot_product():
    torch.manual_seed(123)
    emb = nn.Embedding(50257, 6)
    ids = torch.tensor([7120, 7002, 4940, 351, 530, 2239])
    assert emb.weight.shape == (50257, 6)
    assert torch.equal(emb(ids), emb.weight[ids])
    small = nn.Embedding(5, 3)
    few = torch.tensor([3, 0, 3])
    assert torch.equal(F.one_hot(few, num_classes=5).float() @ small.weight, small(few))


def test_linear_is_x_times_w_transposed_plus_b():
    torch.manual_seed(0)
    lin = nn.Linear(3, 2)
    x = torch.randn(4, 3)
    assert lin.weight.shape == (2, 3), "stored as (out_features, in_features)"
    assert torch.allclose(lin(x), x @ lin.weight.T + lin.bias)
    with pytest.raises(
        RuntimeError, match=re.escape("mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)")
    ):
        lin(torch.ones(4, 5))


def test_float_indices_raise_the_error_the_chapter_shows():
    emb = nn.Embedding(10, 6)
    start = torch.zeros((1, 1))
    assert start.dtype == torch.float32, "torch.zeros makes floats unless told otherwise"
    with pytest.raises(RuntimeError, match=re.escape(FLOAT_INDEX_ERROR)):
        emb(start)
    assert emb(torch.zeros((1, 1), dtype=torch.long)).shape == (1, 1, 6)


# --- positions ------------------------------------------------------------------------------------------


def test_x_is_tok_plus_pos_entry_by_entry():
    torch.manual_seed(123)
    tok = nn.Embedding(50257, 6)(torch.tensor([7120, 7002, 4940, 351, 530, 2239]))  # (6, 6)
    pos = nn.Embedding(6, 6)(torch.arange(6))  # (6, 6)
    X = tok + pos
    assert X.shape == (6, 6)
    for t in range(6):
        for c in range(6):
            assert X[t, c] == tok[t, c] + pos[t, c]
    batch = torch.randn(3, 6, 6)  # (B, T, C) + (T, C) broadcasts the same positions to every sequence
    assert all(torch.equal((batch + pos)[b], batch[b] + pos) for b in range(3))


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


# --- batches and shapes ---------------------------------------------------------------------------------


def test_batch_targets_are_inputs_shifted_by_one(corpus):
    xb, yb = get_batch(corpus.train, 4, 8, torch.Generator().manual_seed(1337))
    assert xb.shape == yb.shape == (4, 8) and xb.dtype == torch.long
    assert torch.equal(xb[:, 1:], yb[:, :-1])


def test_model_reads_b_and_t_from_the_data_up_to_block_size(corpus):
    torch.manual_seed(1337)
    model = AttentionLanguageModel(65, block_size=8)
    xb, _ = get_batch(corpus.train, 4, 8, torch.Generator().manual_seed(1337))
    for T in range(1, 9):
        logits, _ = model(xb[:1, :T])
        assert logits.shape == (1, T, 65)
    with pytest.raises(IndexError, match="index out of range in self"):
        model(torch.zeros((1, 9), dtype=torch.long))


# --- shapes, softmax, training ---------------------------------------------------------------------------


def test_shape_error_messages_are_the_ones_explained():
    with pytest.raises(RuntimeError, match=re.escape("(3x4 and 3x4)")):
        torch.ones(3, 4) @ torch.ones(3, 4)
    with pytest.raises(
        RuntimeError, match=r"size of tensor a \(3\) must match .* \(2\) at non-singleton dimension 1"
    ):
        torch.zeros(2, 3, 4) + torch.ones(2, 4)
    with pytest.raises(RuntimeError, match=re.escape("shape '[5, 2]' is invalid for input of size 12")):
        torch.arange(12).view(5, 2)


def test_softmax_of_the_example_scores():
    shares = torch.softmax(torch.tensor([2.0, 1.0, 0.1]), dim=-1)
    assert torch.allclose(shares, torch.tensor([0.6590, 0.2424, 0.0986]), atol=1e-4)
    assert [round(s, 2) for s in shares.tolist()] == [0.66, 0.24, 0.10]
    assert torch.equal(torch.softmax(torch.tensor([102.0, 101.0, 100.1]), dim=-1).argmax(), shares.argmax())


def test_dot_products_of_random_vectors_spread_like_sqrt_d():
    gen = torch.Generator().manual_seed(1)
    for d in (4, 32, 256):
        scores = (torch.randn(20000, d, generator=gen) * torch.randn(20000, d, generator=gen)).sum(-1)
        assert abs(scores.std().item() / math.sqrt(d) - 1) < 0.05
        assert abs((scores / math.sqrt(d)).std().item() - 1) < 0.05


def test_nearly_equal_scores_give_nearly_but_not_exactly_equal_weights():
    weights = torch.softmax(1e-4 * torch.randn(6, generator=torch.Generator().manual_seed(0)), dim=-1)
    deviation = (weights - 1 / 6).abs().max().item()
    assert 0 < deviation < 1e-4


def test_backward_adds_to_gradients_until_zero_grad():
    torch.manual_seed(0)
    line = nn.Linear(1, 1)
    x = torch.linspace(-1, 1, 20).unsqueeze(1)
    y = 2 * x + 1
    F.mse_loss(line(x), y).backward()
    first = line.weight.grad.clone()
    F.mse_loss(line(x), y).backward()
    assert torch.allclose(line.weight.grad, 2 * first)
    optimizer = torch.optim.SGD(line.parameters(), lr=0.1)
    optimizer.zero_grad()
    assert line.weight.grad is None or not line.weight.grad.any()


# --- the built pages ------------------------------------------------------------------------------------


def _number_after(text: str, phrase: str) -> float:
    match = re.search(re.escape(phrase) + r"\s*(-?[\d,]+(?:\.\d+)?(?:e-?\d+)?)", text)
    assert match, f"the page says {phrase!r} followed by a number"
    return float(match.group(1).replace(",", ""))


@pytest.mark.slow
def test_prerequisites_page_shows_its_computed_numbers(built_book):
    path = built_book / "book" / "prerequisites.html"
    text = reader_text(path)
    assert "Traceback" not in text
    assert "become 0.659, 0.242 and 0.099." in text
    assert "[4, 5, 6] is 32." in text
    assert "5 × 3 = 15 parameters" in text and "plus 2 biases = 8." in text
    assert _number_after(text, "a chance of") == pytest.approx(0.024, abs=1e-3)
    for message in [
        "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)",
        "at non-singleton dimension 1",
        "shape '[5, 2]' is invalid for input of size 12",
        "(4x5 and 3x2)",
        "same logits as model(idx): True",
    ]:
        assert message in text
    assert _number_after(text, "doubled the gradient (ratio") == 2.0
    with_zero_grad = _number_after(text, "instead of")
    without = _number_after(text, "ends at a loss of")
    assert without > 10 * with_zero_grad, "forgetting zero_grad visibly hurts"
    spread = _number_after(text, "the scores spread by")
    assert abs(spread - math.sqrt(32)) < 0.3
    assert _number_after(text, "averages") > 0.7 > 0.45 > _number_after(text, "stays near")
    alts = figure_alts(path)
    assert len(alts) == 10 and all(len(alt) > 40 for alt in alts), "every figure has real alt text"


@pytest.mark.slow
def test_text_to_vectors_page_shows_ids_errors_and_numbers(built_book):
    path = built_book / "book" / "text-to-vectors.html"
    text = reader_text(path)
    assert "Traceback" not in text
    assert "[7120, 7002, 4940, 351, 530, 2239]" in text
    assert '"Your" is token 7120' in text
    assert "vocabulary of 50,257 tokens" in text
    assert "That is the whole vocabulary: 65 symbols" in text
    assert "62 of the 65 characters occur at least 100 times" in text
    assert "use only 11,706 different ids, 7,144 of them fewer than five times: 38,551 rows" in text
    assert "4,225 numbers for characters, 2,525,766,049 for GPT-2's vocabulary" in text
    assert FLOAT_INDEX_ERROR in text
    assert "IndexError: index out of range in self" in text
    assert text.count("True") >= 6, "the equality checks print True"
    assert "asks the model for 32 predictions" in text
    assert _number_after(text, "differ (by up to") > 0.01
    alts = figure_alts(path)
    assert len(alts) == 4 and all(len(alt) > 40 for alt in alts)
