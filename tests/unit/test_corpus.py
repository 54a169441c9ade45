"""The texts as the models read them: tiny Shakespeare and the Tang poems, by character or by
byte pairs, in two splits cut at the same character."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from selfattn import ATTENTION, BIGRAM
from selfattn.bpe import BytePairTokenizer
from selfattn.config import CORPORA
from selfattn.corpus import TEXTS, load_corpus
from selfattn.runs import LADDER, describe


def test_every_text_a_config_can_name_is_one_the_package_reads():
    assert set(CORPORA) == set(TEXTS)


def test_byte_pairs_are_learned_on_the_training_split_and_cut_where_the_characters_are(corpus):
    pairs = load_corpus("shakespeare", 512)
    assert isinstance(pairs.tokenizer, BytePairTokenizer) and pairs.tokenizer.vocab_size == 512
    assert pairs.tokenizer.decode(pairs.train) + pairs.tokenizer.decode(pairs.val) == corpus.text
    assert pairs.tokenizer.decode(pairs.val) == corpus.tokenizer.decode(corpus.val)  # the same characters
    assert pairs.val_chars == corpus.val_chars == len(corpus.val)
    assert (
        pairs.tokenizer.merges == BytePairTokenizer.trained(corpus.tokenizer.decode(corpus.train), 512).merges
    )


def test_bits_per_character_count_a_loss_per_token_over_the_characters(corpus):
    assert corpus.bits_per_char(math.log(2)) == pytest.approx(1.0)  # a character is a token
    pairs = load_corpus("shakespeare", 512)
    assert pairs.bits_per_char(math.log(2)) == pytest.approx(len(pairs.val) / pairs.val_chars)


def test_the_tang_poems_are_read_a_character_a_token():
    poems = load_corpus("tang-poems")
    assert poems.tokenizer.vocab_size == 8_337 <= CORPORA["tang-poems"]
    assert poems.tokenizer.decode(poems.train[:12]) == "秦川雄帝宅，函谷壯皇居。"
    assert len(poems.train) + len(poems.val) == len(poems.text) and len(poems.val) == poems.val_chars


def test_a_run_lists_its_text_and_tokens_only_when_they_are_not_shakespeares_characters():
    assert "corpus" not in describe("bigram", BIGRAM) and "bpe_vocab" not in describe("bigram", BIGRAM)
    poems = describe("gpt", replace(LADDER["small-gpt"].config, corpus="tang-poems"))
    assert "corpus = tang-poems" in poems and "bpe_vocab" not in poems
    assert "bpe_vocab = 512" in describe("attention", replace(ATTENTION, bpe_vocab=512))
