"""The causal mask, for the attention written outside the models (the KV cache, attention's cost).

The models keep their own ``tril`` buffer, as the lecture's code does; the functions that compute
attention from given queries, keys and values build the mask here, one way.
"""

from __future__ import annotations

import torch


def future_keys(queries: int, keys: int) -> torch.Tensor:
    """True where a key lies in its query's future: the last ``queries``
    positions against all ``keys``, as ``masked_fill`` hides them."""
    # query i is position keys - queries + i and sees keys 0 .. there
    future = torch.ones(queries, keys, dtype=torch.bool)  # (queries, keys)
    return future.triu(diagonal=keys - queries + 1)  # past its own key
