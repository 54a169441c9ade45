"""The chapter scripts run from the command line and validate their flags."""

from __future__ import annotations

import os
import re
from dataclasses import fields, replace

import pytest

from selfattn import ATTENTION, TrainConfig, make_model
from selfattn.registry import UNUSED
from selfattn.runs import LADDER
from tests.helpers import script


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


def test_help_says_what_every_flag_the_model_reads_controls():
    shown = " ".join(script("02_attention.py", "--help").stdout.split())
    for f in fields(TrainConfig):
        flag = "--" + f.name.replace("_", "-")
        meaning = f.metadata["rule"].help
        described = f"{flag} {f.name.upper()} {meaning} (default: {getattr(ATTENTION, f.name)})" in shown
        assert described == (f.name not in UNUSED["attention"]), f.name


def test_missing_data_is_reported_before_any_progress(tmp_path):
    env = {**os.environ, "SELFATTN_CACHE": str(tmp_path / "cache"), "SELFATTN_DATA_MIRROR": str(tmp_path)}
    result = script("01_bigram.py", "--max-iters", "10", env=env)
    assert result.returncode == 1
    assert result.stderr.startswith("error: SELFATTN_DATA_MIRROR points at"), result.stderr
    assert result.stdout == "" and "%|" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("preset", list(LADDER))
def test_gpt_script_runs_every_preset_for_a_few_steps(preset):
    flags = ["--max-iters", "2", "--eval-interval", "1", "--eval-iters", "1", "--sample-tokens", "20"]
    rung = LADDER[preset]
    config = rung.config
    if preset == "lecture":  # a GPU-scale model: its full size, on a small batch and a short context
        config = replace(config, batch_size=2, block_size=32)
        flags += ["--batch-size", "2", "--block-size", "32"]
    result = script("03_gpt.py", "--preset", preset, *flags)
    assert result.returncode == 0, result.stderr
    model = make_model(rung.kind, 65, config)
    assert f"{sum(p.numel() for p in model.parameters()):,} parameters; final val loss" in result.stdout
    assert re.search(r"step     2: train loss \d\.\d+, val loss \d\.\d+", result.stdout)


def test_gpt_script_names_a_bad_head_count():
    result = script("03_gpt.py", "--preset", "small-gpt", "--n-head", "5")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "n_embd=64 with n_head=5: each head gets n_embd / n_head channels" in result.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--device", "tpu"], "--device tpu: the scripts run on cpu or cuda (cuda:N for GPU number N)."),
        (["--device", "cuda:0"], "--device cuda:0: torch sees no CUDA GPU here; use --device cpu."),
        (["--sample-tokens", "-1"], "argument --sample-tokens: '-1': give 0 or more"),
        (["--sample-tokens", "many"], "argument --sample-tokens: 'many' is not a whole number"),
    ],
)
def test_gpt_script_names_a_bad_device_or_sample_length_before_training(flags, message):
    result = script("03_gpt.py", "--preset", "layernorm", *flags)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == f"03_gpt.py: error: {message}"
    assert result.stdout == "" and "%|" not in result.stderr  # nothing trained
