"""The texts the models read: characters or byte-pair tokens, as ids, in two splits.

Tiny Shakespeare is the book's text; the Tang poems (:mod:`selfattn.poems`) are Part VII's. The
text is cut at 90% of its characters, the first part for training and the rest for validation,
and each part is turned into ids on its own: one per character, or byte-pair tokens learned on the
training part alone (:mod:`selfattn.bpe`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import torch

from selfattn.batches import split_train_val
from selfattn.bpe import BytePairTokenizer
from selfattn.data import load_text
from selfattn.poems import poems_text
from selfattn.tokenizers import CharTokenizer

TEXTS: dict[str, Callable[[], str]] = {"shakespeare": load_text, "tang-poems": poems_text}


@dataclass(frozen=True)
class Corpus:
    """A text, its tokenizer, and its two splits as ids."""

    text: str
    tokenizer: CharTokenizer | BytePairTokenizer
    train: torch.Tensor  # (N_train,) int64
    val: torch.Tensor  # (N_val,) int64
    val_chars: int  # the characters the validation ids spell

    def bits_per_char(self, loss: float) -> float:
        """A validation loss in nats per token as bits per character, which compares tokenizers."""
        return loss * len(self.val) / self.val_chars / math.log(2)


@lru_cache(maxsize=4)
def load_corpus(name: str = "shakespeare", bpe_vocab: int = 0) -> Corpus:
    """The text ``name`` (tiny Shakespeare: 65 characters), one token per character, or with
    ``bpe_vocab`` byte-pair tokens."""
    text = TEXTS[name]()
    train_text, val_text = split_train_val(text)
    tokenizer = BytePairTokenizer.trained(train_text, bpe_vocab) if bpe_vocab else CharTokenizer(text)
    train, val = (torch.tensor(tokenizer.encode(part), dtype=torch.long) for part in (train_text, val_text))
    return Corpus(text, tokenizer, train, val, len(val_text))
