"""A run stopped mid-way and resumed ends where the uninterrupted run ends; a bad checkpoint costs nothing."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
import torch.distributed
import torch.multiprocessing

from bookbuild import ROOT
from selfattn import ConfigError, Progress, TrainConfig, fit
from selfattn.engine import World, start, stop
from tests.helpers import script

RUN = ["--preset", "layernorm", "--max-iters", "300", "--eval-interval", "50", "--eval-iters", "5"]
FLAGS = [*RUN, "--sample-tokens", "20"]
FINAL = re.compile(r"final val loss (\d\.\d{4})")


def final_loss(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    return FINAL.search(result.stdout).group(1)


def saved_step(folder) -> int:
    """The step of the folder's checkpoint (-1 while there is none); the file is always whole."""
    path = folder / "checkpoint.pt"
    return torch.load(path, weights_only=True)["step"] if path.exists() else -1


def test_a_run_killed_mid_way_and_resumed_ends_as_the_uninterrupted_run(tmp_path):
    whole = final_loss(script("03_gpt.py", *FLAGS, "--out", str(tmp_path / "whole")))
    folder = tmp_path / "killed"
    run = subprocess.Popen(
        [sys.executable, str(ROOT / "code" / "03_gpt.py"), *FLAGS, "--out", str(folder)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while saved_step(folder) < 150 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    run.send_signal(signal.SIGTERM)
    run.wait()
    stopped_at = saved_step(folder)
    assert run.returncode == -signal.SIGTERM, "the run was still training when it was stopped"
    assert 150 <= stopped_at < 300
    resumed = script("03_gpt.py", *FLAGS, "--resume", str(folder))
    assert f"going on from the checkpoint of step {stopped_at}" in resumed.stdout + resumed.stderr
    assert final_loss(resumed) == whole
    assert saved_step(folder) == 300


# A GPT small enough to train quickly in two processes, with dropout: each process draws its own masks.
PAIR = TrainConfig(
    batch_size=4, block_size=8, n_embd=16, n_head=2, dropout=0.2, max_iters=20, eval_interval=10, eval_iters=2
)


class Stopped(Exception):
    """What stops a run mid-way, as Ctrl-C would."""


def stop_at(step: int) -> Callable[[Progress], None]:
    def progress(p: Progress) -> None:
        if p.step == step:
            raise Stopped

    return progress


def train_in_pair(rank: int, port: int, folder: Path) -> None:
    """One of two processes that train ``PAIR`` without stopping into ``folder/whole``, and into
    ``folder/resumed`` stopped at step 10 and resumed."""
    os.environ.update(
        RANK=str(rank),
        WORLD_SIZE="2",
        LOCAL_RANK=str(rank),
        LOCAL_WORLD_SIZE="2",
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
    )
    engine = start(World.launched(), "cpu", "float32", False, PAIR)
    try:
        fit("gpt", PAIR, engine=engine, save_to=folder / "whole")
        with contextlib.suppress(Stopped):
            fit("gpt", PAIR, progress=stop_at(10), engine=engine, save_to=folder / "resumed")
        torch.distributed.barrier()  # the main process has written the checkpoint both now read
        assert saved_step(folder / "resumed") == 10
        fit("gpt", PAIR, engine=engine, save_to=folder / "resumed", resume=True)
    finally:
        stop(engine)


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("pair")
    with socket.socket() as free:  # a port for the processes to meet at
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    torch.multiprocessing.spawn(train_in_pair, args=(port, folder), nprocs=2)
    return folder


def test_two_processes_with_dropout_stopped_and_resumed_take_the_uninterrupted_steps(pair):
    whole, resumed = (
        torch.load(pair / run / "checkpoint.pt", weights_only=True) for run in ("whole", "resumed")
    )
    assert resumed["step"] == 20 and len(resumed["history"]["batch_loss"]) == 20
    assert resumed["history"]["batch_loss"] == whole["history"]["batch_loss"]
    assert all(torch.equal(whole["model"][name], weights) for name, weights in resumed["model"].items())


def test_a_checkpoint_of_two_processes_resumed_in_one_is_one_line_and_left_alone(pair):
    path = pair / "resumed" / "checkpoint.pt"
    before = path.read_bytes()
    with pytest.raises(ConfigError) as err:
        fit("gpt", PAIR, save_to=pair / "resumed", resume=True)
    assert str(err.value) == (
        f"{path} was trained with 2 processes, not 1: resume with the settings it was trained with, "
        "or start a new run in another folder."
    )
    assert path.read_bytes() == before


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    folder = tmp_path_factory.mktemp("finished")
    final_loss(script("03_gpt.py", *RUN, "--max-iters", "20", "--eval-interval", "10", "--out", str(folder)))
    return folder


def one_line_error(result: subprocess.CompletedProcess, message: str) -> None:
    assert result.returncode == 1
    assert re.fullmatch(f"error: {message}\n", result.stderr), result.stderr
    assert result.stdout.count("step") == 0, "no training step was taken"


def test_a_missing_checkpoint_is_one_line_that_says_how_to_start(tmp_path):
    result = script("03_gpt.py", *FLAGS, "--resume", str(tmp_path))
    one_line_error(
        result, f"no checkpoint at {tmp_path}/checkpoint.pt: start the run with --out {tmp_path} first."
    )
    assert list(tmp_path.iterdir()) == []


def test_a_partial_checkpoint_is_one_line_and_stays_as_it_was(tmp_path, finished):
    whole = (finished / "checkpoint.pt").read_bytes()
    (tmp_path / "checkpoint.pt").write_bytes(whole[: len(whole) // 2])
    result = script("03_gpt.py", *FLAGS, "--resume", str(tmp_path))
    one_line_error(
        result, f"{tmp_path}/checkpoint.pt is incomplete or not a checkpoint .*; delete it and start again."
    )
    assert (tmp_path / "checkpoint.pt").read_bytes() == whole[: len(whole) // 2]


def test_a_mismatched_checkpoint_names_what_differs_and_is_left_alone(finished):
    before = (finished / "checkpoint.pt").read_bytes()
    result = script(
        "03_gpt.py",
        *RUN,
        "--max-iters",
        "20",
        "--eval-interval",
        "10",
        "--n-embd",
        "64",
        "--resume",
        str(finished),
    )
    one_line_error(
        result, f"{finished}/checkpoint.pt was trained with n_embd=32, not 64: resume with the settings .*"
    )
    result = script(
        "03_gpt.py",
        "--preset",
        "residual",
        *RUN[2:],
        "--max-iters",
        "20",
        "--eval-interval",
        "10",
        "--resume",
        str(finished),
    )
    one_line_error(
        result,
        f"{finished}/checkpoint.pt was trained with the model GPTLanguageModel, "
        "not ResidualLanguageModel: .*",
    )
    assert (finished / "checkpoint.pt").read_bytes() == before


def test_a_new_run_never_overwrites_a_checkpoint(finished):
    before = (finished / "checkpoint.pt").read_bytes()
    result = script("03_gpt.py", *FLAGS, "--out", str(finished))
    one_line_error(
        result,
        f"{finished}/checkpoint.pt already holds a checkpoint; continue it with --resume {finished}, .*",
    )
    assert (finished / "checkpoint.pt").read_bytes() == before


@pytest.mark.parametrize("inside", ["", "run"])
def test_a_file_where_the_folder_should_be_is_one_line_and_left_alone(tmp_path, inside):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    folder = notes / inside if inside else notes
    result = script("03_gpt.py", *FLAGS, "--out", str(folder))
    one_line_error(
        result, re.escape(f"cannot save the run into {folder}: {notes} is a file; name a folder instead.")
    )
    assert list(tmp_path.iterdir()) == [notes] and notes.read_text() == "mine"


def test_a_folder_the_run_may_not_write_into_is_refused_before_training(tmp_path, monkeypatch):
    """Root writes anywhere, so the test takes write access away from one folder where the check asks."""
    locked = tmp_path / "locked"
    locked.mkdir()
    access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != locked and access(path, mode))
    steps = []
    with pytest.raises(ConfigError) as err:
        fit("bigram", TrainConfig(max_iters=10), progress=steps.append, reuse=False, save_to=locked / "run")
    assert str(err.value) == (
        f"cannot save the run into {locked}/run: {locked} is not writable; "
        "save it into a folder you can write to."
    )
    assert steps == [] and list(locked.iterdir()) == []


@pytest.mark.skipif(
    not Path("/sys/kernel").is_dir(), reason="needs Linux's sysfs, where no folder can be made"
)
def test_a_place_no_folder_can_be_made_in_is_refused_before_training():
    """Even root, whom every access check lets through, cannot make a folder in sysfs."""
    folder = Path("/sys/kernel/selfattn-run")
    result = script("03_gpt.py", *FLAGS, "--out", str(folder))
    one_line_error(result, re.escape(f"cannot save the run into {folder}: ") + r"[^;]+; save it into .*")
    assert not folder.exists()


def test_out_and_resume_do_not_go_together(tmp_path):
    result = script("03_gpt.py", *FLAGS, "--out", str(tmp_path), "--resume", str(tmp_path))
    assert result.returncode == 2 and "not allowed with argument" in result.stderr
