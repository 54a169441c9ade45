"""A head's forward pass, stage by stage, for figures and explanations.

``Head.forward`` is written to be read; this module recomputes the same steps
from the same layers and keeps every intermediate tensor, so a chapter can show
each one. Tests check that ``stages(head, x).out`` equals ``head(x)``. The toy
of "Watching attention learn" trains through ``stages`` too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch
import torch.nn as nn
from torch.nn import functional as F

from selfattn.models import Head


class HasProjections(Protocol):
    """Anything with a head's three projections: a ``Head``, or the toy's run."""

    query: nn.Module
    key: nn.Module
    value: nn.Module


@dataclass(frozen=True)
class AttentionStages:
    """Every intermediate of one head's forward pass (B, T and hs as in ``Head``)."""

    q: torch.Tensor  # (B, T, hs)
    k: torch.Tensor  # (B, T, hs)
    v: torch.Tensor  # (B, T, hs)
    raw: torch.Tensor  # (B, T, T): q @ k^T
    scaled: torch.Tensor  # (B, T, T): raw * hs ** -0.5
    masked: torch.Tensor  # (B, T, T): future positions set to -inf (equal to scaled if not causal)
    wei: torch.Tensor  # (B, T, T): softmax over each row
    out: torch.Tensor  # (B, T, hs): wei @ v


def stages(head: HasProjections, x: torch.Tensor, causal: bool = True) -> AttentionStages:
    """Run ``head``'s projections on ``x`` (B, T, C) or (T, C) and keep every step.

    Gradients flow as usual; wrap the call in ``torch.no_grad()`` to only look.
    """
    T = x.shape[-2]
    q, k, v = head.query(x), head.key(x), head.value(x)  # (B, T, hs) each
    raw = q @ k.transpose(-2, -1)  # (B, T, T)
    scaled = raw * k.shape[-1] ** -0.5  # (B, T, T)
    masked = scaled
    if causal:
        tril = torch.tril(torch.ones(T, T, device=x.device))  # (T, T): 1 on and below the diagonal
        masked = scaled.masked_fill(tril == 0, float("-inf"))  # (B, T, T)
    wei = F.softmax(masked, dim=-1)  # (B, T, T)
    return AttentionStages(q, k, v, raw, scaled, masked, wei, wei @ v)


@torch.no_grad()
def trace(model: nn.Module, idx: torch.Tensor) -> dict[str, torch.Tensor]:
    """Run ``model`` on ``idx`` (B, T) and keep what its layers saw: hooks, not a re-implementation."""
    seen: dict[str, torch.Tensor] = {}
    hooks = [
        model.token_embedding_table.register_forward_hook(lambda m, i, o: seen.update(tok_emb=o)),
        model.sa_head.register_forward_hook(lambda m, i, o: seen.update(x=i[0], out=o)),
    ]
    try:
        seen["logits"], _ = model(idx)  # (B, T, vocab_size)
    finally:
        for hook in hooks:
            hook.remove()
    return seen  # tok_emb, x: (B, T, C); out: (B, T, hs); logits: (B, T, vocab_size)


@torch.no_grad()
def model_stages(model: nn.Module, idx: torch.Tensor) -> AttentionStages:
    """The attention model's head, stage by stage, on its real input for ids ``idx`` (B, T)."""
    return stages(model.sa_head, trace(model, idx)["x"])


def heads_of(attention: nn.Module) -> list[Head]:
    """The heads inside a split-form ``CausalSelfAttention``, each as a ``Head`` of its own.

    Head ``h`` owns rows ``h * hs .. (h + 1) * hs`` of the key, query and value
    matrices; its ``Head`` computes exactly that head's part of the output.
    """
    n_embd, n_head = attention.key.in_features, attention.n_head
    hs = n_embd // n_head
    heads = []
    for h in range(n_head):
        head = Head(n_embd, hs, attention.tril.shape[0])
        rows = slice(h * hs, (h + 1) * hs)
        with torch.no_grad():
            for name in ("key", "query", "value"):
                getattr(head, name).weight.copy_(getattr(attention, name).weight[rows])
        heads.append(head)
    return heads


@torch.no_grad()
def block_input(model: nn.Module, idx: torch.Tensor, layer: int = 0) -> torch.Tensor:
    """What the attention of block ``layer`` of a GPT model receives for ids ``idx`` (B, T)."""
    seen: dict[str, torch.Tensor] = {}
    hook = model.blocks[layer].sa.register_forward_hook(lambda m, i, o: seen.update(x=i[0]))
    try:
        model(idx)
    finally:
        hook.remove()
    return seen["x"]  # (B, T, C)


@torch.no_grad()
def gpt_trace(model: nn.Module, idx: torch.Tensor, layer: int = 0) -> dict[str, torch.Tensor]:
    """Run a GPT model on ``idx`` (B, T) and keep what block ``layer``'s parts and the output saw.

    Hooks on the model's own layers, not a re-implementation: ``x`` is the
    block's input, ``wei`` the attention weights of every head at once (what
    ``CausalSelfAttention.attn_dropout`` receives, the place that class names for
    watching them), ``mid`` the residual stream between the block's two additions.
    """
    block = model.blocks[layer]
    seen: dict[str, torch.Tensor] = {}

    def keep(module: nn.Module, name: str, inputs: bool = False):
        return module.register_forward_hook(lambda m, i, o: seen.update({name: i[0] if inputs else o}))

    hooks = [
        keep(block, "x", inputs=True),
        keep(block.ln1, "ln1"),
        keep(block.sa.query, "q"),
        keep(block.sa.attn_dropout, "wei", inputs=True),
        keep(block.sa, "sa"),
        keep(block.ln2, "mid", inputs=True),
        keep(block.ln2, "ln2"),
        keep(block.ffwd.net[0], "hidden"),
        keep(block.ffwd, "ffwd"),
        keep(block, "block"),
        keep(model.ln_f, "ln_f"),
    ]
    try:
        seen["logits"], _ = model(idx)
    finally:
        for hook in hooks:
            hook.remove()
    # x, ln1, q, sa, mid, ln2, ffwd, block, ln_f: (B, T, C); wei: (B, nh, T, T); hidden: (B, T, 4C);
    # logits: (B, T, vocab_size)
    return seen


def vocabulary_parameters(model: nn.Module) -> int:
    """The parameters of a model's token embedding table and output layer, counted once if tied."""
    layers = (model.token_embedding_table, model.lm_head)
    shared = {id(p): p for layer in layers for p in layer.parameters()}  # a tied matrix once
    return sum(p.numel() for p in shared.values())
