"""The build's execution step: which runs it trains first, in what order; a kernel that dies at start."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from jupyter_cache import get_cache

from bookbuild import check_determinism as determinism
from bookbuild.execute import execute, untrained_runs
from selfattn.run_cache import OFF_ENV, run_key
from selfattn.runs import book_runs
from tests.helpers import keep_runs_in


def test_the_runs_start_largest_first_and_skip_what_the_cache_has(tmp_path, monkeypatch):
    keep_runs_in(monkeypatch, tmp_path)
    todo = untrained_runs()
    assert set(todo) == set(book_runs())
    names = list(todo)
    assert names[0] == "poems" and names[-1] == "bigram", names
    rung = book_runs()["small-gpt"]
    (tmp_path / f"{run_key(rung.kind, rung.config)}.pt").write_bytes(b"")
    assert "small-gpt" not in untrained_runs()


def test_with_the_run_cache_off_nothing_is_trained_first(monkeypatch):
    monkeypatch.setenv(OFF_ENV, "1")
    assert untrained_runs() == {}


def flaky_kernel(folder: Path, deaths: int) -> Path:
    """A kernel spec in ``folder`` that stands in for ``python3`` (with ``JUPYTER_PATH`` set to
    ``folder / "jupyter"``): its first ``deaths`` starts die before replying. Returns the count file.
    """
    starts = folder / "starts"
    code = (
        "import pathlib, sys\n"
        f"starts = pathlib.Path({str(starts)!r})\n"
        "n = int(starts.read_text()) + 1 if starts.exists() else 1\n"
        "starts.write_text(str(n))\n"
        f"if n <= {deaths}: sys.exit(1)\n"
        "from ipykernel.kernelapp import launch_new_instance\n"
        "launch_new_instance()\n"
    )
    spec = folder / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-c", code, "-f", "{connection_file}"]
    spec_json = {"argv": argv, "display_name": "flaky", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(spec_json))
    return starts


def chapter(folder: Path) -> Path:
    page = folder / "chapter.md"
    page.write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\n"
        "kernelspec:\n  name: python3\n  display_name: Python 3\n---\n\n"
        "# A chapter\n\n```{code-cell}\n1 + 1\n```\n"
    )
    return page


@pytest.mark.parametrize("deaths", [1, 2])
def test_a_chapter_whose_kernel_dies_at_start_runs_once_more(tmp_path, monkeypatch, capsys, deaths):
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    starts, page, cache_dir = flaky_kernel(tmp_path, deaths), chapter(tmp_path), tmp_path / "_build" / "cache"
    if deaths == 1:
        execute([page], jobs=1, train_first=False, cache_dir=cache_dir)
        assert not get_cache(cache_dir).list_unexecuted(), "the second start ran the chapter"
    else:
        with pytest.raises(SystemExit, match="stopped twice, not in a cell"):
            execute([page], jobs=1, train_first=False, cache_dir=cache_dir)
    assert starts.read_text() == "2", "one more start, and no more"
    assert "not in a cell; running it again" in capsys.readouterr().out


@pytest.mark.parametrize("deaths", [1, 2])
def test_the_determinism_check_starts_a_dying_kernel_once_more(tmp_path, monkeypatch, deaths):
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    starts, page = flaky_kernel(tmp_path, deaths), chapter(tmp_path)
    if deaths == 1:
        nb = determinism.execute(page)
        assert nb.cells[1].outputs[0]["data"]["text/plain"] == "2"
    else:
        with pytest.raises(RuntimeError, match="Kernel died"):
            determinism.execute(page)
    assert starts.read_text() == "2", "one more start, and no more"
