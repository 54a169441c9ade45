"""Downloads: checksums, atomic cache, the offline mirror and the no-network message."""

from __future__ import annotations

import hashlib
import urllib.error
from pathlib import Path

import pytest

from selfattn import data
from selfattn.data import DataError, Remote, fetch

PAYLOAD = b"To be, or not to be\n"
REMOTE = Remote("toy/text.txt", "https://example.invalid/text.txt", hashlib.sha256(PAYLOAD).hexdigest())


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(data.DOWNLOAD_CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(data.MIRROR_ENV, raising=False)
    return tmp_path / "cache"


@pytest.fixture
def network(monkeypatch):
    """A fake network: records requests, serves whatever ``served`` holds."""
    calls = []
    served = {"bytes": PAYLOAD}

    class Response:
        def __init__(self, payload: bytes) -> None:
            self.payload = payload

        def read(self) -> bytes:
            return self.payload

        def __enter__(self):
            return self

        def __exit__(self, *exc) -> None:
            return None

    def urlopen(url, timeout):
        calls.append(url)
        if served["bytes"] is None:
            raise urllib.error.URLError("Temporary failure in name resolution")
        return Response(served["bytes"])

    monkeypatch.setattr(data.urllib.request, "urlopen", urlopen)
    return calls, served


def test_download_is_verified_and_cached(cache, network):
    calls, _ = network
    path = fetch(REMOTE)
    assert path == cache / "toy/text.txt"
    assert path.read_bytes() == PAYLOAD
    fetch(REMOTE)
    assert calls == [REMOTE.url], "a verified cached file must not be downloaded again"
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")], "no temporary files left"


def test_corrupt_cached_file_is_fetched_again(cache, network):
    calls, _ = network
    target = cache / "toy/text.txt"
    target.parent.mkdir(parents=True)
    target.write_bytes(PAYLOAD[:5])  # a partial download
    assert fetch(REMOTE).read_bytes() == PAYLOAD
    assert calls == [REMOTE.url]


def test_wrong_checksum_from_network_is_rejected(cache, network):
    _, served = network
    served["bytes"] = b"something else"
    with pytest.raises(DataError, match="SHA-256"):
        fetch(REMOTE)
    assert not (cache / "toy/text.txt").exists(), "a bad download must not reach the cache"


def test_no_network_and_no_mirror_names_both_ways_out(cache, network):
    _, served = network
    served["bytes"] = None
    with pytest.raises(DataError) as err:
        fetch(REMOTE)
    message = str(err.value)
    assert "internet" in message and data.MIRROR_ENV in message and REMOTE.url in message


def test_mirror_is_used_instead_of_network(cache, network, tmp_path, monkeypatch):
    calls, _ = network
    mirror = tmp_path / "mirror"
    (mirror / "toy").mkdir(parents=True)
    (mirror / "toy/text.txt").write_bytes(PAYLOAD)
    monkeypatch.setenv(data.MIRROR_ENV, str(mirror))
    assert fetch(REMOTE).read_bytes() == PAYLOAD
    assert calls == []


def test_mirror_missing_file_is_a_clear_error(cache, network, tmp_path, monkeypatch):
    monkeypatch.setenv(data.MIRROR_ENV, str(tmp_path / "empty"))
    with pytest.raises(DataError, match=r"does not exist.*unset SELFATTN_DATA_MIRROR"):
        fetch(REMOTE)


def test_tiny_shakespeare_arrives_whole_and_verified(corpus):
    # tiny Shakespeare through the configured mirror or network: size and checksum
    path = fetch(data.TINY_SHAKESPEARE)
    assert path.stat().st_size == 1_115_394
    assert data.sha256_of(path) == data.TINY_SHAKESPEARE.sha256
    assert len(corpus.text) == 1_115_394
