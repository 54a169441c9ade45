"""Tiny Shakespeare as the models see it: characters, ids, and two splits."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import torch

from selfattn.batches import split_train_val
from selfattn.data import load_text
from selfattn.tokenizers import CharTokenizer


@dataclass(frozen=True)
class Corpus:
    """A text, its character tokenizer, and its ids split 90/10."""

    text: str
    tokenizer: CharTokenizer
    train: torch.Tensor  # (N_train,) int64
    val: torch.Tensor  # (N_val,) int64


@lru_cache(maxsize=1)
def load_corpus() -> Corpus:
    """Tiny Shakespeare, tokenized by character (vocabulary of 65)."""
    text = load_text()
    tokenizer = CharTokenizer(text)
    data = torch.tensor(tokenizer.encode(text), dtype=torch.long)  # (N,)
    train, val = split_train_val(data)
    return Corpus(text, tokenizer, train, val)
