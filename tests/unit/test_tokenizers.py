"""The character tokenizer and GPT-2's BPE."""

from __future__ import annotations

import pytest

from selfattn import CharTokenizer, ConfigError, gpt2_tokenizer
from selfattn.config import CORPORA


def test_tiny_shakespeare_has_65_characters_newline_and_space_first(corpus):
    tok = corpus.tokenizer
    assert tok.vocab_size == 65 <= CORPORA["shakespeare"]
    assert tok.chars[0] == "\n" and tok.chars[1] == " "


def test_characters_encode_one_id_each_and_decode_back(corpus):
    text = corpus.text[:1000]
    ids = corpus.tokenizer.encode(text)
    assert len(ids) == len(text)
    assert corpus.tokenizer.decode(ids) == text


def test_an_unknown_character_is_refused_by_name():
    tok = CharTokenizer("abc")
    with pytest.raises(ConfigError, match="'z' is not in this tokenizer's 3-symbol vocabulary"):
        tok.encode("abz")


def test_gpt2_loads_from_the_local_cache_and_gives_the_known_ids(tmp_path, monkeypatch):
    import tiktoken.load
    import tiktoken.registry

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken"))  # an empty tiktoken cache
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})  # forget encodings loaded earlier

    def no_network(url):
        raise AssertionError(f"tiktoken tried to download {url}")

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    enc = gpt2_tokenizer()
    ids = enc.encode("Your journey starts with one step")
    assert ids == [7120, 7002, 4940, 351, 530, 2239]
    assert [enc.decode([i]) for i in ids] == ["Your", " journey", " starts", " with", " one", " step"]
    assert enc.decode(ids) == "Your journey starts with one step"
    assert enc.n_vocab == 50257
