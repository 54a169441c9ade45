"""The causal mask of the attention written outside the models is the models' own ``tril``."""

from __future__ import annotations

import torch

from selfattn.causal import future_keys


def test_the_mask_is_the_models_tril_read_from_the_cached_rows_on():
    tril = torch.tril(torch.ones(9, 9))  # as the models register it
    for keys in range(1, 10):
        for queries in range(1, keys + 1):
            P = keys - queries  # positions before the new ones
            expected = tril[P:keys, :keys] == 0  # (queries, keys)
            assert torch.equal(future_keys(queries, keys), expected), (queries, keys)
    assert future_keys(3, 3).tolist() == [[False, True, True], [False, False, True], [False, False, False]]
