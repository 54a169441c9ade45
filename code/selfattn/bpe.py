"""Byte-pair encoding from scratch: a text as bytes, then the most frequent adjacent pair merged
into a new token, again and again (Gage 1994; Sennrich et al. 2016; GPT-2's byte-level form,
Radford et al. 2019).

The text is first cut into pieces (a word with the space before it, a run of digits, of
punctuation, of white space), as GPT-2's tokenizer does, and no merge crosses two pieces. The same
piece merges the same way wherever it occurs, so :func:`train` counts each distinct piece once,
weighted by how often it occurs, and after each merge recounts only the pieces that held the
merged pair. :func:`train_naive` recounts every pair of the whole text at every merge: the same
merges, far more slowly.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from itertools import pairwise

from selfattn.errors import ConfigError
from selfattn.language import say

# A piece: a contraction's ending, a word or a number or a run of punctuation (each with the space
# before it), or white space (a run before a word leaves that word its space).
PIECE = re.compile(r"'(?:[sdmt]|ll|ve|re)| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+")
BYTES = 256  # the first 256 tokens: one per byte

Pair = tuple[int, int]


def pieces(text: str) -> list[str]:
    """The text cut into the pieces no merge crosses; joined, they are the text again."""
    return PIECE.findall(text)


def merge(ids: list[int], pair: Pair, new: int) -> list[int]:
    """``ids`` with every occurrence of ``pair``, left to right, replaced by ``new``."""
    merged, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            merged.append(new)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def most_frequent(counts: dict[Pair, int]) -> Pair:
    """The pair with the highest count; of equal counts, the smallest pair (so ties are decided
    the same way on every machine, whatever order the counts were made in)."""
    top = max(counts.values())
    return min(pair for pair, count in counts.items() if count == top)


def check_vocab_size(vocab_size: int, name: str = "vocab_size") -> None:
    """Refuse, in one line, a byte-level vocabulary smaller than the bytes (``name``: the setting's)."""
    if not isinstance(vocab_size, int) or vocab_size < BYTES:
        raise ConfigError(
            say(
                "{name}={size!r}: a byte-level vocabulary holds the 256 bytes and then the merges; "
                "give a whole number of 256 or more.",
                name=name,
                size=vocab_size,
            )
        )


def train_naive(text: str, vocab_size: int) -> dict[Pair, int]:
    """The merges that make ``vocab_size`` tokens, learned the plain way: at every merge, count
    every adjacent pair of the whole text, and merge the most frequent one everywhere."""
    check_vocab_size(vocab_size)
    words = [list(piece.encode("utf-8")) for piece in pieces(text)]
    merges: dict[Pair, int] = {}
    for new in range(BYTES, vocab_size):
        counts = Counter(pair for ids in words for pair in pairwise(ids))
        if not counts:  # every piece is one token already
            break
        pair = most_frequent(counts)
        merges[pair] = new
        words = [merge(ids, pair, new) for ids in words]
    return merges


def train(text: str, vocab_size: int) -> dict[Pair, int]:
    """The same merges as :func:`train_naive`, learned on the distinct pieces: each counted once
    with how often it occurs, and after a merge only the pieces that held the pair recounted."""
    check_vocab_size(vocab_size)
    frequency = Counter(pieces(text))
    words = [list(piece.encode("utf-8")) for piece in frequency]
    times = list(frequency.values())
    counts: Counter[Pair] = Counter()
    holders: defaultdict[Pair, set[int]] = defaultdict(set)  # pair -> the words that hold it
    for w, ids in enumerate(words):
        for pair in pairwise(ids):
            counts[pair] += times[w]
            holders[pair].add(w)
    merges: dict[Pair, int] = {}
    for new in range(BYTES, vocab_size):
        if not counts:
            break
        pair = most_frequent(counts)
        merges[pair] = new
        for w in holders.pop(pair):
            ids = words[w]
            for old in pairwise(ids):  # take the word's pairs out, then put its new ones in
                counts[old] -= times[w]
                if not counts[old]:  # no word holds it any more
                    del counts[old]
            words[w] = ids = merge(ids, pair, new)
            for now in pairwise(ids):
                counts[now] += times[w]
                holders[now].add(w)
    return merges


class BytePairTokenizer:
    """Text to tokens and back with learned merges: the bytes of each piece, then the merges in
    the order they were learned."""

    def __init__(self, merges: dict[Pair, int]) -> None:
        self.merges = merges
        self.vocab: dict[int, bytes] = {i: bytes([i]) for i in range(BYTES)}
        for (a, b), new in merges.items():
            self.vocab[new] = self.vocab[a] + self.vocab[b]
        self._known: dict[str, list[int]] = {}  # each piece's tokens, once worked out

    @classmethod
    def trained(cls, text: str, vocab_size: int) -> BytePairTokenizer:
        """A tokenizer of ``vocab_size`` tokens learned on ``text``."""
        return cls(train(text, vocab_size))

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode_piece(self, piece: str) -> list[int]:
        """One piece's tokens: its bytes, then, while any adjacent pair has a merge, the pair
        learned first merged."""
        if piece not in self._known:
            ids = list(piece.encode("utf-8"))
            while len(ids) > 1:
                pair = min(pairwise(ids), key=lambda p: self.merges.get(p, float("inf")))
                if pair not in self.merges:
                    break
                ids = merge(ids, pair, self.merges[pair])
            self._known[piece] = ids
        return self._known[piece]

    def encode(self, text: str) -> list[int]:
        """Text to token ids."""
        return [i for piece in pieces(text) for i in self.encode_piece(piece)]

    def decode(self, ids: Iterable[int]) -> str:
        """Token ids back to text (a cut through a character's bytes shows as U+FFFD)."""
        return b"".join(self.vocab[int(i)] for i in ids).decode("utf-8", errors="replace")
