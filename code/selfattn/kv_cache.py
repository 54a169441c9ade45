"""Generating faster: keep every layer's keys and values instead of computing them again.

``generate`` (in :mod:`selfattn.models`) runs the whole window through the model for every new
token, although it reads only the last position's scores. The causal mask makes every earlier
position come out exactly as it did one step before: none of them can see the new token. So
:func:`generate_cached` runs the prompt through once and keeps each attention layer's keys and
values in a :class:`KVCache`; each later step feeds the model only the newest token, whose query
attends to the cached keys and values and to its own.

The functions read the models' own modules (``head.query``, ``block.ln1``, ``model.lm_head``, ...),
so the models' ``forward`` stays as the chapters show it. They work for the one-head
``AttentionLanguageModel`` (kind ``"attention"``) and for ``GPTLanguageModel`` (kind ``"gpt"``);
:func:`cache_memory` gives the bytes the cache holds for either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn as nn
from torch.nn import functional as F

from selfattn.causal import future_keys
from selfattn.config import TrainConfig
from selfattn.errors import ConfigError
from selfattn.gpt import CausalSelfAttention, GPTLanguageModel
from selfattn.language import say
from selfattn.models import AttentionLanguageModel, Head
from selfattn.sampling import Sampling
from selfattn.settings import checked, setting_of

# The models whose modules the cache reads, by the kind make_model builds them from.
CACHED_MODELS: dict[str, type[nn.Module]] = {"attention": AttentionLanguageModel, "gpt": GPTLanguageModel}
FLOAT32_BYTES = 4

Layer = tuple[torch.Tensor, torch.Tensor]  # one attention layer's keys and values, (B, nh, T, hs) each


@dataclass(frozen=True)
class KVCache:
    """The keys and values each attention layer has computed so far: one ``(k, v)`` per layer.

    A step never changes a cache: it returns a new one, with the new positions added.
    """

    layers: tuple[Layer, ...]

    @property
    def length(self) -> int:
        """How many positions the cache holds."""
        return self.layers[0][0].shape[2]


def attend(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, past: Layer | None
) -> tuple[torch.Tensor, Layer]:
    """Attention weights of ``t`` new queries over the ``P`` cached keys and their own.

    ``q``, ``k``, ``v``: (B, nh, t, hs), the new positions'. Returns the weights (B, nh, t, P + t)
    and the layer's keys and values with the new ones appended, (B, nh, P + t, hs) each.
    """
    if past is not None:
        k = torch.cat((past[0], k), dim=2)  # (B, nh, P + t, hs): the cached keys, then the new ones
        v = torch.cat((past[1], v), dim=2)  # (B, nh, P + t, hs)
    t = q.shape[2]
    P = k.shape[2] - t  # positions in the cache before this step
    wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, nh, t, P + t): scaled by 1/sqrt(hs)
    # new position P + i may see positions 0 .. P + i: the causal mask's rows P .. P + t
    wei = wei.masked_fill(future_keys(t, P + t), float("-inf"))  # (B, nh, t, P + t)
    wei = F.softmax(wei, dim=-1)  # (B, nh, t, P + t)
    return wei, (k, v)


def head_step(head: Head, x: torch.Tensor, past: Layer | None) -> tuple[torch.Tensor, Layer]:
    """``head`` on the new positions ``x`` (B, t, C), reading the ``past`` ones from the cache."""
    q = head.query(x).unsqueeze(1)  # (B, 1, t, hs): a single head
    k = head.key(x).unsqueeze(1)  # (B, 1, t, hs)
    v = head.value(x).unsqueeze(1)  # (B, 1, t, hs)
    wei, (k, v) = attend(q, k, v, past)  # (B, 1, t, P + t)
    out = wei @ v  # (B, 1, t, P + t) @ (B, 1, P + t, hs) -> (B, 1, t, hs)
    return out.squeeze(1), (k, v)  # (B, t, hs)


def attention_step(
    attn: CausalSelfAttention, x: torch.Tensor, past: Layer | None
) -> tuple[torch.Tensor, Layer]:
    """``attn`` on the new positions ``x`` (B, t, C), reading the ``past`` ones from the cache."""
    B, t, C = x.shape
    nh, hs = attn.n_head, C // attn.n_head
    q = attn.query(x).view(B, t, nh, hs).transpose(1, 2)  # (B, nh, t, hs)
    k = attn.key(x).view(B, t, nh, hs).transpose(1, 2)  # (B, nh, t, hs)
    v = attn.value(x).view(B, t, nh, hs).transpose(1, 2)  # (B, nh, t, hs)
    wei, (k, v) = attend(q, k, v, past)  # (B, nh, t, P + t)
    out = attn.attn_dropout(wei) @ v  # (B, nh, t, hs)
    out = out.transpose(1, 2).reshape(B, t, C)  # (B, t, C): the heads side by side again
    return attn.resid_dropout(attn.proj(out)), (k, v)  # (B, t, C)


def check_cached(model: nn.Module) -> None:
    """A one-line ConfigError unless the cache knows how to read ``model``'s modules."""
    if type(model) not in CACHED_MODELS.values():
        known = say(" and ").join(f"{cls.__name__} (kind {kind!r})" for kind, cls in CACHED_MODELS.items())
        raise ConfigError(
            say(
                "{model}: the KV cache reads the modules of {known} only; use generate for this model.",
                model=type(model).__name__,
                known=known,
            )
        )


def forward_cached(
    model: nn.Module, idx: torch.Tensor, cache: KVCache | None = None
) -> tuple[torch.Tensor, KVCache]:
    """Scores (B, t, vocab_size) for the new ids ``idx`` (B, t), which follow the ``cache``'s positions.

    Returns the scores and the cache with the new positions' keys and values added. Without a
    ``cache`` the ids stand at positions 0 .. t - 1, and the scores are ``model(idx)``'s.
    """
    check_cached(model)
    P = 0 if cache is None else cache.length  # positions already in the cache
    t = idx.shape[1]  # idx: (B, t)
    tok_emb = model.token_embedding_table(idx)  # (B, t, C)
    positions = torch.arange(P, P + t, device=idx.device)  # (t,): where the new ids stand
    x = tok_emb + model.position_embedding_table(positions)  # (B, t, C)
    if isinstance(model, AttentionLanguageModel):
        x, layer = head_step(model.sa_head, x, None if cache is None else cache.layers[0])  # (B, t, hs)
        layers = [layer]
    else:
        layers = []
        for i, block in enumerate(model.blocks):
            out, layer = attention_step(block.sa, block.ln1(x), None if cache is None else cache.layers[i])
            x = x + out  # (B, t, C): add what attention found
            x = x + block.ffwd(block.ln2(x))  # (B, t, C): add what the MLP computed
            layers.append(layer)
        x = model.ln_f(x)  # (B, t, C)
    logits = model.lm_head(x)  # (B, t, vocab_size)
    return logits, KVCache(tuple(layers))


@torch.no_grad()
def generate_cached(
    model: nn.Module,
    idx: torch.Tensor,
    max_new_tokens: int,
    generator: torch.Generator | None = None,
    **sampling: Any,
) -> torch.Tensor:
    """What :func:`selfattn.models.generate` writes, id for id, with the keys and values kept.

    ``sampling`` takes ``generate``'s settings (``temperature``, ``top_k``, ``top_p``,
    ``greedy``); each id is chosen by the same :class:`Sampling`, from the same generator. The ids
    agree in ``eval()`` mode (or without dropout): dropout draws from torch's own generator, and the
    two loops run different computations.
    """
    check_cached(model)
    choice = Sampling(**sampling)
    cache = None
    for _ in range(max_new_tokens):
        if cache is None or cache.length == model.block_size:
            # Build the cache from the window generate reads: the last block_size ids. The models add
            # absolute position embeddings, so once the text outgrows block_size and the window
            # slides by one, every id in it stands one position earlier than when its keys and values
            # were computed, and none of them can be kept: the cache is rebuilt at every such step.
            logits, cache = forward_cached(model, idx[:, -model.block_size :])  # (B, T, vocab_size)
        else:
            # only the newest id is new: its query attends to the cached keys and values
            logits, cache = forward_cached(model, idx[:, -1:], cache)  # (B, 1, vocab_size)
        logits = logits[:, -1, :]  # (B, vocab_size): the last position
        idx_next = choice.choose(logits, generator)  # (B, 1): one id per row
        idx = torch.cat((idx, idx_next), dim=1)  # (B, T + 1)
    return idx


@checked
class GPTSizes:
    """The sizes a GPT's cache depends on, for GPTs the book does not train (GPT-2, say)."""

    n_layer: int = setting_of(TrainConfig, "n_layer", 12)
    n_embd: int = setting_of(TrainConfig, "n_embd", 768)
    block_size: int = setting_of(TrainConfig, "block_size", 1024)


# GPT-2 small's sizes as published: 12 layers, 768 wide, a context of 1,024 tokens.
GPT2_SMALL = GPTSizes(n_layer=12, n_embd=768, block_size=1024)


@dataclass(frozen=True)
class CacheMemory:
    """The bytes a float32 cache holds for one sequence."""

    per_token: int  # one position: a key and a value in every layer
    full_context: int  # block_size positions, the most the cache ever holds


def cache_memory(kind: str, config: TrainConfig | GPTSizes) -> CacheMemory:
    """The cache of one sequence for a ``kind`` model (``"attention"`` or ``"gpt"``) of ``config``'s sizes."""
    if kind not in CACHED_MODELS:
        raise ConfigError(
            say(
                "kind={kind!r}: the KV cache is written for the kinds {kinds}.",
                kind=kind,
                kinds=say(" and ").join(map(repr, CACHED_MODELS)),
            )
        )
    if kind == "attention" and not isinstance(config, TrainConfig):
        raise ConfigError(
            say("kind='attention' reads head_size from a TrainConfig; GPTSizes are a GPT's (kind='gpt').")
        )
    if kind == "attention":
        per_token = bytes_per_token(1, 1, config.head_size)  # one layer, one head
    else:  # every one of n_head heads keeps its own n_embd / n_head numbers: n_embd per layer
        per_token = bytes_per_token(config.n_layer, 1, config.n_embd)
    return CacheMemory(per_token, per_token * config.block_size)


def bytes_per_token(n_layer: int, n_kv_heads: int, head_size: int, number_bytes: int = FLOAT32_BYTES) -> int:
    """What a cache keeps per position: a key and a value of ``n_kv_heads`` heads in every layer."""
    return 2 * n_layer * n_kv_heads * head_size * number_bytes
