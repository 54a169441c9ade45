"""The book's published runs: a reader's kernel fetches, checks and loads them from a real HTTP
server on 127.0.0.1, and anything wrong costs one line and a trained run, never code run."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import pickle
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, replace
from pathlib import Path

import pytest
import torch
import yaml

import tools.serve
from bookbuild import ROOT
from selfattn import ATTENTION, History, fit, published, run_cache
from tests.helpers import Published, keep_runs_in, publish_a_run, same_weights
from tools.serve import serve

SHORT = replace(ATTENTION, max_iters=30, eval_interval=10, eval_iters=5)
OTHER = replace(SHORT, seed=2)  # a run nobody published
SECOND = replace(SHORT, seed=3)  # a run published on a second site
TRICKLE = 0.2  # seconds between the bytes of a server that answers, barely
GIVE_UP = 60.0  # seconds after which a fetch that has not returned fails its test


@pytest.fixture
def book(tmp_path, monkeypatch) -> Published:
    return publish_a_run(tmp_path, monkeypatch, SHORT)


@pytest.fixture
def second_book(tmp_path, monkeypatch) -> Published:
    return publish_a_run(tmp_path / "second", monkeypatch, SECOND)


@pytest.fixture
def reader(tmp_path, monkeypatch):
    """A reader's kernel: no build cache, its own cache folder, nothing remembered of a manifest;
    returns a function that points it at an address and fits ``config`` there."""
    keep_runs_in(monkeypatch, None)
    monkeypatch.setenv("SELFATTN_CACHE", str(tmp_path / "reader-cache"))
    monkeypatch.setattr(published, "_manifests", {})
    monkeypatch.setattr(published, "TIMEOUT", 1.0)  # a hanging server costs a second, not five

    def fit_from(url: str, config=SHORT):
        monkeypatch.setenv(published.URL_ENV, url)
        return fit("attention", config)

    return fit_from


@pytest.fixture
def server(book) -> Iterator[str]:
    """The published site on 127.0.0.1, as a static host serves it; its runs' address."""
    with serve(book.site) as site:
        yield site.url(f"{published.RUNS_FOLDER}/")


def only_line(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, f"one line, not {lines}"
    return lines[0]


def trained_here(capsys, book: Published, history: History, why: str) -> None:
    """The run trained (the same numbers as the published one, not its file) after one line."""
    line = only_line(capsys)
    assert why in line and line.endswith("Training it here instead."), line
    assert history.val_loss == book.history.val_loss, "trained as the book trained it"
    assert history.seconds != book.history.seconds, "trained, not loaded"
    assert run_cache.has(run_cache.cache_folder(), book.key), "and kept in the reader's cache"


def test_the_site_address_is_the_books(book):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert published.SITE == config["html"]["baseurl"]


def test_a_fresh_cache_fetches_checks_and_loads_the_published_run(book, server, reader, capsys):
    model, history = reader(server)
    assert history == book.history, "the history, training time included, bit for bit"
    assert same_weights(model, book.model)
    assert "Loaded the book's trained run" in only_line(capsys)
    kept = run_cache.path(run_cache.cache_folder(), book.key)
    assert kept.read_bytes() == (book.runs / kept.name).read_bytes()
    again, _ = reader(server)  # now from the reader's own cache, silently
    assert same_weights(again, book.model) and capsys.readouterr().err == ""


def test_a_missing_key_trains(book, server, reader, capsys):
    _, history = reader(server, OTHER)
    line = only_line(capsys)
    assert "has no run with key" in line and line.endswith("Training it here instead.")
    assert history.val_loss == fit("attention", OTHER)[1].val_loss


def test_a_wrong_hash_trains(book, server, reader, capsys):
    book.rewrite_manifest(lambda entry: entry.update(sha256="0" * 64))
    trained_here(capsys, book, reader(server)[1], "is not the file the manifest lists")


def test_a_truncated_file_trains(book, server, reader, capsys):
    file = book.runs / f"{book.key}.pt"
    file.write_bytes(file.read_bytes()[:1000])
    trained_here(capsys, book, reader(server)[1], "is not the file the manifest lists")


def test_a_server_that_never_answers_costs_a_bounded_wait(book, reader, capsys):
    """The request gives up after TIMEOUT (the line says so) rather than waiting for an answer."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # connections are accepted, and nothing is ever said
        _, history = reader(f"http://127.0.0.1:{silent.getsockname()[1]}/runs/")
    trained_here(capsys, book, history, f"did not answer within {published.TIMEOUT:.0f} s")


class Trickling(tools.serve._SiteHandler):
    """A static host that answers the path ``slow`` with its headers at once, then one byte every
    ``TRICKLE`` seconds until ``stop`` is set: a server that answers, but barely."""

    slow = ""
    stop = threading.Event()

    def do_GET(self) -> None:
        if self.path != self.slow:
            return super().do_GET()
        self.send_response(200)
        self.send_header("Content-Length", str(1 << 30))
        self.end_headers()
        self.close_connection = True
        with contextlib.suppress(OSError):  # the client hung up
            while not self.stop.wait(TRICKLE):
                self.wfile.write(b"\0")


@contextlib.contextmanager
def trickling(site: Path, file: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``site`` served as :func:`tools.serve.serve` serves it, but its runs folder's ``file``
    trickles (:class:`Trickling`); the runs' address."""
    stop = threading.Event()
    handler = type("Trickling", (Trickling,), {"slow": f"/{published.RUNS_FOLDER}/{file}", "stop": stop})
    monkeypatch.setattr(tools.serve, "_SiteHandler", handler)
    with serve(site) as served:
        try:
            yield served.url(f"{published.RUNS_FOLDER}/")
        finally:
            stop.set()


def returned(call: Callable[[], object]) -> list[object]:
    """What ``call`` returned, in a list; an empty list if it had not returned after ``GIVE_UP``
    (what it returns later is not in the list)."""
    result: list[object] = []
    waiting = threading.Thread(target=lambda: result.append(call()), daemon=True)
    waiting.start()
    waiting.join(GIVE_UP)
    return list(result)


@pytest.mark.parametrize("slow", ["manifest", "run"])
def test_a_server_that_trickles_costs_a_bounded_wait(book, reader, monkeypatch, capsys, slow):
    """Bytes that keep coming, too slowly, do not hold the kernel past TIMEOUT and the file's size
    at SLOWEST (here about TIMEOUT): the fetch gives up, in one line."""
    monkeypatch.setattr(published, "SLOWEST", 10**9)
    file = published.MANIFEST if slow == "manifest" else f"{book.key}.pt"
    with trickling(book.site, file, monkeypatch) as url:
        answer = returned(lambda: published.fetch(book.key, run_cache.cache_folder(), url))
    assert answer == [None], "the fetch gave up"
    line = only_line(capsys)
    assert f"{url}{file} did not arrive within {published.TIMEOUT:.0f} s" in line, line


def test_no_server_trains(book, reader, capsys):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # free once closed: nothing listens there
    trained_here(capsys, book, reader(f"http://127.0.0.1:{port}/runs/")[1], "could not be reached")


class Exploit:
    """Unpickled, it would write a file: what a file crafted to run code does."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "code ran"))


def test_a_file_crafted_to_run_code_is_refused_unread(book, server, reader, capsys, tmp_path):
    marker = tmp_path / "code-ran"
    crafted = pickle.dumps({"state_dict": {}, "history": {}, "payload": Exploit(marker)}, protocol=2)
    (book.runs / f"{book.key}.pt").write_bytes(crafted)
    digest = hashlib.sha256(crafted).hexdigest()
    book.rewrite_manifest(lambda entry: entry.update(sha256=digest, bytes=len(crafted)))
    _, history = reader(server)
    assert not marker.exists(), "nothing in the file ran"
    trained_here(capsys, book, history, "was refused unread: torch.load(weights_only=True) refused it")


def test_a_saved_file_that_is_not_a_run_is_removed_and_trained_again(book, reader, capsys, monkeypatch):
    monkeypatch.setenv(published.URL_ENV, "")  # no published runs: the reader's cache alone
    folder = run_cache.cache_folder()
    run_cache.path(folder, book.key).parent.mkdir(parents=True)
    run_cache.path(folder, book.key).write_bytes(b"not a run")
    _, history = fit("attention", SHORT)
    assert "Cannot read the saved run" in only_line(capsys)
    assert history.val_loss == book.history.val_loss


def test_a_builds_cache_never_fetches(book, server, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(run_cache.RUN_CACHE_ENV, str(tmp_path / "another-build"))
    monkeypatch.setenv(published.URL_ENV, server)
    assert published.address() is None
    _, history = fit("attention", SHORT)
    assert capsys.readouterr().err == "" and history.seconds != book.history.seconds


def test_publishing_takes_this_codes_runs_only(book, tmp_path):
    build = tmp_path / "build-runs"
    trained = build / f"{book.key}.pt"
    (build / f"{'0' * 32}.pt").write_bytes(trained.read_bytes())  # a name its contents do not make
    old = {key: value for key, value in run_cache.read(trained).items() if key != "made_by"}
    torch.save(old, build / f"{'1' * 32}.pt")  # saved before runs recorded how they were made
    (build / f"{'2' * 32}.pt").write_bytes(b"not a run")
    manifest = published.publish(build, tmp_path / "again")
    assert list(manifest.runs) == [book.key]
    assert sorted(p.name for p in (tmp_path / "again").iterdir()) == sorted(
        [trained.name, published.MANIFEST]
    )
    entry = book.manifest()["runs"][book.key]
    assert entry["bytes"] == trained.stat().st_size
    assert entry["sha256"] == hashlib.sha256(trained.read_bytes()).hexdigest()
    assert entry["kind"] == "attention" and entry["config"]["seed"] == SHORT.seed


def test_fetching_everything_fills_the_cache_when_the_code_matches(book, server, reader, capsys):
    folder = run_cache.cache_folder()
    assert published.fetch_all(folder, server) == 1
    assert run_cache.has(folder, book.key)
    assert "1 of 1 published runs" in capsys.readouterr().out


def test_fetching_everything_says_so_when_the_runs_are_another_codes(book, server, reader, capsys):
    data = book.manifest()
    data["provenance"]["code"] = "another"
    (book.runs / published.MANIFEST).write_text(json.dumps(data))
    assert published.fetch_all(run_cache.cache_folder(), server) == 0
    out = capsys.readouterr().out
    assert "made by another version of the book's code (commit test)" in out
    assert not run_cache.cache_folder().exists() or not list(run_cache.cache_folder().glob("*.pt"))


def test_turning_the_cache_off_turns_fetching_off(book, server, reader, monkeypatch, capsys):
    monkeypatch.setenv(run_cache.OFF_ENV, "1")
    _, history = reader(server)
    assert capsys.readouterr().err == "", "the server was not asked"
    assert history.seconds != book.history.seconds and not run_cache.cache_folder()


@pytest.mark.parametrize("key", ["../../evil", "nested/evil", "{tmp}/evil", "0" * 31 + "G"])
def test_a_key_that_is_not_a_run_key_writes_nothing(book, server, reader, capsys, tmp_path, key):
    """A key is a file name in the reader's cache: one not of ``run_cache.run_key``'s form refuses the
    manifest before anything is written, wherever the key points."""
    key = key.format(tmp=tmp_path)
    data = book.manifest()
    data["runs"][key] = data["runs"].pop(book.key)
    (book.runs / published.MANIFEST).write_text(json.dumps(data))
    folder = run_cache.cache_folder()
    assert published.fetch_all(folder, server) == 0
    line = capsys.readouterr().out.strip()
    assert "\n" not in line and f"{server}{published.MANIFEST} is not a runs manifest (" in line, line
    assert not list(tmp_path.rglob("evil*")), "nothing written where the key points"
    assert not folder.exists() or not list(folder.rglob("*")), "nor in the folder"


def changed(fields: dict, changes: dict) -> None:
    """``fields`` with ``changes`` made to them (a field changed to ``...`` is removed)."""
    fields.update(changes)
    for name in [name for name, value in changes.items() if value is ...]:
        del fields[name]


def manifest_with(**changes: object) -> Callable[[dict], str]:
    """A manifest with ``changes`` made to its fields."""
    return lambda data: changed(data, changes) or json.dumps(data)


def entry_with(**changes: object) -> Callable[[dict], str]:
    """A manifest with ``changes`` made to its run's entry."""
    return lambda data: changed(*data["runs"].values(), changes) or json.dumps(data)


def climbing(data: dict) -> str:
    """The run's entry naming its own file by a path out of the runs folder and back."""
    (key,) = data["runs"]
    return entry_with(file=f"../{published.RUNS_FOLDER}/{key}.pt")(data)


MALFORMED = {
    "not JSON": lambda data: "<html>Not Found</html>",
    "JSON nested too deep to read": lambda data: "[" * 100_000 + "]" * 100_000,
    "a list": lambda data: json.dumps([data]),
    "runs a list": manifest_with(runs=[]),
    "no runs": manifest_with(runs=...),
    "provenance a list of pairs": manifest_with(provenance=[["code", "c"], ["data", "d"], ["torch", "t"]]),
    "provenance with a number": manifest_with(provenance={"code": 1}),
    "a commit that is a number": manifest_with(commit=1),
    "an extra field": manifest_with(signature="trust me"),
    "an entry a list": lambda data: json.dumps(
        {**data, "runs": {k: list(v) for k, v in data["runs"].items()}}
    ),
    "a size that is a string": entry_with(bytes="1000"),
    "a size that is true": entry_with(bytes=True),
    "a negative size": entry_with(bytes=-1),
    "a file name that is a number": entry_with(file=7),
    "a file name with a folder": climbing,
    "a file name that climbs": entry_with(file=".."),
    "a hash that is a number": entry_with(sha256=0),
    "a config that is a string": entry_with(config="{}"),
    "an entry missing a field": entry_with(sha256=...),
    "an entry with an extra field": entry_with(signature="trust me"),
}


@pytest.fixture
def listing(tmp_path) -> Iterator[tuple[dict, Path, str]]:
    """A runs folder on 127.0.0.1 that holds a manifest alone, of one run (SHORT) nobody trained:
    the manifest as :func:`published.publish` writes it, the file it is served from, and the
    runs' address."""
    runs = tmp_path / "listing" / published.RUNS_FOLDER
    runs.mkdir(parents=True)
    key = run_cache.run_key("attention", SHORT)
    entry = published.Entry(f"{key}.pt", 1000, "0" * 64, "attention", asdict(SHORT))
    data = asdict(published.Manifest(run_cache.provenance(), "test", {key: entry}))
    with serve(runs.parent) as site:
        yield data, runs / published.MANIFEST, site.url(f"{published.RUNS_FOLDER}/")


def test_a_manifest_as_publish_writes_it_is_read(listing, reader):
    data, file, url = listing
    file.write_text(json.dumps(data))
    assert asdict(published.manifest(url)) == data


@pytest.mark.parametrize("malformed", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_manifest_costs_one_line(listing, reader, capsys, malformed):
    data, file, url = listing
    (key,) = data["runs"]
    file.write_text(malformed(data))
    assert published.fetch(key, run_cache.cache_folder(), url) is None
    line = only_line(capsys)
    assert f"{url}{published.MANIFEST} is not a runs manifest (" in line, line
    assert line.endswith("Training it here instead."), line


def test_a_run_of_another_key_is_refused(book, second_book, server, reader, capsys):
    """A whole run, listed with its own size and hash, but under a key it is not the run of."""
    theirs = second_book.runs / f"{second_book.key}.pt"
    (book.runs / theirs.name).write_bytes(theirs.read_bytes())
    book.rewrite_manifest(lambda entry: entry.update(second_book.manifest()["runs"][second_book.key]))
    trained_here(capsys, book, reader(server)[1], f"is not the run of key {book.key}")


def test_a_run_made_by_other_code_is_refused(book, server, reader, capsys):
    """The run's own record says another version of the training code made it."""
    file = book.runs / f"{book.key}.pt"
    run = run_cache.read(file)
    run["made_by"]["code"] = "another"
    stale = io.BytesIO()
    torch.save(run, stale)
    file.write_bytes(stale.getvalue())
    digest = hashlib.sha256(stale.getvalue()).hexdigest()
    book.rewrite_manifest(lambda entry: entry.update(sha256=digest, bytes=len(stale.getvalue())))
    trained_here(capsys, book, reader(server)[1], f"is not the run of key {book.key}")


def test_a_reader_with_another_torch_loads_the_books_run(book, server, reader, monkeypatch, capsys):
    """Colab's torch is not the book's: the run of the same code, data, kind and config is the
    book's model all the same, and is kept under the reader's own key."""
    made = run_cache.provenance()
    monkeypatch.setattr(
        run_cache, "provenance", lambda package=run_cache.PACKAGE: {**made, "torch": "9.9.9+cu999"}
    )
    model, history = reader(server)
    line = only_line(capsys)
    assert "trained with torch" in line and "9.9.9+cu999" in line, line
    assert same_weights(model, book.model) and history == book.history
    assert run_cache.has(run_cache.cache_folder(), run_cache.run_key("attention", SHORT)), (
        "under this torch's key"
    )


def test_a_reader_of_other_code_trains_even_with_another_torch(book, server, reader, monkeypatch, capsys):
    made = run_cache.provenance()
    other = {**made, "torch": "9.9.9", "code": "other"}
    monkeypatch.setattr(run_cache, "provenance", lambda package=run_cache.PACKAGE: other)
    _, history = reader(server)
    line = only_line(capsys)
    assert "has no run with key" in line and line.endswith("Training it here instead."), line
    assert history.seconds != book.history.seconds, "trained, not loaded"
