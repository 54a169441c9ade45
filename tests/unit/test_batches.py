"""get_batch: shapes, shifted targets, reproducibility."""

from __future__ import annotations

import pytest
import torch

from selfattn import ConfigError, get_batch, split_train_val


def test_split_is_ninety_ten(corpus):
    assert len(corpus.train) == int(0.9 * len(corpus.text))
    assert len(corpus.train) + len(corpus.val) == len(corpus.text)
    train, val = split_train_val(torch.arange(10))
    assert train.tolist() == list(range(9)) and val.tolist() == [9]


def test_inputs_and_targets_are_b_by_t_long_ids(corpus):
    x, y = get_batch(corpus.train, 4, 8, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (4, 8)
    assert x.dtype == torch.long


def test_rows_are_windows_of_the_data_and_targets_are_next_ids():
    data = torch.arange(1000) * 3  # ids that reveal their position
    x, y = get_batch(data, 16, 8, torch.Generator().manual_seed(0))
    steps = x[:, 1:] - x[:, :-1]  # (16, 7)
    assert (steps == 3).all(), "each row is 8 consecutive ids"
    assert torch.equal(y, x + 3), "each target is the id after its input"
    assert int(y.max()) <= int(data[-1])


def test_the_same_generator_seed_draws_the_same_batch(corpus):
    a = get_batch(corpus.train, 32, 8, torch.Generator().manual_seed(7))
    b = get_batch(corpus.train, 32, 8, torch.Generator().manual_seed(7))
    c = get_batch(corpus.train, 32, 8, torch.Generator().manual_seed(8))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[0], c[0])


def test_block_longer_than_data_is_a_clear_error():
    with pytest.raises(ConfigError, match="block_size=10 needs more than 10 tokens"):
        get_batch(torch.arange(10), 2, 10, torch.Generator())
