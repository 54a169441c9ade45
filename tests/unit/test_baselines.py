"""The count-based baselines: uniform, unigram and Witten-Bell bigram losses."""

from __future__ import annotations

import math

import pytest
import torch

from selfattn.baselines import bigram_loss, uniform_loss, unigram_loss


def ids(*values: int) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.long)


def test_a_uniform_guess_costs_ln_of_the_vocabulary():
    assert uniform_loss(65) == pytest.approx(4.1744, abs=1e-4)


def test_a_unigram_guess_is_the_add_one_share_of_training():
    # counts 2, 1, 0 become 3/6, 2/6, 1/6: a token training never saw is unlikely, not impossible
    assert unigram_loss(ids(0, 0, 1), ids(2), 3) == pytest.approx(-math.log(1 / 6))


def test_a_bigram_guess_mixes_what_followed_with_the_unigram_guess_by_witten_bell():
    # After 0: 1 twice and 2 once (3 followers, 2 kinds); the unigram guess of 1 is 3/9.
    assert bigram_loss(ids(0, 1, 0, 1, 0, 2), ids(0, 1), 3) == pytest.approx(
        -math.log((2 + 2 * 3 / 9) / (3 + 2))
    )


def test_a_token_never_followed_in_training_falls_back_to_the_unigram_guess():
    assert bigram_loss(ids(0, 1), ids(1, 0), 2) == pytest.approx(unigram_loss(ids(0, 1), ids(0), 2))


@pytest.mark.parametrize("before", [0, 1, 2, 3])
def test_each_bigram_guess_is_a_distribution_over_the_next_token(before):
    train, vocab_size = ids(0, 1, 0, 1, 0, 2, 2, 2, 1), 4  # 3 never occurs
    chances = [math.exp(-bigram_loss(train, ids(before, after), vocab_size)) for after in range(vocab_size)]
    assert sum(chances) == pytest.approx(1.0)


def test_on_tiny_shakespeare_each_baseline_beats_the_one_before(corpus):
    size = corpus.tokenizer.vocab_size
    uniform = uniform_loss(size)
    unigram = unigram_loss(corpus.train, corpus.val, size)
    bigram = bigram_loss(corpus.train, corpus.val, size)
    assert uniform > unigram > bigram
    assert 2.4 < bigram < 2.6  # where the bigram chapter's trained table ends too
