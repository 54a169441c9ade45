"""Beyond one machine: processes that share each batch train as one process would; flags that do not
apply here are one-line errors."""

from __future__ import annotations

import subprocess

import pytest
import torch

from bookbuild import ROOT
from selfattn.checkpoints import random_states, set_random_states
from selfattn.cli import torchrun
from selfattn.engine import ALONE, BOOK, Autocast, Engine, World, start
from selfattn.errors import ConfigError
from selfattn.registry import make_model
from selfattn.runs import LADDER
from tests.helpers import script

STEPS = 20
RUN = ["--preset", "layernorm", "--max-iters", str(STEPS), "--eval-interval", "10", "--eval-iters", "4"]
RUN += ["--sample-tokens", "0"]


def run_in(processes: int, *flags: str) -> subprocess.CompletedProcess:
    """``code/03_gpt.py`` in ``processes`` CPU processes under torchrun (gloo, 127.0.0.1)."""
    command = torchrun(processes, ROOT / "code" / "03_gpt.py", *flags)
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_the_package_runs_the_ladder_under_torchrun_without_the_repository(tmp_path):
    """What a notebook runs (the chapter "Beyond one machine"): ``-m selfattn.ladder``, from a folder
    with no ``code/03_gpt.py`` in reach, in two processes."""
    command = torchrun(2, "-m", "selfattn.ladder", *RUN, "--out", str(tmp_path / "run"))
    pair = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert pair.returncode == 0, pair.stderr
    assert len(history(tmp_path / "run")["batch_loss"]) == STEPS


def history(folder) -> dict:
    return torch.load(folder / "checkpoint.pt", weights_only=True)["history"]


def test_two_processes_sharing_each_batch_train_as_one_process_does(tmp_path):
    alone = script("03_gpt.py", *RUN, "--out", str(tmp_path / "one"))
    assert alone.returncode == 0, alone.stderr
    pair = run_in(2, *RUN, "--out", str(tmp_path / "two"))
    assert pair.returncode == 0, pair.stderr
    one, two = history(tmp_path / "one"), history(tmp_path / "two")
    assert len(one["batch_loss"]) == len(two["batch_loss"]) == STEPS
    assert one["batch_loss"] == pytest.approx(two["batch_loss"], abs=1e-5)
    assert one["val_loss"] == pytest.approx(two["val_loss"], abs=1e-5)
    # the main process alone reports: one parameter count, one final loss
    assert pair.stdout.count("parameters; final val loss") == 1


def test_a_batch_that_does_not_split_over_the_processes_is_one_line_from_one_process():
    result = run_in(2, *RUN, "--batch-size", "31")
    assert result.returncode != 0
    errors = [line for line in (result.stdout + result.stderr).splitlines() if line.startswith("error:")]
    assert errors == [
        "error: batch_size=31 does not split into 2 equal shares, one per process: give a multiple "
        "of 2, or a number of processes that divides it."
    ]
    # torchrun's report, none of ours (the checkout's own folder may be named anything)
    assert "selfattn" not in result.stderr.replace(errors[0], "").replace(str(ROOT), "")


@pytest.mark.parametrize(
    "flags, named",
    [
        (["--dtype", "bfloat16"], "--dtype bfloat16 is for CUDA GPUs"),
        (["--compile"], "--compile is for CUDA GPUs"),
    ],
)
def test_gpu_flags_on_a_cpu_are_one_line_errors(flags, named):
    result = script("03_gpt.py", *RUN, "--device", "cpu", *flags)
    assert result.returncode == 1
    assert result.stderr.strip().startswith(f"error: {named}")
    assert len(result.stderr.strip().splitlines()) == 1


def test_bfloat16_takes_a_gpu_with_bfloat16_arithmetic_and_refuses_one_that_only_emulates_it(monkeypatch):
    """torch says yes to bfloat16 on a GPU that only emulates it (a T4, a V100) unless asked for
    the arithmetic itself; the GPUs are torch's answers, as each kind of GPU gives them."""

    def emulating(including_emulation: bool = True) -> bool:
        return including_emulation  # a T4's answer: bfloat16 through emulation only

    config = LADDER["layernorm"].config
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", emulating)
    with pytest.raises(ConfigError) as refused:
        start(ALONE, "cuda", "bfloat16", False, config)
    assert str(refused.value) == (
        "--dtype bfloat16 is for CUDA GPUs with bfloat16 arithmetic (compute capability 8.0 and up), "
        "which this one lacks: torch would only emulate it. Leave it out here; the run trains in float32."
    )
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: True)
    assert start(ALONE, "cuda", "bfloat16", False, config) == Engine("cuda", "bfloat16")


def test_an_apple_gpu_takes_bfloat16_and_refuses_compile_and_several_processes():
    """What torch 2.13 runs on an Apple GPU (mps) and what it does not, as ``start`` checks it before
    the run touches the GPU: no Apple GPU is needed to check it, and none ran here."""
    config = LADDER["layernorm"].config
    assert start(ALONE, "mps", "bfloat16", False, config) == Engine("mps", "bfloat16")
    with pytest.raises(ConfigError) as compiled:
        start(ALONE, "mps", "float32", True, config)
    assert str(compiled.value) == (
        "--compile is for CUDA GPUs: on an Apple GPU (mps) torch's compiler is an early prototype, "
        "which the book has not measured. Leave it out here."
    )
    with pytest.raises(ConfigError) as several:
        start(World(rank=0, size=2, local_rank=0, local_size=2), "mps", "float32", False, config)
    assert str(several.value) == (
        "2 processes on an Apple GPU (mps): torch's process groups (gloo, NCCL) take no Apple GPU "
        "tensors. Train in one process, or in several with --device cpu."
    )


def test_a_checkpoint_keeps_the_apple_gpu_s_generator_and_puts_it_back(monkeypatch):
    """On an Apple GPU dropout draws from the GPU's own generator (``torch.mps``), which a
    checkpoint keeps beside the CPU's; torch's answers are patched, as no Apple GPU is here."""
    gpu = {"state": torch.tensor([1, 2, 3], dtype=torch.uint8)}
    monkeypatch.setattr(torch.mps, "get_rng_state", lambda device="mps": gpu["state"].clone())
    monkeypatch.setattr(torch.mps, "set_rng_state", lambda state, device="mps": gpu.update(state=state))
    batches = torch.Generator().manual_seed(0)
    states = random_states(batches, torch.device("mps"))
    assert set(states) == {"batches", "dropout", "dropout_mps"}
    drawn = torch.rand(3, generator=batches)
    gpu["state"] = torch.tensor([9, 9, 9], dtype=torch.uint8)  # the run drew on
    set_random_states(states, batches, torch.device("mps"))
    assert torch.equal(gpu["state"], torch.tensor([1, 2, 3], dtype=torch.uint8))
    assert torch.equal(torch.rand(3, generator=batches), drawn)
    assert set(random_states(batches, torch.device("cpu"))) == {"batches", "dropout"}


def test_a_share_is_the_process_s_rows_in_order_and_the_shares_cover_the_batch():
    batch = torch.arange(32 * 8).view(32, 8)  # (B, T)
    shares = [World(rank, 4, rank, 4).share(batch) for rank in range(4)]
    assert [tuple(share.shape) for share in shares] == [(8, 8)] * 4
    assert torch.equal(torch.cat(shares), batch)
    assert ALONE.share(batch) is not None and torch.equal(ALONE.share(batch), batch)
    assert ALONE.average(torch.tensor(2.5)) == 2.5


def test_start_alone_is_the_book_s_engine_and_refuses_a_bad_dtype():
    config = LADDER["layernorm"].config
    assert start(ALONE, "cpu", "float32", False, config) == BOOK
    with pytest.raises(ConfigError, match="--dtype float16: choose one of float32, bfloat16"):
        start(ALONE, "cpu", "float16", False, config)


def test_prepare_wraps_the_model_only_for_what_the_engine_asks():
    config = LADDER["layernorm"].config
    model = make_model("gpt", 65, config)
    assert BOOK.prepare(model, config.seed) is model
    compiled = Engine(compile=True).prepare(model, config.seed)  # it compiles at its first call
    assert type(compiled).__name__ == "OptimizedModule"
    assert list(compiled.parameters()) == list(model.parameters())
    autocast = Engine(dtype="bfloat16").prepare(model, config.seed)
    assert isinstance(autocast, Autocast)
    assert list(autocast.parameters()) == list(model.parameters())
    idx = torch.zeros((2, config.block_size), dtype=torch.long)  # (B, T)
    logits, loss = autocast(idx, idx)
    assert logits.dtype == torch.bfloat16  # the matrix products ran in bfloat16
    assert loss.dtype == torch.float32  # the loss did not


def test_sdpa_computes_the_manual_attention_within_float_tolerance(tmp_path):
    """--sdpa swaps the five lines of CausalSelfAttention for PyTorch's fused call: the same outputs,
    and the same training steps, to float32's rounding."""
    config = LADDER["layernorm"].config
    model = make_model("gpt", 65, config).eval()
    idx = torch.randint(0, 65, (4, config.block_size), generator=torch.Generator().manual_seed(0))  # (B, T)
    weights_seen = []  # the manual path hands wei to attn_dropout; the fused one never makes it
    model.blocks[0].sa.attn_dropout.register_forward_hook(lambda *_: weights_seen.append(1))
    manual, _ = BOOK.prepare(model, config.seed)(idx)
    assert len(weights_seen) == 1
    fused, _ = Engine(sdpa=True).prepare(model, config.seed)(idx)
    assert len(weights_seen) == 1 and all(block.sa.fused for block in model.blocks)
    assert torch.allclose(manual, fused, atol=1e-5)
    runs = {}
    for name, flags in (("manual", []), ("sdpa", ["--sdpa"])):
        run = script("03_gpt.py", *RUN, "--out", str(tmp_path / name), *flags)
        assert run.returncode == 0, run.stderr
        runs[name] = history(tmp_path / name)["batch_loss"]
    assert len(runs["manual"]) == STEPS
    assert max(abs(a - b) for a, b in zip(runs["manual"], runs["sdpa"], strict=True)) < 1e-4


def test_only_the_scripts_with_a_causal_self_attention_offer_sdpa():
    refused = script("02_attention.py", "--sdpa")
    assert refused.returncode == 2 and "unrecognized arguments: --sdpa" in refused.stderr
