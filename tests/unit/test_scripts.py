"""The chapter scripts run from the command line and validate their flags."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import fields, replace

import pytest
import torch

from selfattn import ATTENTION, TrainConfig, make_model
from selfattn.cli import main, parse_args
from selfattn.language import translations
from selfattn.registry import UNREAD
from selfattn.runs import LADDER
from tests.helpers import script

# A short run of the LayerNorm rung, trained in this process.
QUICK = ["--preset", "layernorm", "--max-iters", "2", "--eval-interval", "1", "--eval-iters", "1"]
QUICK += ["--sample-tokens", "0"]


def test_bigram_script_trains_and_prints_its_log_and_size():
    result = script("01_bigram.py", "--max-iters", "300", "--eval-iters", "20", "--sample-tokens", "50")
    assert result.returncode == 0, result.stderr
    assert "step   300: train loss" in result.stdout
    assert "4,225 parameters" in result.stdout


def test_a_script_speaks_chinese_under_a_locale_that_cannot_write_it():
    """A Windows console's code page, or a POSIX system's C locale with Python's UTF-8 mode off:
    the Chinese lines come out as escapes, and the run goes on to its end."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHONIOENCODING"))}
    env |= {"PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C", "SELFATTN_LANGUAGE": "zh_CN"}
    asked = "import locale, sys; print(locale.getpreferredencoding(), sys.stdout.encoding)"
    encodings = subprocess.run([sys.executable, "-c", asked], env=env, capture_output=True, text=True)
    assert "utf" not in encodings.stdout.lower(), encodings.stdout  # else this test proves nothing
    flags = ["--max-iters", "20", "--eval-interval", "10", "--eval-iters", "2", "--sample-tokens", "10"]
    result = script("01_bigram.py", *flags, env=env)
    assert result.returncode == 0 and "Error" not in result.stderr, result.stderr
    chinese = translations("zh_CN")["{params:,} parameters; final val loss {val:.4f}"]
    said = chinese.split("{val")[0].format(params=4225)  # "4,225 个参数；最终验证损失 "
    assert said.encode("ascii", "backslashreplace").decode("ascii") in result.stdout


def test_attention_script_rejects_a_bad_flag_clearly():
    result = script("02_attention.py", "--learning-rate", "0")
    assert result.returncode == 2
    assert "learning_rate=0.0: learning_rate must be a finite number greater than 0" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_says_what_every_flag_the_model_reads_controls():
    shown = " ".join(script("02_attention.py", "--help").stdout.split())
    for f in fields(TrainConfig):
        flag = "--" + f.name.replace("_", "-")
        meaning, choices = f.metadata["rule"].help, f.metadata["rule"].choices
        value = "{" + ",".join(choices) + "}" if choices else f.name.upper()  # a text field lists its values
        described = f"{flag} {value} {meaning} (default: {getattr(ATTENTION, f.name)})" in shown
        assert described == (f.name not in UNREAD["attention"]), f.name


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


@pytest.mark.parametrize(
    ("corpus", "bpe_vocab", "vocab_size"), [("tang-poems", 0, 8_337), ("shakespeare", 300, 300)]
)
def test_gpt_script_trains_on_another_text_or_on_byte_pairs(corpus, bpe_vocab, vocab_size):
    flags = ["--max-iters", "2", "--eval-interval", "1", "--eval-iters", "1", "--sample-tokens", "20"]
    result = script(
        "03_gpt.py", "--preset", "layernorm", "--corpus", corpus, "--bpe-vocab", str(bpe_vocab), *flags
    )
    assert result.returncode == 0, result.stderr
    model = make_model("gpt", vocab_size, LADDER["layernorm"].config)
    assert f"{sum(p.numel() for p in model.parameters()):,} parameters; final val loss" in result.stdout


def test_the_ladder_script_and_the_package_module_are_one_command(tmp_path):
    """``python -m selfattn.ladder`` is ``code/03_gpt.py`` where the repository is not at hand."""
    shown = script("03_gpt.py", "--help").stdout
    module = [sys.executable, "-m", "selfattn.ladder", "--help"]
    from_elsewhere = subprocess.run(module, capture_output=True, text=True, cwd=tmp_path)
    assert from_elsewhere.returncode == 0, from_elsewhere.stderr
    assert from_elsewhere.stdout.split("\n", 1)[1] == shown.split("\n", 1)[1]  # all but the usage line
    assert "--preset {" in shown and "-m selfattn.ladder" in shown


def test_gpt_script_names_a_bad_head_count():
    result = script("03_gpt.py", "--preset", "small-gpt", "--n-head", "5")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "n_embd=64 with n_head=5: each head gets n_embd / n_head channels" in result.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--device", "tpu"],
            "--device tpu: the scripts run on auto, cpu, cuda (cuda:N for GPU number N) or mps.",
        ),
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


def torch_sees(monkeypatch: pytest.MonkeyPatch, cuda: bool, mps: bool, mps_built: bool = True) -> None:
    """torch's answers on a machine with or without a CUDA GPU and an Apple GPU (mps), patched: the
    machines the tests run on have neither, and nothing here runs on one."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    monkeypatch.setattr(torch.backends.mps, "is_built", lambda: mps_built)


@pytest.mark.parametrize(
    ("cuda", "mps", "device", "why"),
    [
        (True, True, "cuda", "Device: cuda (torch sees a CUDA GPU)."),
        (False, True, "mps", "Device: mps (no CUDA GPU; torch sees an Apple GPU)."),
        (False, False, "cpu", "Device: cpu (torch sees neither a CUDA GPU nor an Apple GPU)."),
    ],
)
def test_device_auto_is_the_default_and_takes_cuda_then_an_apple_gpu_then_the_cpu(
    monkeypatch, cuda, mps, device, why
):
    torch_sees(monkeypatch, cuda, mps)
    for flags in ([], ["--device", "auto"]):
        args = parse_args(LADDER, flags, "")
        assert (args.device, args.chosen) == (device, why)
    asked = parse_args(LADDER, ["--device", "cpu"], "")
    assert (asked.device, asked.chosen) == ("cpu", None)  # a device asked for is not announced


def test_a_run_on_auto_says_its_device_and_why_in_one_line_first(monkeypatch, capsys):
    torch_sees(monkeypatch, cuda=False, mps=False)
    main(LADDER, "", QUICK)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Device: cpu (torch sees neither a CUDA GPU nor an Apple GPU)."
    assert [line for line in lines if line.startswith("Device")] == lines[:1]
    main(LADDER, "", [*QUICK, "--device", "cpu"])
    assert not capsys.readouterr().out.startswith("Device")


@pytest.mark.parametrize(
    ("built", "message"),
    [
        (True, "--device mps: torch sees no Apple GPU here; use --device cpu."),
        (False, "--device mps: this torch was built without MPS, for Apple GPUs; use --device cpu."),
    ],
)
def test_mps_where_torch_has_no_apple_gpu_is_one_line_before_anything_starts(
    monkeypatch, capsys, built, message
):
    torch_sees(monkeypatch, cuda=False, mps=False, mps_built=built)
    with pytest.raises(SystemExit) as stopped:
        main(LADDER, "", [*QUICK, "--device", "mps"])
    out, err = capsys.readouterr()
    assert stopped.value.code == 2 and out == ""
    assert err.strip().splitlines()[-1].endswith(f": error: {message}")


@pytest.mark.parametrize(
    ("flags", "world", "message"),
    [
        (
            ["--compile"],
            {},
            "--compile is for CUDA GPUs: on an Apple GPU (mps) torch's compiler is an early prototype, "
            "which the book has not measured. Leave it out here.",
        ),
        (
            [],
            {"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "2"},  # torchrun's
            "2 processes on an Apple GPU (mps): torch's process groups (gloo, NCCL) take no Apple GPU "
            "tensors. Train in one process, or in several with --device cpu.",
        ),
    ],
)
@pytest.mark.parametrize("device", [["--device", "mps"], []], ids=["mps", "auto"])
def test_what_an_apple_gpu_cannot_run_is_one_line_before_anything_starts(
    monkeypatch, capsys, flags, world, message, device
):
    torch_sees(monkeypatch, cuda=False, mps=True)
    for name, value in world.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as stopped:
        main(LADDER, "", [*QUICK, *device, *flags])
    assert stopped.value.code == f"error: {message}"  # the one line the script exits with
    assert capsys.readouterr().out == ""  # nothing trained, nothing announced
