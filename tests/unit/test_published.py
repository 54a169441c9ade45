"""The book's published runs: a reader's kernel fetches, checks and loads them from a real HTTP
server on 127.0.0.1, and anything wrong costs one line and a trained run, never code run."""

from __future__ import annotations

import hashlib
import json
import pickle
import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import torch
import yaml

from bookbuild import ROOT
from selfattn import ATTENTION, History, cache, fit, published
from tests.helpers import Published, publish_a_run, same_weights
from tools.serve import serve

SHORT = replace(ATTENTION, max_iters=30, eval_interval=10, eval_iters=5)
OTHER = replace(SHORT, seed=2)  # a run nobody published


@pytest.fixture
def book(tmp_path, monkeypatch) -> Published:
    return publish_a_run(tmp_path, monkeypatch, SHORT)


@pytest.fixture
def reader(tmp_path, monkeypatch):
    """A reader's kernel: no build cache, its own cache folder, nothing remembered of a manifest;
    returns a function that points it at an address and fits ``config`` there."""
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    monkeypatch.delenv(cache.OFF_ENV, raising=False)
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
        yield site.url(f"{published.RUNS}/")


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
    assert cache.has(cache.cache_folder(), book.key), "and kept in the reader's cache"


def test_the_site_address_is_the_books(book):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert published.SITE == config["html"]["baseurl"]


def test_a_fresh_cache_fetches_checks_and_loads_the_published_run(book, server, reader, capsys):
    model, history = reader(server)
    assert history == book.history, "the history, training time included, bit for bit"
    assert same_weights(model, book.model)
    assert "Loaded the book's trained run" in only_line(capsys)
    kept = cache.path(cache.cache_folder(), book.key)
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
    folder = cache.cache_folder()
    cache.path(folder, book.key).parent.mkdir(parents=True)
    cache.path(folder, book.key).write_bytes(b"not a run")
    _, history = fit("attention", SHORT)
    assert "Cannot read the saved run" in only_line(capsys)
    assert history.val_loss == book.history.val_loss


def test_a_builds_cache_never_fetches(book, server, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "another-build"))
    monkeypatch.setenv(published.URL_ENV, server)
    assert published.address() is None
    _, history = fit("attention", SHORT)
    assert capsys.readouterr().err == "" and history.seconds != book.history.seconds


def test_publishing_takes_this_codes_runs_only(book, tmp_path):
    build = tmp_path / "build-runs"
    trained = build / f"{book.key}.pt"
    (build / f"{'0' * 32}.pt").write_bytes(trained.read_bytes())  # a name its contents do not make
    old = {key: value for key, value in cache.read(trained).items() if key != "made_by"}
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
    folder = cache.cache_folder()
    assert published.fetch_all(folder, server) == 1
    assert cache.has(folder, book.key)
    assert "1 of 1 published runs" in capsys.readouterr().out


def test_fetching_everything_says_so_when_the_runs_are_another_codes(book, server, reader, capsys):
    data = book.manifest()
    data["provenance"]["code"] = "another"
    (book.runs / published.MANIFEST).write_text(json.dumps(data))
    assert published.fetch_all(cache.cache_folder(), server) == 0
    out = capsys.readouterr().out
    assert "made by another version of the book's code (commit test)" in out
    assert not cache.cache_folder().exists() or not list(cache.cache_folder().glob("*.pt"))


def test_turning_the_cache_off_turns_fetching_off(book, server, reader, monkeypatch, capsys):
    monkeypatch.setenv(cache.OFF_ENV, "1")
    _, history = reader(server)
    assert capsys.readouterr().err == "", "the server was not asked"
    assert history.seconds != book.history.seconds and not cache.cache_folder()
