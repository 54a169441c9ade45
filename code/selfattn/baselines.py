"""What a language model must beat: the loss of guessing the next token from counts alone.

Each function gives the mean cross-entropy, in nats per token, of a guess made from the training
ids and scored on other ids (the validation split):

- uniform: every one of the ``vocab_size`` tokens equally likely, ``ln vocab_size``;
- unigram: each token as often as it occurs in training (add-one smoothed, so that a token
  training never saw is not impossible);
- bigram: each token as often as it follows the token before it in training, mixed with the
  unigram guess by Witten-Bell smoothing: a token followed by many different tokens trusts its
  own counts less (Witten and Bell 1991). Nothing is tuned on the scored ids.
"""

from __future__ import annotations

import math

import torch


def uniform_loss(vocab_size: int) -> float:
    """The loss of a uniform guess over ``vocab_size`` tokens: ln(vocab_size)."""
    return math.log(vocab_size)


def unigram_probabilities(train: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """Each token's add-one smoothed share of the training ids."""
    counts = torch.bincount(train, minlength=vocab_size).double()  # (V,)
    return (counts + 1) / (counts.sum() + vocab_size)  # (V,)


def unigram_loss(train: torch.Tensor, scored: torch.Tensor, vocab_size: int) -> float:
    """The loss on ``scored`` of each token guessed by its share of ``train``."""
    p = unigram_probabilities(train, vocab_size)  # (V,)
    return -p[scored].log().mean().item()


def bigram_loss(train: torch.Tensor, scored: torch.Tensor, vocab_size: int) -> float:
    """The loss on ``scored`` (from its second id on) of each token guessed from the one before
    it: the training counts of what follows it, Witten-Bell smoothed towards the unigram guess."""
    unigram = unigram_probabilities(train, vocab_size)  # (V,)
    pairs, pair_counts = torch.unique(train[:-1] * vocab_size + train[1:], return_counts=True)  # sorted
    before = pairs // vocab_size  # (P,) the first token of each distinct pair
    follows = torch.bincount(before, weights=pair_counts.double(), minlength=vocab_size)  # (V,) c(a)
    kinds = torch.bincount(before, minlength=vocab_size).double()  # (V,) distinct followers T(a)
    a, b = scored[:-1], scored[1:]  # (N-1,) each
    wanted = a * vocab_size + b
    at = torch.searchsorted(pairs, wanted).clamp(max=len(pairs) - 1)
    seen = torch.where(pairs[at] == wanted, pair_counts[at].double(), 0.0)  # (N-1,) c(a, b)
    p = (seen + kinds[a] * unigram[b]) / (follows[a] + kinds[a])  # (N-1,)
    p = torch.where(follows[a] > 0, p, unigram[b])  # a token never seen before anything: unigram
    return -p.log().mean().item()
