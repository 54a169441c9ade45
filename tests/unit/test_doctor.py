"""``python -m selfattn doctor``: one screen that says what a bug report needs, and never fails."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import pytest
import torch

from selfattn import doctor, language
from selfattn.__main__ import main
from selfattn.data import MIRROR_ENV
from tests.helpers import locked_versions, reader_environment

LABELS = [label for label, _ in doctor.PROBES]
# pyproject.toml's torch range, as the installed package's metadata has it
TORCH_REQUIREMENT = next(text for text in metadata.requires("selfattn") if text.startswith("torch"))


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.delenv(language.LANGUAGE_ENV, raising=False)


def line(label: str) -> str:
    """The value of the report's line ``label``."""
    (found,) = [text for text in doctor.lines() if text.startswith(f"{label}: ")]
    return found.removeprefix(f"{label}: ")


def test_the_command_prints_one_screen_with_every_line(tmp_path):
    env = {**reader_environment(), MIRROR_ENV: str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "selfattn", "doctor"], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    assert [text.split(": ", 1)[0] for text in printed] == LABELS, done.stdout
    assert len(printed) <= 25, "one screen"
    shown = dict(text.split(": ", 1) for text in printed)
    assert shown["torch"] == torch.__version__
    assert str(tmp_path) in shown["data"] and MIRROR_ENV in shown["data"]
    assert "could not tell" not in done.stdout, done.stdout


def test_main_runs_the_doctor(capsys):
    main(["doctor"])
    assert capsys.readouterr().out.splitlines() == doctor.lines()


def test_the_devices_torch_sees_are_said(monkeypatch):
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert line("MPS") == "available"
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_built", lambda: True)
    assert line("MPS") == "built into torch, not available"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda gpu: f"Test GPU {gpu}")
    monkeypatch.setattr(torch.version, "cuda", "12.4")
    assert line("CUDA") == "2 GPU(s): Test GPU 0, Test GPU 1; CUDA 12.4"


def test_a_probe_that_fails_gives_its_reason_and_the_others_still_answer(monkeypatch):
    def broken() -> bool:
        raise RuntimeError("the driver stopped")

    monkeypatch.setattr(torch.cuda, "is_available", broken)
    assert line("CUDA") == "could not tell (RuntimeError: the driver stopped)"
    assert line("torch") == torch.__version__


def test_the_book_s_kernel_pins_are_checked(monkeypatch):
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX2")
    assert line("CPU kernels") == "AVX2, the book's pins hold (ATEN_CPU_CAPABILITY=avx2, MKL_CBWR=AVX2)"
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    assert "set here: not the book's pins" in line("CPU kernels")


def test_threads_other_than_the_book_s_one_are_said():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        assert line("CPU threads").startswith("one, the book's default")
        torch.set_num_threads(2)
        assert line("CPU threads").startswith("2, not the book's one")
    finally:
        torch.set_num_threads(before)


def test_a_requirement_the_installed_version_misses_is_said(monkeypatch):
    installed = metadata.version

    def version(name: str) -> str:
        if name == "tqdm":
            raise metadata.PackageNotFoundError(name)
        return "2.3.0" if name == "torch" else installed(name)

    monkeypatch.setattr(doctor.metadata, "version", version)
    said, torch_range = line("requirements"), TORCH_REQUIREMENT
    assert said.startswith("not all held: ")
    assert f"{torch_range} (2.3.0: outside it)" in said and "tqdm>=4.66 (not installed)" in said
    assert f"torch 2.3.0, locked {locked_versions()['torch']}" in line("locked versions")


def test_outside_the_repository_there_is_no_lock_and_no_commit(monkeypatch, tmp_path):
    monkeypatch.setattr(doctor, "LOCK", tmp_path / "requirements.lock")
    monkeypatch.setattr(doctor, "commit", lambda: "")
    assert line("locked versions") == "none here: the package is not in the book's repository"
    assert line("package").endswith(", not in a git checkout")


def test_where_runs_come_from(monkeypatch, tmp_path):
    monkeypatch.setenv("SELFATTN_RUN_CACHE", str(tmp_path))
    assert line("run cache") == str(tmp_path)
    assert line("published runs").startswith("none fetched: SELFATTN_RUN_CACHE makes")
    monkeypatch.setenv("SELFATTN_NO_RUN_CACHE", "1")
    assert line("run cache") == "off (SELFATTN_NO_RUN_CACHE=1)"
    assert line("published runs") == "none fetched: the run cache is off"


def test_the_labels_are_said_in_the_reader_s_language(monkeypatch):
    monkeypatch.setenv(language.LANGUAGE_ENV, "zh_CN")
    monkeypatch.setattr(language, "translations", lambda chosen: {"system": "系统"})
    assert any(text.startswith("系统: ") for text in doctor.lines())
