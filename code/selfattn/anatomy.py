"""A head's forward pass, stage by stage, for figures and explanations.

``Head.forward`` is written to be read; this module recomputes the same steps
from the same layers and keeps every intermediate tensor, so a chapter can show
each one. Tests check that ``stages(head, x).out`` equals ``head(x)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.nn import functional as F

from selfattn.models import Head


@dataclass(frozen=True)
class AttentionStages:
    """Every intermediate of one head's forward pass (B, T and hs as in ``Head``)."""

    q: torch.Tensor  # (B, T, hs)
    k: torch.Tensor  # (B, T, hs)
    v: torch.Tensor  # (B, T, hs)
    raw: torch.Tensor  # (B, T, T): q @ k^T
    scaled: torch.Tensor  # (B, T, T): raw * hs ** -0.5
    masked: torch.Tensor  # (B, T, T): future positions set to -inf
    wei: torch.Tensor  # (B, T, T): softmax over each row
    out: torch.Tensor  # (B, T, hs): wei @ v


@torch.no_grad()
def stages(head: Head, x: torch.Tensor) -> AttentionStages:
    """Run ``head`` on ``x`` (B, T, C) and keep every step."""
    T = x.shape[1]
    q, k, v = head.query(x), head.key(x), head.value(x)  # (B, T, hs) each
    raw = q @ k.transpose(-2, -1)  # (B, T, T)
    scaled = raw * k.shape[-1] ** -0.5  # (B, T, T)
    masked = scaled.masked_fill(head.tril[:T, :T] == 0, float("-inf"))  # (B, T, T)
    wei = F.softmax(masked, dim=-1)  # (B, T, T)
    return AttentionStages(q, k, v, raw, scaled, masked, wei, wei @ v)
