"""The two chapter scripts run from the command line and validate their flags."""

from __future__ import annotations

import subprocess
import sys

from tools import ROOT


def script(name: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "code" / name), *flags], capture_output=True, text=True, cwd=ROOT
    )


def test_bigram_script_trains_and_prints_its_log_and_size():
    result = script("01_bigram.py", "--max-iters", "300", "--eval-iters", "20", "--sample-tokens", "50")
    assert result.returncode == 0, result.stderr
    assert "step   300: train loss" in result.stdout
    assert "4,225 parameters" in result.stdout


def test_attention_script_rejects_a_bad_flag_clearly():
    result = script("02_attention.py", "--learning-rate", "0")
    assert result.returncode == 2
    assert "learning_rate=0.0: learning_rate must be a finite number greater than 0" in result.stderr
    assert "Traceback" not in result.stderr
