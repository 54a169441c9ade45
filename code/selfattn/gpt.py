"""From one head to a GPT: the parts the last part of the book adds, in its order.

``MultiHeadAttention`` runs several ``Head``s side by side and joins their
outputs; ``CausalSelfAttention`` computes the same with one weight per
projection, split into heads. ``FeedForward`` transforms each position on its
own. Each rung of the ladder stacks its own block between the embeddings and the
scores: ``MultiHeadLanguageModel`` stacks ``AttentionBlock``s (attention alone),
``FeedForwardLanguageModel`` ``PlainBlock``s (attention, then the feed-forward
layer), ``ResidualLanguageModel`` ``ResidualBlock``s (both added to a residual
stream), and ``GPTLanguageModel`` the GPT's ``Block``s, with LayerNorm.
"""

from __future__ import annotations

import torch
import torch.nn as nn
from torch.nn import functional as F

from selfattn.models import Head, LanguageModel, next_token_loss


class MultiHeadAttention(nn.Module):
    """``n_head`` heads of causal self-attention side by side, then a projection."""

    def __init__(self, n_embd: int, n_head: int, block_size: int) -> None:
        super().__init__()
        head_size = n_embd // n_head
        self.heads = nn.ModuleList([Head(n_embd, head_size, block_size) for _ in range(n_head)])
        self.proj = nn.Linear(n_embd, n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.cat([h(x) for h in self.heads], dim=-1)  # (B, T, n_head * hs) = (B, T, C)
        return self.proj(out)  # (B, T, C)


class CausalSelfAttention(nn.Module):
    """The same heads computed at once: each projection is one matrix, split into heads.

    The attention weights reach the values through ``attn_dropout``: what it
    receives is ``wei`` (B, nh, T, T), and ``anatomy.gpt_trace`` reads them there.
    """

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.n_head = n_head
        # every head's keys, queries and values, side by side: head h owns output channels
        # h*hs .. (h+1)*hs, the columns of its W in the book's x @ W (rows of .weight, stored (out, in))
        self.key = nn.Linear(n_embd, n_embd, bias=False)
        self.query = nn.Linear(n_embd, n_embd, bias=False)
        self.value = nn.Linear(n_embd, n_embd, bias=False)
        self.proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)  # on the attention weights
        self.resid_dropout = nn.Dropout(dropout)  # on the output
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.fused = False  # True: PyTorch's fused attention, as nanoGPT's self.flash

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        nh, hs = self.n_head, C // self.n_head
        # split the channels into heads, then move the head axis next to the batch
        k = self.key(x).view(B, T, nh, hs).transpose(1, 2)  # (B, nh, T, hs)
        q = self.query(x).view(B, T, nh, hs).transpose(1, 2)  # (B, nh, T, hs)
        v = self.value(x).view(B, T, nh, hs).transpose(1, 2)  # (B, nh, T, hs)
        if self.fused:  # the five lines below in one call, never holding wei
            p = self.attn_dropout.p if self.training else 0.0
            out = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        else:
            wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, nh, T, T), times 1/sqrt(hs)
            wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # (B, nh, T, T)
            wei = F.softmax(wei, dim=-1)  # (B, nh, T, T)
            wei = self.attn_dropout(wei)
            out = wei @ v  # (B, nh, T, hs)
        out = out.transpose(1, 2).reshape(B, T, C)  # (B, T, C): the heads side by side again
        return self.resid_dropout(self.proj(out))  # (B, T, C)


class FeedForward(nn.Module):
    """A small MLP applied to every position on its own: widen 4x, ReLU, narrow back."""

    def __init__(self, n_embd: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.ReLU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )

    @property
    def proj(self) -> nn.Linear:
        """The Linear back down to n_embd (nanoGPT's c_proj)."""
        return self.net[2]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)  # (B, T, C)


class AttentionBlock(nn.Module):
    """The first rung's block: communication alone, attention between positions."""

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.sa = CausalSelfAttention(n_embd, n_head, block_size, dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.sa(x)  # (B, T, C)


class PlainBlock(AttentionBlock):
    """Communication, then computation, stacked plainly: each part replaces ``x`` with its output."""

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0) -> None:
        super().__init__(n_embd, n_head, block_size, dropout)  # self.sa
        self.ffwd = FeedForward(n_embd, dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.sa(x)  # (B, T, C): what attention found
        x = self.ffwd(x)  # (B, T, C): what the MLP computed from it
        return x


class ResidualBlock(PlainBlock):
    """The plain block with residual connections: each part adds its output to ``x``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.sa(x)  # (B, T, C): add what attention found
        x = x + self.ffwd(x)  # (B, T, C): add what the MLP computed
        return x


class MultiHeadLanguageModel(LanguageModel):
    """Token and position embeddings, ``n_layer`` blocks of ``block_type``, then scores.

    With ``AttentionBlock``s this is the ladder's first rung, the attention model
    with its one head replaced by ``n_head`` heads; the next two rungs change only
    the block.
    """

    block_type: type[nn.Module] = AttentionBlock  # what each block computes

    def __init__(
        self,
        vocab_size: int,
        block_size: int,
        n_embd: int,
        n_head: int,
        n_layer: int = 1,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.block_size = block_size
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(
            *[self.block_type(n_embd, n_head, block_size, dropout) for _ in range(n_layer)]
        )
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        T = idx.shape[1]  # idx: (B, T)
        tok_emb = self.token_embedding_table(idx)  # (B, T, C)
        pos_emb = self.position_embedding_table(torch.arange(T, device=idx.device))  # (T, C)
        x = tok_emb + pos_emb  # (B, T, C)
        x = self.blocks(x)  # (B, T, C)
        logits = self.lm_head(x)  # (B, T, vocab_size)
        loss = None if targets is None else next_token_loss(logits, targets)
        return logits, loss


class FeedForwardLanguageModel(MultiHeadLanguageModel):
    """The multi-head model with a feed-forward layer after attention, in every block."""

    block_type = PlainBlock


class ResidualLanguageModel(MultiHeadLanguageModel):
    """The same stack with residual connections: each block adds to the stream it reads."""

    block_type = ResidualBlock


class Block(nn.Module):
    """Communication, then computation, each reading a LayerNorm of ``x`` and adding to it."""

    def __init__(self, n_embd: int, n_head: int, block_size: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.sa = CausalSelfAttention(n_embd, n_head, block_size, dropout)
        self.ffwd = FeedForward(n_embd, dropout)
        self.ln1 = nn.LayerNorm(n_embd)
        self.ln2 = nn.LayerNorm(n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.sa(self.ln1(x))  # (B, T, C): add what attention found
        x = x + self.ffwd(self.ln2(x))  # (B, T, C): add what the MLP computed
        return x


class GPTLanguageModel(LanguageModel):
    """Token and position embeddings, ``n_layer`` blocks, a final LayerNorm, then scores."""

    def __init__(
        self,
        vocab_size: int,
        block_size: int,
        n_embd: int,
        n_head: int,
        n_layer: int,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.block_size = block_size
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head, block_size, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)  # the final LayerNorm
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        T = idx.shape[1]  # idx: (B, T)
        tok_emb = self.token_embedding_table(idx)  # (B, T, C)
        pos_emb = self.position_embedding_table(torch.arange(T, device=idx.device))  # (T, C)
        x = tok_emb + pos_emb  # (B, T, C)
        x = self.blocks(x)  # (B, T, C)
        x = self.ln_f(x)  # (B, T, C)
        logits = self.lm_head(x)  # (B, T, vocab_size)
        loss = None if targets is None else next_token_loss(logits, targets)
        return logits, loss
