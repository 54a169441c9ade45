"""The two chapter scripts run from the command line and validate their flags."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import fields

from conftest import ROOT
from selfattn import ATTENTION, TrainConfig


def script(name: str, *flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "code" / name), *flags], capture_output=True, text=True, cwd=ROOT, env=env
    )


def test_bigram_script_trains_and_samples():
    result = script("01_bigram.py", "--max-iters", "300", "--eval-iters", "20", "--sample-tokens", "50")
    assert result.returncode == 0, result.stderr
    assert "step   300: train loss" in result.stdout
    assert "4,225 parameters" in result.stdout


def test_attention_script_rejects_a_bad_flag_clearly():
    result = script("02_attention.py", "--learning-rate", "0")
    assert result.returncode == 2
    assert "learning_rate=0.0: learning_rate must be a finite number greater than 0" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_says_what_every_flag_controls():
    shown = " ".join(script("02_attention.py", "--help").stdout.split())
    for f in fields(TrainConfig):
        flag = "--" + f.name.replace("_", "-")
        meaning = f.metadata["rule"].help
        assert f"{flag} {f.name.upper()} {meaning} (default: {getattr(ATTENTION, f.name)})" in shown


def test_missing_data_is_reported_before_any_progress(tmp_path):
    env = {**os.environ, "SELFATTN_CACHE": str(tmp_path / "cache"), "SELFATTN_DATA_MIRROR": str(tmp_path)}
    result = script("01_bigram.py", "--max-iters", "10", env=env)
    assert result.returncode == 1
    assert result.stderr.startswith("error: SELFATTN_DATA_MIRROR points at"), result.stderr
    assert result.stdout == "" and "%|" not in result.stderr and "Traceback" not in result.stderr
