"""The book's trained runs, published beside its site, so that a reader's kernel loads them.

The build puts every run it trained into the site's ``runs/`` folder (:func:`publish`) with a
manifest, ``manifest.json``: each run's key, file, size and SHA-256, and the provenance every key
holds (data, torch, training code). When a run is missing from a reader's own cache,
:func:`selfattn.fit` asks there (:func:`fetch`): the file must have the manifest's size and
SHA-256, and is read without running any of its code (:func:`selfattn.cache.read`) before it is
kept. Anything wrong (no network, no answer within ``TIMEOUT``, a missing key, a wrong hash, a file
that is not a run) costs one line, and the run trains as it would have. A build's own run cache
(``SELFATTN_RUN_CACHE``) never fetches: the build trains what it shows.

    python -m selfattn fetch-runs                  # every published run of this code into the cache
    python -m selfattn publish-runs RUNS SITE      # the runs in RUNS, as SITE/runs

``SELFATTN_RUNS_URL`` names another place to fetch from (a folder served over HTTP); set empty,
it turns fetching off. ``SELFATTN_NO_CACHE=1`` turns the cache off, and fetching with it.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import io
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from selfattn import cache
from selfattn.config import TrainConfig
from selfattn.files import write_atomically
from selfattn.language import say

# Where the book is published: _config.yml's html.baseurl (tests/unit/test_published.py holds
# the two equal). Its runs are in the folder RUNS under it.
SITE = "https://selfattn-book.github.io/self-attention-from-scratch/"
RUNS = "runs"
MANIFEST = "manifest.json"
URL_ENV = "SELFATTN_RUNS_URL"
TIMEOUT = 5.0  # seconds a request may wait for the server before the run trains instead
MANIFEST_MOST = 1 << 22  # bytes a manifest may have (the book's is about 30 kB)
SLOWEST = 100_000  # bytes a second below which a download is given up
CHUNK = 1 << 16


class Unavailable(Exception):
    """Why a published run cannot be used, in words that finish "...: training it here"."""


@dataclass(frozen=True)
class Entry:
    """One published run: its file in the runs folder, and what the file must be."""

    file: str
    bytes: int
    sha256: str
    kind: str  # what it trained, for a reader of the manifest
    config: dict


@dataclass(frozen=True)
class Manifest:
    """The published runs and the provenance every one of their keys holds (cache.provenance)."""

    provenance: dict[str, str]
    commit: str  # the commit built, or "" when unknown
    runs: dict[str, Entry]

    def total_bytes(self) -> int:
        return sum(entry.bytes for entry in self.runs.values())


def address() -> str | None:
    """Where published runs are fetched from (a URL ending in "/"), or None when nothing is fetched:
    the run cache is a build's own, or ``SELFATTN_RUNS_URL`` is set empty."""
    if os.environ.get(cache.CACHE_ENV):
        return None
    url = os.environ.get(URL_ENV, SITE + RUNS + "/")
    return url.rstrip("/") + "/" if url else None


def _get(url: str, most: int) -> bytes:
    """The body at ``url``, at most ``most`` bytes, within ``TIMEOUT`` of each read."""
    allowed = TIMEOUT + most / SLOWEST
    deadline = time.monotonic() + allowed
    body = bytearray()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            while chunk := response.read(CHUNK):
                body += chunk
                if len(body) > most:
                    raise Unavailable(
                        say("{url} is larger than the {most:,} bytes expected", url=url, most=most)
                    )
                if time.monotonic() > deadline:
                    raise Unavailable(
                        say("{url} did not arrive within {allowed:.0f} s", url=url, allowed=allowed)
                    )
    except urllib.error.HTTPError as err:
        raise Unavailable(
            say("{url} answered {code} {reason}", url=url, code=err.code, reason=err.reason)
        ) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as err:
        reason = getattr(err, "reason", err)
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            raise Unavailable(
                say("{url} did not answer within {wait:.0f} s", url=url, wait=TIMEOUT)
            ) from None
        raise Unavailable(say("{url} could not be reached ({reason})", url=url, reason=reason)) from None
    return bytes(body)


_manifests: dict[str, Manifest | Unavailable] = {}  # by address: read once in a process


def manifest(url: str) -> Manifest:
    """The manifest of the runs published at ``url``, fetched once a process (so is a failure)."""
    if url not in _manifests:
        try:
            _manifests[url] = _parse(_get(url + MANIFEST, MANIFEST_MOST), url)
        except Unavailable as why:
            _manifests[url] = why
    found = _manifests[url]
    if isinstance(found, Unavailable):
        raise found
    return found


def _parse(text: bytes, url: str) -> Manifest:
    try:
        data = json.loads(text)
        runs = {key: Entry(**entry) for key, entry in data["runs"].items()}
        return Manifest(dict(data["provenance"]), str(data["commit"]), runs)
    except (ValueError, KeyError, TypeError) as err:
        raise Unavailable(
            say("{url} is not a runs manifest ({error})", url=url + MANIFEST, error=err)
        ) from None


def fetch(key: str, folder: Path, url: str | None = None) -> dict | None:
    """The published run ``key``, from ``url`` (by default :func:`address`), checked and kept in
    ``folder``; None, after one line that says why, when it cannot be had (at once, silently, when
    nothing is fetched)."""
    url = url or address()
    if url is None:
        return None
    try:
        entry = manifest(url).runs.get(key)
        if entry is None:
            raise Unavailable(
                say(
                    "{url} has no run with key {key} (made by this code and config, with this torch)",
                    url=url,
                    key=key,
                )
            )
        payload = _get(url + entry.file, entry.bytes)
        if len(payload) != entry.bytes or hashlib.sha256(payload).hexdigest() != entry.sha256:
            raise Unavailable(
                say(
                    "{url} is not the file the manifest lists "
                    "({got:,} bytes, {want:,} expected, or another SHA-256)",
                    url=url + entry.file,
                    got=len(payload),
                    want=entry.bytes,
                )
            )
        try:
            run = cache.read(io.BytesIO(payload))
        except cache.UNREADABLE as err:
            raise Unavailable(
                say("{url} was refused unread: {why}", url=url + entry.file, why=cache.unreadable(err))
            ) from None
    except Unavailable as why:
        print(
            say("Not using the book's published run: {why}. Training it here instead.", why=why),
            file=sys.stderr,
            flush=True,
        )
        return None
    write_atomically(cache.path(folder, key), lambda file: file.write(payload))
    print(
        say(
            "Loaded the book's trained run from {url} (kept in {folder}).",
            url=url + entry.file,
            folder=folder,
        ),
        file=sys.stderr,
        flush=True,
    )
    return run


def fetch_all(folder: Path, url: str) -> int:
    """Every run published at ``url`` into ``folder``, if they were made by this code; how many.

    Says in one line what it did, or why it did nothing.
    """
    try:
        published = manifest(url)
    except Unavailable as why:
        print(say("No published runs fetched: {why}. Live pages will train the runs they need.", why=why))
        return 0
    if published.provenance != cache.provenance():
        print(
            say(
                "The runs at {url} were made by another version of the book's code (commit {commit}): "
                "none fetched. Live pages will train the runs they need.",
                url=url,
                commit=published.commit[:12],
            )
            if published.commit
            else say(
                "The runs at {url} were made by another version of the book's code: none fetched. "
                "Live pages will train the runs they need.",
                url=url,
            )
        )
        return 0
    fetched = 0
    for key in published.runs:
        if cache.has(folder, key) or fetch(key, folder, url) is not None:
            fetched += 1
    size = published.total_bytes() / 1e6
    print(
        say(
            "{fetched} of {runs} published runs ({size:.1f} MB) in {folder}.",
            fetched=fetched,
            runs=len(published.runs),
            size=size,
            folder=folder,
        )
    )
    return fetched


def publish(runs: Path, target: Path, commit: str = "") -> Manifest:
    """Copy the runs of ``runs`` that this code trained into ``target``, emptied first, and write
    their manifest there. A run counts when its file's name is the key its recorded kind and
    config have now (``cache.made_by``): files of older code, or none at all, stay behind."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    entries = {}
    for file in sorted(runs.glob("*.pt")):
        try:
            made = cache.read(file).get("made_by") or {}
            current = bool(made) and cache.run_key(made["kind"], TrainConfig(**made["config"])) == file.stem
        except (*cache.UNREADABLE, TypeError):
            current = False
        if not current:
            continue
        shutil.copyfile(file, target / file.name)
        digest = hashlib.sha256(file.read_bytes()).hexdigest()
        entries[file.stem] = Entry(file.name, file.stat().st_size, digest, made["kind"], made["config"])
    published = Manifest(cache.provenance(), commit, entries)
    text = json.dumps(asdict(published), indent=1, sort_keys=True) + "\n"
    (target / MANIFEST).write_text(text, encoding="utf-8")  # as the site's files: readable by a web server
    return published


def _commit() -> str:
    """The checked-out commit of the repository this package lies in, or "" outside one."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cache.PACKAGE, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return ""
    return done.stdout.strip()


def main(argv: list[str] | None = None) -> None:
    """``python -m selfattn fetch-runs`` and ``python -m selfattn publish-runs RUNS SITE``."""
    parser = argparse.ArgumentParser(prog="python -m selfattn", description=__doc__.split("\n\n")[0])
    command = parser.add_subparsers(dest="command", required=True)
    command.add_parser("fetch-runs", help="every published run of this code into the run cache")
    put = command.add_parser(
        "publish-runs", help="the runs this code trained, into SITE/runs, with a manifest"
    )
    put.add_argument("runs", type=Path, help="the run cache a build trained into (_build/runs)")
    put.add_argument("site", type=Path, help="the built site (_build/html)")
    args = parser.parse_args(argv)
    if args.command == "publish-runs":
        published = publish(args.runs, args.site / RUNS, _commit())
        size = published.total_bytes() / 1e6
        print(
            say(
                "{runs} trained runs ({size:.1f} MB) published in {folder}.",
                runs=len(published.runs),
                size=size,
                folder=args.site / RUNS,
            )
        )
        return
    folder, url = cache.cache_folder(), address()
    if folder is None or url is None:  # said, not failed: Binder's image builds on without the runs
        print(
            say(
                "No published runs fetched: {off}, {cache} or {url}= said not to.",
                off=cache.OFF_ENV,
                cache=cache.CACHE_ENV,
                url=URL_ENV,
            )
        )
        return
    fetch_all(folder, url)
