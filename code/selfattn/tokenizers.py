"""Text to integers and back: a character tokenizer and GPT-2's BPE."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterable

from selfattn.data import GPT2_ENCODER, GPT2_VOCAB, cache_dir, fetch
from selfattn.errors import ConfigError
from selfattn.language import say


class CharTokenizer:
    """One token per distinct character of a text, numbered in sorted order."""

    def __init__(self, text: str) -> None:
        self.chars: list[str] = sorted(set(text))
        self.stoi: dict[str, int] = {ch: i for i, ch in enumerate(self.chars)}

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        """Characters to ids; an unknown character is named in the error."""
        try:
            return [self.stoi[ch] for ch in text]
        except KeyError as err:
            raise ConfigError(
                say(
                    "The character {char!r} is not in this tokenizer's {size}-symbol vocabulary; "
                    "use only characters that occur in the training text.",
                    char=err.args[0],
                    size=self.vocab_size,
                )
            ) from None

    def decode(self, ids: Iterable[int]) -> str:
        """Ids back to a string."""
        return "".join(self.chars[int(i)] for i in ids)


def gpt2_tokenizer():
    """tiktoken's ``gpt2`` encoding, working offline when a mirror is set.

    tiktoken caches each download under ``sha1(url)`` in ``TIKTOKEN_CACHE_DIR``
    and checks its hash itself. The package fetches the two files (from the
    mirror or the network, verified) and places them there first.
    """
    import tiktoken

    tik_cache = os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(cache_dir() / "tiktoken"))
    os.makedirs(tik_cache, exist_ok=True)
    for remote in (GPT2_VOCAB, GPT2_ENCODER):
        key = hashlib.sha1(remote.url.encode()).hexdigest()
        dest = os.path.join(tik_cache, key)
        if not os.path.isfile(dest):
            shutil.copyfile(fetch(remote), dest)
    return tiktoken.get_encoding("gpt2")
