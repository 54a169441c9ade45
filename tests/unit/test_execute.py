"""The build's execution step: which trained runs it makes first, and in what order."""

from __future__ import annotations

from selfattn.cache import CACHE_ENV, OFF_ENV, run_key
from selfattn.runs import book_runs
from tools.execute import untrained_runs


def test_the_runs_start_largest_first_and_skip_what_the_cache_has(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    monkeypatch.delenv(OFF_ENV, raising=False)
    todo = untrained_runs()
    assert set(todo) == set(book_runs())
    names = list(todo)
    assert names[0] == "small-gpt" and names[-1] == "bigram", names
    rung = book_runs()["small-gpt"]
    (tmp_path / f"{run_key(rung.kind, rung.config)}.pt").write_bytes(b"")
    assert "small-gpt" not in untrained_runs()


def test_without_the_run_cache_nothing_is_trained_first(monkeypatch):
    monkeypatch.delenv(CACHE_ENV, raising=False)
    assert untrained_runs() == {}
