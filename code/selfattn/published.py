"""The book's trained runs, published beside its site, so that a reader's kernel loads them.

The build puts every run it trained into the site's ``runs/`` folder (:func:`publish`) with a
manifest, ``manifest.json``: each run's key, file, size and SHA-256, and the provenance every key
holds (data, torch, training code). When a run is missing from a reader's own cache,
:func:`selfattn.fit` asks there (:func:`fetch`). The manifest must be what :func:`publish` writes,
field for field, its keys of :func:`selfattn.run_cache.run_key`'s form and its files plain names in the
runs folder; the file must have the manifest's size and SHA-256, is read without running any of its
code (:func:`selfattn.run_cache.read`), and must record that it is the run of the key asked for before
it is kept. Each download ends within ``TIMEOUT`` plus its expected size at ``SLOWEST`` bytes a
second, whatever the server sends. Anything wrong (no network, no answer in time, a malformed
manifest, a missing key, a wrong hash, a file that is not a run or not this key's run) costs one
line, and the run trains as it would have. A build's own run cache (``SELFATTN_RUN_CACHE``) never
fetches: the build trains what it shows.

    python -m selfattn fetch-runs                  # every published run of this code into the cache
    python -m selfattn publish-runs RUNS SITE      # the runs in RUNS, as SITE/runs

``SELFATTN_RUNS_URL`` names another place to fetch from (a folder served over HTTP); set empty,
it turns fetching off. ``SELFATTN_NO_RUN_CACHE=1`` turns the cache off, and fetching with it.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import json
import os
import queue
import re
import reprlib
import shutil
import sys
import threading
import time
import typing
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from selfattn import run_cache
from selfattn.config import TrainConfig
from selfattn.files import write_atomically
from selfattn.language import say

# Where the book is published: _config.yml's html.baseurl (tests/unit/test_published.py holds
# the two equal). Its runs are in the folder RUNS_FOLDER under it.
SITE = "https://selfattn-book.github.io/self-attention-from-scratch/"
RUNS_FOLDER = "runs"
MANIFEST = "manifest.json"
URL_ENV = "SELFATTN_RUNS_URL"
TIMEOUT = 5.0  # seconds a request may wait for the server before the run trains instead
MANIFEST_MOST = 1 << 22  # bytes a manifest may have (the book's is about 30 kB)
SLOWEST = 100_000  # bytes a second below which a download is given up
CHUNK = 1 << 16  # the most bytes one read takes (it takes what has arrived)
KEY = re.compile(r"[0-9a-f]{32}")  # what run_cache.run_key makes: a file name in the reader's cache
FILE_NAME = re.compile(r"[\w-][\w.-]*", re.ASCII)  # a file in the runs folder: no folder, no "..", no "?"


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
    """The published runs and the provenance every one of their keys holds (run_cache.provenance)."""

    provenance: dict[str, str]
    commit: str  # the commit built, or "" when unknown
    runs: dict[str, Entry]

    def total_bytes(self) -> int:
        return sum(entry.bytes for entry in self.runs.values())


def address() -> str | None:
    """Where published runs are fetched from (a URL ending in "/"), or None when nothing is fetched:
    the run cache is a build's own, or ``SELFATTN_RUNS_URL`` is set empty."""
    if os.environ.get(run_cache.RUN_CACHE_ENV):
        return None
    url = os.environ.get(URL_ENV, SITE + RUNS_FOLDER + "/")
    return url.rstrip("/") + "/" if url else None


def _get(url: str, most: int) -> bytes:
    """The body at ``url``, at most ``most`` bytes, within ``TIMEOUT`` plus ``most`` at ``SLOWEST``
    whatever the server sends (slowly, or headers without end): the request runs in a thread of
    its own, left behind when the time is up, which stops at its next read."""
    allowed = TIMEOUT + most / SLOWEST
    late = say("{url} did not arrive within {allowed:.0f} s", url=url, allowed=allowed)
    answers: queue.SimpleQueue[bytes | Exception] = queue.SimpleQueue()

    def download() -> None:
        try:
            answers.put(_download(url, most, time.monotonic() + allowed, late))
        except Exception as err:  # raised where the caller waits
            answers.put(err)

    threading.Thread(target=download, name=f"fetching {url}", daemon=True).start()
    try:
        answer = answers.get(timeout=allowed)
    except queue.Empty:
        raise Unavailable(late) from None
    if isinstance(answer, Exception):
        raise answer
    return answer


def _download(url: str, most: int, deadline: float, late: str) -> bytes:
    """The body at ``url``, taken as it arrives, at most ``most`` bytes, until ``deadline`` (then
    Unavailable, saying ``late``); ``TIMEOUT`` for the server to say anything at all."""
    body = bytearray()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            while chunk := response.read1(CHUNK):
                body += chunk
                if len(body) > most:
                    raise Unavailable(
                        say("{url} is larger than the {most:,} bytes expected", url=url, most=most)
                    )
                if time.monotonic() > deadline:
                    raise Unavailable(late)
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
    """The manifest ``text`` holds, if it is what :func:`publish` writes (the fields of
    :class:`Manifest` and :class:`Entry`, each of its type, and the provenance in words); otherwise
    Unavailable, in one line."""
    try:
        data = _typed(json.loads(text), Manifest, "")
        _check(all(type(value) is str for value in data["provenance"].values()), "provenance")
        runs = {key: _entry(key, entry) for key, entry in data["runs"].items()}
        return Manifest(data["provenance"], data["commit"], runs)
    except (ValueError, RecursionError) as err:  # RecursionError: JSON nested too deep to read
        raise Unavailable(
            say("{url} is not a runs manifest ({error})", url=url + MANIFEST, error=err)
        ) from None


def _entry(key: str, data: object) -> Entry:
    """The entry ``data`` of the run ``key``, if the key is of :func:`run_cache.run_key`'s form (it
    names a file in the reader's cache), the file a plain name in the runs folder and the size
    0 or more; otherwise ValueError."""
    if not KEY.fullmatch(key):
        raise ValueError(say("{key} is not a run key (32 hexadecimal digits)", key=reprlib.repr(key)))
    where = f"runs[{key!r}]"
    entry = Entry(**_typed(data, Entry, where))
    _check(FILE_NAME.fullmatch(entry.file) is not None, f"{where}.file")
    _check(entry.bytes >= 0, f"{where}.bytes")
    return entry


def _typed(data: object, form: type, where: str) -> dict:
    """``data``, if it is a JSON object with the fields of the dataclass ``form``, each of its type;
    otherwise ValueError naming ``where`` (empty: the manifest) or the field."""
    types = typing.get_type_hints(form)
    _check(type(data) is dict and data.keys() == types.keys(), where or MANIFEST)
    for field, kind in types.items():
        _check(type(data[field]) is (typing.get_origin(kind) or kind), f"{where}.{field}".lstrip("."))
    return data


def _check(holds: bool, where: str) -> None:
    """ValueError, naming ``where`` in the manifest, unless ``holds``."""
    if not holds:
        raise ValueError(say("{where} is not of the form publish-runs writes", where=where))


def _made_key(run: dict, provenance: dict[str, str] | None = None) -> str | None:
    """The key here of ``run`` by its own record of how it was made (``made_by``): its kind and
    config, if the provenance it records is ``provenance`` (by default this code's,
    :func:`run_cache.made_by`); otherwise None."""
    made = run.get("made_by")
    try:
        kind, config = made["kind"], TrainConfig(**made["config"])
        return (
            run_cache.run_key(kind, config) if made == run_cache.made_by(kind, config, provenance) else None
        )
    except (TypeError, KeyError, ValueError):  # no record, or not one this code reads
        return None


def _published_entry(published: Manifest, key: str) -> Entry | None:
    """The published run of ``key``; or, when the runs were made by this code and data with another
    torch (a notebook on Colab has its own), the one of the same kind and config: its weights are
    the book's, which the reader's torch loads as they are."""
    here = run_cache.provenance()
    if {**published.provenance, "torch": here["torch"]} != here:  # other code or data
        return None
    if key in published.runs:
        return published.runs[key]
    for entry in published.runs.values():
        try:
            if run_cache.run_key(entry.kind, TrainConfig(**entry.config), made=here) == key:
                return entry
        except TypeError:  # a config this code does not read
            continue
    return None


def fetch(key: str, folder: Path, url: str | None = None) -> dict | None:
    """The published run ``key``, from ``url`` (by default :func:`address`), checked and kept in
    ``folder``; None, after one line that says why, when it cannot be had (at once, silently, when
    nothing is fetched)."""
    url = url or address()
    if url is None:
        return None
    try:
        published = manifest(url)
        entry = _published_entry(published, key)
        if entry is None:
            raise Unavailable(
                say(
                    "{url} has no run with key {key} (made by this code, data and config)",
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
            run = run_cache.read(io.BytesIO(payload))
        except run_cache.UNREADABLE as err:
            raise Unavailable(
                say("{url} was refused unread: {why}", url=url + entry.file, why=run_cache.unreadable(err))
            ) from None
        if _made_key(run, published.provenance) != key:
            raise Unavailable(
                say(
                    "{url} is not the run of key {key} (by its own record of how it was made)",
                    url=url + entry.file,
                    key=key,
                )
            )
    except Unavailable as why:
        print(
            say("Not using the book's published run: {why}. Training it here instead.", why=why),
            file=sys.stderr,
            flush=True,
        )
        return None
    write_atomically(run_cache.path(folder, key), lambda file: file.write(payload))
    ours = run_cache.provenance()["torch"]
    theirs = published.provenance.get("torch", ours)
    print(
        say(
            "Loaded the book's trained run from {url} (kept in {folder}).",
            url=url + entry.file,
            folder=folder,
        )
        if theirs == ours
        else say(
            "Loaded the book's trained run from {url}, trained with torch {theirs} (this is {ours}): "
            "the model is the book's (kept in {folder}).",
            url=url + entry.file,
            theirs=theirs,
            ours=ours,
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
    if published.provenance != run_cache.provenance():
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
        if run_cache.has(folder, key) or fetch(key, folder, url) is not None:
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
    their manifest there. A run counts when its file's name is the key its own record makes
    (:func:`_made_key`): files of older code, or none at all, stay behind."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    entries = {}
    for file in sorted(runs.glob("*.pt")):
        try:
            run = run_cache.read(file)
        except run_cache.UNREADABLE:
            continue
        if _made_key(run) != file.stem:
            continue
        made = run["made_by"]
        shutil.copyfile(file, target / file.name)
        digest = hashlib.sha256(file.read_bytes()).hexdigest()
        entries[file.stem] = Entry(file.name, file.stat().st_size, digest, made["kind"], made["config"])
    published = Manifest(run_cache.provenance(), commit, entries)
    text = json.dumps(asdict(published), indent=1, sort_keys=True) + "\n"
    (target / MANIFEST).write_text(text, encoding="utf-8")  # as the site's files: readable by a web server
    return published
