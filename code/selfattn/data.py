"""Downloads the book needs: tiny Shakespeare and the GPT-2 BPE files (the Tang poems: ``poems``).

Each file is fetched once into a cache folder, written atomically and checked
against its SHA-256. Setting ``SELFATTN_DATA_MIRROR`` to a folder laid out as
``tinyshakespeare.txt``, ``gpt2/encoder.json``, ``gpt2/vocab.bpe`` makes the
package read from that folder instead of the network.
"""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from selfattn.errors import DataError
from selfattn.files import write_atomically
from selfattn.language import say

MIRROR_ENV = "SELFATTN_DATA_MIRROR"
DOWNLOAD_CACHE_ENV = "SELFATTN_CACHE"


@dataclass(frozen=True)
class Remote:
    """One file the book downloads: where it lives and what it must hash to."""

    name: str  # path inside the cache folder and inside a mirror
    url: str
    sha256: str


TINY_SHAKESPEARE = Remote(
    "tinyshakespeare.txt",
    "https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt",
    "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed",
)
GPT2_ENCODER = Remote(
    "gpt2/encoder.json",
    "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/encoder.json",
    "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
)
GPT2_VOCAB = Remote(
    "gpt2/vocab.bpe",
    "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/vocab.bpe",
    "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
)


def cache_dir() -> Path:
    """The folder downloads are kept in (``SELFATTN_CACHE`` or ``~/.cache/selfattn``)."""
    default = Path.home() / ".cache" / "selfattn"
    return Path(os.environ.get(DOWNLOAD_CACHE_ENV) or default).expanduser()


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _from_mirror(remote: Remote, mirror: Path) -> bytes:
    source = mirror / remote.name
    if not source.is_file():
        raise DataError(
            say(
                "{env} points at {mirror}, but {source} does not exist. "
                "Put {name} there (from {url}), or unset {env} to download it.",
                env=MIRROR_ENV,
                mirror=mirror,
                source=source,
                name=remote.name,
                url=remote.url,
            )
        )
    return source.read_bytes()


def _from_network(remote: Remote, timeout: float) -> bytes:
    try:
        with urllib.request.urlopen(remote.url, timeout=timeout) as response:
            return response.read()
    except (urllib.error.URLError, OSError) as err:
        raise DataError(
            say(
                "Could not download {name} from {url} ({error}). Either connect to the internet and "
                "try again, or set {env} to a folder that holds {name} (an offline mirror).",
                name=remote.name,
                url=remote.url,
                error=err,
                env=MIRROR_ENV,
            )
        ) from None


def fetch(remote: Remote, timeout: float = 30.0) -> Path:
    """Return a local, verified copy of ``remote``, fetching it if needed.

    A cached file with the wrong checksum (a partial or corrupt download) is
    discarded and fetched again.
    """
    target = cache_dir() / remote.name
    if target.is_file() and sha256_of(target) == remote.sha256:
        return target
    mirror = os.environ.get(MIRROR_ENV)
    payload = _from_mirror(remote, Path(mirror).expanduser()) if mirror else _from_network(remote, timeout)
    digest = hashlib.sha256(payload).hexdigest()
    if digest != remote.sha256:
        raise DataError(
            say(
                "{name} from {where} has SHA-256 {digest}, expected {expected}: the file is corrupt or a "
                "different version. Replace it with the original and try again.",
                name=remote.name,
                where=say("the mirror {mirror}", mirror=mirror) if mirror else remote.url,
                digest=digest,
                expected=remote.sha256,
            )
        )
    write_atomically(target, lambda file: file.write(payload))
    return target


def load_text() -> str:
    """The full text of tiny Shakespeare (1,115,394 characters)."""
    return fetch(TINY_SHAKESPEARE).read_text(encoding="utf-8")
