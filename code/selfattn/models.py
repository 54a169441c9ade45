"""The book's two language models, written to be read top to bottom.

``LanguageModel`` is what they share: ``generate`` samples text from either.
``BigramLanguageModel`` predicts the next character from the current one alone.
``AttentionLanguageModel`` adds position embeddings and one causal
self-attention ``Head``, so each position can look back at the ones before it.
"""

from __future__ import annotations

import torch
import torch.nn as nn
from torch.nn import functional as F

from selfattn.sampling import Sampling


class LanguageModel(nn.Module):
    """What every model in the book shares: ``forward`` maps ids to logits, ``generate`` samples."""

    block_size: int  # the longest context the model reads

    def generate(self, idx, max_new_tokens, generator=None, **choice):
        """Extend ``idx`` (B, T) by ``max_new_tokens`` sampled ids; see :func:`generate`."""
        return generate(self, idx, max_new_tokens, generator, **choice)


class BigramLanguageModel(LanguageModel):
    """A table of next-character scores, one row per current character."""

    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        self.block_size = 1  # the model only ever looks at the last character
        self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        logits = self.token_embedding_table(idx)  # (B, T, vocab_size)
        loss = None if targets is None else next_token_loss(logits, targets)
        return logits, loss


class Head(nn.Module):
    """One head of causal self-attention."""

    def __init__(self, n_embd: int, head_size: int, block_size: int) -> None:
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        # a constant, not a parameter: saved with the model, never trained
        ones = torch.ones(block_size, block_size)
        self.register_buffer("tril", torch.tril(ones))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T = x.shape[1]  # x: (B, T, C)
        k = self.key(x)  # (B, T, hs)
        q = self.query(x)  # (B, T, hs)
        # scores: how much each position attends to each other position
        wei = q @ k.transpose(-2, -1)  # (B, T, hs) @ (B, hs, T) -> (B, T, T)
        wei = wei * k.shape[-1] ** -0.5  # scale by 1 / sqrt(head_size)
        future = self.tril[:T, :T] == 0  # (T, T): True above the diagonal
        wei = wei.masked_fill(future, float("-inf"))  # (B, T, T)
        wei = F.softmax(wei, dim=-1)  # (B, T, T): each row sums to 1
        v = self.value(x)  # (B, T, hs)
        out = wei @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)
        return out


class AttentionLanguageModel(LanguageModel):
    """Token and position embeddings, one attention head, then scores."""

    def __init__(
        self,
        vocab_size: int,
        block_size: int = 8,
        n_embd: int = 32,
        head_size: int = 32,
    ) -> None:
        super().__init__()
        self.block_size = block_size
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.sa_head = Head(n_embd, head_size, block_size)
        self.lm_head = nn.Linear(head_size, vocab_size)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        T = idx.shape[1]  # idx: (B, T)
        tok_emb = self.token_embedding_table(idx)  # (B, T, C)
        positions = torch.arange(T, device=idx.device)  # (T,)
        pos_emb = self.position_embedding_table(positions)  # (T, C)
        x = tok_emb + pos_emb  # (B, T, C)
        x = self.sa_head(x)  # (B, T, hs)
        logits = self.lm_head(x)  # (B, T, vocab_size)
        loss = None if targets is None else next_token_loss(logits, targets)
        return logits, loss


def next_token_loss(logits: torch.Tensor, targets: torch.Tensor):
    """Cross-entropy of every position's scores against its next token."""
    B, T, V = logits.shape
    logits = logits.reshape(B * T, V)  # (B*T, V)
    targets = targets.reshape(B * T)  # (B*T,)
    return F.cross_entropy(logits, targets)


@torch.no_grad()
def generate(
    model: nn.Module,
    idx: torch.Tensor,
    max_new_tokens: int,
    generator: torch.Generator | None = None,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    greedy: bool = False,
) -> torch.Tensor:
    """Extend ``idx`` (B, T) by sampling one token at a time from ``model``.

    Each id is drawn from the model's probabilities, reshaped by ``temperature``, ``top_k``
    and ``top_p``, or, with ``greedy``, is the likeliest one (see :class:`Sampling`).
    """
    sampling = Sampling(temperature=temperature, top_k=top_k, top_p=top_p, greedy=greedy)
    for _ in range(max_new_tokens):
        # crop to the context window: at most block_size positions
        idx_cond = idx[:, -model.block_size :]  # (B, T)
        logits, _ = model(idx_cond)  # (B, T, vocab_size)
        logits = logits[:, -1, :]  # (B, vocab_size): the last position
        idx_next = sampling.choose(logits, generator)  # (B, 1): one id per row
        idx = torch.cat((idx, idx_next), dim=1)  # (B, T + 1)
    return idx
