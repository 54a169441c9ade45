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
    run = book_runs()["small-gpt"]
    (tmp_path / f"{run_key(run.kind, run.config)}.pt").write_bytes(b"")
    assert "small-gpt" not in untrained_runs()


def test_with_the_run_cache_off_nothing_is_trained_first(monkeypatch):
    monkeypatch.setenv(OFF_ENV, "1")
    assert untrained_runs() == {}


def dying_kernel(folder: Path) -> Path:
    """A kernel spec in ``folder`` that stands in for ``python3`` (with ``JUPYTER_PATH`` set to
    ``folder / "jupyter"``) and dies before it replies. Returns the file that counts its starts.
    """
    starts = folder / "starts"
    code = (
        "import pathlib, sys\n"
        f"starts = pathlib.Path({str(starts)!r})\n"
        "starts.write_text(str(int(starts.read_text()) + 1 if starts.exists() else 1))\n"
        "sys.exit(1)\n"
    )
    spec = folder / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-c", code, "-f", "{connection_file}"]
    spec_json = {"argv": argv, "display_name": "dying", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(spec_json))
    return starts


def chapter(folder: Path, code: str) -> Path:
    page = folder / "chapter.md"
    page.write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\n"
        "kernelspec:\n  name: python3\n  display_name: Python 3\n---\n\n"
        f"# A chapter\n\n```{{code-cell}}\n{code}\n```\n"
    )
    return page


# What the chapter's kernel says of its own connection, and where it runs.
TRANSPORT = (
    "import os\nfrom ipykernel.kernelapp import IPKernelApp\n"
    "print(IPKernelApp.instance().transport, os.getcwd())"
)


def test_a_chapter_runs_in_its_folder_over_local_sockets_and_is_cached(tmp_path, capfd):
    page, cache_dir = chapter(tmp_path, TRANSPORT), tmp_path / "_build" / "cache"
    execute([page], jobs=1, train_first=False, cache_dir=cache_dir)
    cache = get_cache(cache_dir)
    assert not cache.list_unexecuted(), "its outputs are in the cache"
    [record] = cache.list_cache_records()
    [cell] = [cell for cell in cache.get_cache_bundle(record.pk).nb.cells if cell.cell_type == "code"]
    [output] = cell.outputs
    assert output["text"] == f"ipc {tmp_path}\n"
    out, err = capfd.readouterr()
    assert "chapter.md: executed in" in out
    assert "TCP" not in err and not list(tmp_path.glob("kernel*")), "no TCP warning, no socket files left"


def test_the_determinism_check_runs_a_chapter_as_the_build_does(tmp_path):
    nb = determinism.execute(chapter(tmp_path, TRANSPORT))
    assert nb.cells[1].outputs[0]["text"] == f"ipc {tmp_path}\n"


def test_a_cell_that_raises_stops_the_build_with_its_traceback(tmp_path, capsys):
    page, cache_dir = chapter(tmp_path, "1 / 0"), tmp_path / "_build" / "cache"
    with pytest.raises(SystemExit, match=r"(?s)chapter\.md:.*ZeroDivisionError"):
        execute([page], jobs=1, train_first=False, cache_dir=cache_dir)
    assert "chapter.md: FAILED in" in capsys.readouterr().out
    assert get_cache(cache_dir).list_unexecuted(), "nothing cached"


def test_a_chapter_whose_kernel_dies_stops_the_build_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    starts, page = dying_kernel(tmp_path), chapter(tmp_path, "1 + 1")
    with pytest.raises(SystemExit, match="Its kernel did not start or died"):
        execute([page], jobs=1, train_first=False, cache_dir=tmp_path / "_build" / "cache")
    assert starts.read_text() == "1", "started once: a kernel that dies is the chapter's failure"
