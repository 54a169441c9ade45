"""Byte-pair encoding from scratch: pieces, merges, the fast training against the plain one, and
round trips."""

from __future__ import annotations

import random

import pytest

from selfattn import ConfigError
from selfattn.bpe import BYTES, BytePairTokenizer, pieces, train, train_naive

ODD_TEXTS = [
    "",
    "a",
    "snake_case and __dunder__, 3.14 and 1,000!",
    "tabs\tand\r\nwindows line ends\n\n\n  indented\n",
    "don't you'll we've I'm they're 'quoted'",
    "床前明月光，疑是地上霜。 舉頭望明月，低頭思故鄉。",
    "émigré naïve café — “quotes” … 🙂 zero-width\u200bjoin",
]


@pytest.mark.parametrize("text", ODD_TEXTS)
def test_the_pieces_are_the_whole_text(text):
    assert "".join(pieces(text)) == text


def test_a_merge_never_crosses_a_word_and_its_space_stays_in_front():
    assert pieces("To be, or not") == ["To", " be", ",", " or", " not"]
    assert pieces("well:\n  and") == ["well", ":", "\n ", " and"]


def test_the_textbook_example_merges_the_most_frequent_pair_first_and_breaks_ties_the_same_way():
    # aaabdaaabac: aa (4 times) first; then ab and Za tie at 2, and the smaller pair, ab, wins.
    merges = train("aaabdaaabac", 259)
    a, b, c, d = (ord(ch) for ch in "abcd")
    assert merges == {(a, a): 256, (a, b): 257, (256, 257): 258}
    assert BytePairTokenizer(merges).encode("aaabdaaabac") == [258, d, 258, a, c]


def test_the_fast_training_learns_exactly_the_plain_ones_merges(corpus):
    text = corpus.text[:20_000]
    assert train(text, BYTES + 120) == train_naive(text, BYTES + 120)


def test_training_stops_when_nothing_is_left_to_merge():
    merges = train("ab ab ab", 1000)
    tok = BytePairTokenizer(merges)
    assert tok.encode("ab ab ab") == [tok.encode("ab")[0]] + [tok.encode(" ab")[0]] * 2
    assert tok.vocab_size == BYTES + len(merges) < 1000


@pytest.fixture(scope="module")
def shakespeare_tokenizer(corpus) -> BytePairTokenizer:
    """512 tokens learned on tiny Shakespeare's training split."""
    return BytePairTokenizer.trained(corpus.tokenizer.decode(corpus.train), 512)


def test_the_whole_of_tiny_shakespeare_round_trips_and_is_shorter_in_tokens(corpus, shakespeare_tokenizer):
    ids = shakespeare_tokenizer.encode(corpus.text)
    assert shakespeare_tokenizer.decode(ids) == corpus.text
    assert max(ids) < shakespeare_tokenizer.vocab_size == 512
    assert 1.5 < len(corpus.text) / len(ids) < 2.5  # characters per token


def test_each_merged_token_is_the_two_it_merged(shakespeare_tokenizer):
    vocab = shakespeare_tokenizer.vocab
    for (a, b), new in shakespeare_tokenizer.merges.items():
        assert vocab[new] == vocab[a] + vocab[b] and a < new and b < new


@pytest.mark.parametrize("text", ODD_TEXTS)
def test_text_it_never_saw_round_trips(shakespeare_tokenizer, text):
    assert shakespeare_tokenizer.decode(shakespeare_tokenizer.encode(text)) == text


def test_random_text_round_trips():
    rng = random.Random(0)
    alphabet = "ab _\n'0é中🙂,"
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(30)))
        tok = BytePairTokenizer.trained(text, BYTES + 20)
        assert tok.decode(tok.encode(text)) == text


def test_a_cut_through_a_characters_bytes_decodes_as_the_replacement_character():
    tok = BytePairTokenizer({})
    ids = tok.encode("中")  # three bytes
    assert len(ids) == 3 and tok.decode(ids[:2]) == "\ufffd"


@pytest.mark.parametrize("size", [255, 0, 300.0, "512"])
def test_a_vocabulary_smaller_than_the_bytes_is_refused_in_one_line(size):
    with pytest.raises(ConfigError, match=r"give a whole number of 256 or more"):
        train("some text", size)
