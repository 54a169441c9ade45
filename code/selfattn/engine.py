"""How a run computes: on which device, in which precision, compiled or not, in how many processes.

The book trains in one process on a CPU. On GPUs, ``--dtype bfloat16`` runs the matrix products
in bfloat16 (``torch.autocast``), ``--compile`` hands the model to ``torch.compile`` (CUDA only)
and ``--sdpa`` computes attention with PyTorch's fused ``scaled_dot_product_attention`` (any
device); and ``torchrun --nproc-per-node N code/03_gpt.py ...`` starts N processes that train one
model together (data parallelism). Each process takes its share of every batch and computes gradients
on it; ``DistributedDataParallel`` averages the gradients of all processes during ``backward``,
so every copy of the model takes the same step.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from selfattn.config import TrainConfig
from selfattn.errors import ConfigError
from selfattn.gpt import CausalSelfAttention
from selfattn.language import say

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}


@dataclass(frozen=True)
class World:
    """The processes that train one model together, and this one's place among them."""

    rank: int = 0
    size: int = 1
    local_rank: int = 0  # the rank among this machine's processes: which GPU it takes
    local_size: int = 1  # the processes on this machine

    @classmethod
    def launched(cls) -> World:
        """The world torchrun started this process in (it sets these variables); alone without it."""
        if "WORLD_SIZE" not in os.environ:
            return ALONE
        names = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")
        return cls(*(int(os.environ[name]) for name in names))

    @property
    def main(self) -> bool:
        """The one process that reports progress, saves checkpoints and writes the sample."""
        return self.rank == 0

    def share(self, batch: torch.Tensor) -> torch.Tensor:
        """This process's rows of a batch that every process drew alike."""
        rows = len(batch) // self.size
        return batch[self.rank * rows : (self.rank + 1) * rows]  # (B / size, ...)

    def average(self, loss: torch.Tensor) -> float:
        """The whole batch's loss: the mean of the processes' losses on their equal shares."""
        if self.size == 1:
            return loss.item()
        total = loss.detach().clone()
        dist.all_reduce(total)  # the sum over the processes, on every process
        return total.item() / self.size

    def gather(self, value: object) -> list | None:
        """Every process's ``value``, by rank, on the main process; None on the others."""
        if self.size == 1:
            return [value]
        values = [None] * self.size if self.main else None
        dist.gather_object(value, values)
        return values


ALONE = World()


class Autocast(nn.Module):
    """``model`` with its forward pass under ``torch.autocast``: matrix products in ``dtype``, the
    loss and the normalisations in float32."""

    def __init__(self, model: nn.Module, device_type: str, dtype: torch.dtype):
        super().__init__()
        self.model, self.device_type, self.dtype = model, device_type, dtype

    def forward(self, *args: torch.Tensor):
        with torch.autocast(self.device_type, dtype=self.dtype):
            return self.model(*args)


@dataclass(frozen=True)
class Engine:
    """Where and how a run's training steps compute."""

    device: str = "cpu"
    dtype: str = "float32"  # a key of DTYPES
    compile: bool = False
    sdpa: bool = False  # attention through F.scaled_dot_product_attention
    world: World = ALONE

    def prepare(self, model: nn.Module, seed: int) -> nn.Module:
        """What the training steps call: ``model`` itself, or a wrapper that compiles it, runs it in
        autocast, or averages its gradients over the world's processes. All share its parameters."""
        for layer in model.modules():
            if isinstance(layer, CausalSelfAttention):
                layer.fused = self.sdpa
        net = torch.compile(model) if self.compile else model
        if self.dtype != "float32":
            net = Autocast(net, torch.device(self.device).type, DTYPES[self.dtype])
        if self.world.size > 1:
            if not self.world.main:  # dropout: each process its own masks; the main one keeps the run's
                torch.manual_seed(seed + self.world.rank)
            ids = [self.world.local_rank] if self.device.startswith("cuda") else None
            net = DistributedDataParallel(net, device_ids=ids)  # copies the main process's weights
        return net


BOOK = Engine()  # the book's way: one process, float32, as written


def start(
    world: World, device: str, dtype: str, compile: bool, config: TrainConfig, sdpa: bool = False
) -> Engine:
    """The engine for these choices, checked (a one-line ``ConfigError`` where one does not apply),
    with this process joined to its world. Every process of a world fails alike, or none does."""
    if dtype not in DTYPES:
        raise ConfigError(
            say("--dtype {dtype}: choose one of {dtypes}.", dtype=dtype, dtypes=", ".join(DTYPES))
        )
    kind = torch.device(device).type  # "cpu", "cuda" or "mps" (an Apple GPU)
    cuda = kind == "cuda"
    # Apple GPUs take --dtype bfloat16: torch 2.13's autocast refuses neither 16-bit dtype on "mps"
    # (torch/amp/autocast_mode.py), and its MpsInterface.is_bf16_supported answers True on every
    # Apple GPU (torch/_dynamo/device_interface.py). torch cannot tell there whether the GPU computes
    # in bfloat16 or emulates it, so the check of the arithmetic below is CUDA's alone.
    if dtype == "bfloat16" and kind == "cpu":
        raise ConfigError(
            say(
                "--dtype bfloat16 is for CUDA GPUs with bfloat16 arithmetic: on a CPU the book trains in "
                "float32, which gives its numbers on any CPU. Leave it out here."
            )
        )
    if dtype == "bfloat16" and cuda and not torch.cuda.is_bf16_supported(including_emulation=False):
        raise ConfigError(
            say(
                "--dtype bfloat16 is for CUDA GPUs with bfloat16 arithmetic (compute capability 8.0 and up), "
                "which this one lacks: torch would only emulate it. Leave it out here; the run trains in "
                "float32."
            )
        )
    # torch 2.13's compiler for Apple GPUs calls itself "just an early prototype" that is "not a
    # feature-complete compiler backend" (torch/_inductor/codegen/mps.py), and the book has not timed it.
    if compile and kind == "mps":
        raise ConfigError(
            say(
                "--compile is for CUDA GPUs: on an Apple GPU (mps) torch's compiler is an early "
                "prototype, which the book has not measured. Leave it out here."
            )
        )
    if compile and not cuda:
        raise ConfigError(
            say(
                "--compile is for CUDA GPUs: on a CPU, at the book's sizes, compiling costs more than it "
                "saves (python -m benchmarks.cpu_engines measures it). Leave it out here."
            )
        )
    # torch 2.13's process groups take CPU and CUDA tensors only: gloo ["cpu", "cuda"], NCCL
    # ["cuda"] (Backend.backend_capability in torch/distributed/distributed_c10d.py).
    if world.size > 1 and kind == "mps":
        raise ConfigError(
            say(
                "{n} processes on an Apple GPU (mps): torch's process groups (gloo, NCCL) take no "
                "Apple GPU tensors. Train in one process, or in several with --device cpu.",
                n=world.size,
            )
        )
    if world.size == 1:
        return Engine(device, dtype, compile, sdpa)
    if config.batch_size % world.size:
        raise ConfigError(
            say(
                "batch_size={B} does not split into {n} equal shares, one per process: give a multiple "
                "of {n}, or a number of processes that divides it.",
                B=config.batch_size,
                n=world.size,
            )
        )
    if cuda:
        if world.local_size > torch.cuda.device_count():
            raise ConfigError(
                say(
                    "{n} processes on this machine, but torch sees {gpus} GPUs: start at most one process "
                    "per GPU (torchrun --nproc-per-node).",
                    n=world.local_size,
                    gpus=torch.cuda.device_count(),
                )
            )
        device = f"cuda:{world.local_rank}"
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if cuda else "gloo")
    return Engine(device, dtype, compile, sdpa, world)


def stop(engine: Engine) -> None:
    """Leave the world of processes, if the run joined one."""
    if engine.world.size > 1 and dist.is_initialized():
        dist.destroy_process_group()
