"""Atomic writes: the data is on disk before the new name points at it, and a writer killed mid-way
leaves nothing behind once the next run starts."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from selfattn import TrainConfig, fit
from selfattn.files import write_atomically
from tests.helpers import keep_runs_in

# A quick run: its checkpoint, or its entry in the run cache, is written at its start and its end.
QUICK = TrainConfig(max_iters=2, eval_interval=1, eval_iters=1)
# A writer that stops half-way through writing ``sys.argv[1]``, and says so.
STUCK_WRITER = """
import sys, time
from pathlib import Path
from selfattn.files import write_atomically
from tests.helpers import keep_runs_in

def write(file):
    file.write(b"half")
    print("writing", flush=True)
    time.sleep(600)

write_atomically(Path(sys.argv[1]), write)
"""


def temporaries(folder: Path) -> list[Path]:
    """The hidden files in ``folder`` besides the run cache's locks: what writes leave there."""
    return sorted(p for p in folder.iterdir() if p.name.startswith(".") and p.suffix != ".lock")


def test_the_data_is_synced_before_the_rename_and_the_folder_after_it(tmp_path, monkeypatch):
    events = []
    fsync, replace = os.fsync, os.replace

    def recording_fsync(fd: int) -> None:
        info = os.fstat(fd)
        events.append(("fsync folder",) if stat.S_ISDIR(info.st_mode) else ("fsync file", info.st_size))
        fsync(fd)

    def recording_replace(source, target) -> None:
        events.append(("replace", Path(target).name))
        replace(source, target)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    monkeypatch.setattr(os, "replace", recording_replace)
    write_atomically(tmp_path / "run.pt", lambda file: file.write(b"weights"))
    assert events == [("fsync file", len(b"weights")), ("replace", "run.pt"), ("fsync folder",)]
    assert (tmp_path / "run.pt").read_bytes() == b"weights"


@pytest.mark.skipif(os.name != "posix", reason="only POSIX tells whether a writer is still running")
@pytest.mark.parametrize("into", ["out", "cache"])
def test_a_killed_writer_s_temporary_goes_when_a_run_starts_and_a_running_writer_s_stays(
    tmp_path, monkeypatch, into
):
    folder = tmp_path / into
    killed = subprocess.Popen(
        [sys.executable, "-c", STUCK_WRITER, str(folder / "checkpoint.pt")], stdout=subprocess.PIPE, text=True
    )
    assert killed.stdout.readline() == "writing\n"
    killed.kill()
    killed.wait()
    [left] = temporaries(folder)
    keep_runs_in(monkeypatch, folder)
    seen = []

    def start_a_run(file) -> None:  # this process writes: its temporary is a running writer's
        fit("bigram", QUICK, save_to=folder if into == "out" else None)
        seen.extend(p.name for p in temporaries(folder))

    write_atomically(folder / "notes.bin", start_a_run)
    assert not left.exists()
    assert [name.startswith(".notes.bin.") for name in seen] == [True]
