"""Checkpoints: a run saved while it trains, so that it can stop and go on where it stopped.

``train(..., save_to=folder)`` writes ``folder/checkpoint.pt`` after every
evaluation: the model, the optimizer, the config, the history so far and the state
of every random generator the run draws from (its batches, and dropout's), in each of
its processes. A run resumed from it, in as many processes, takes exactly the steps the
uninterrupted run would have taken.
The file is replaced atomically, so a run stopped at any moment leaves the last
whole checkpoint behind.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields
from functools import partial
from pathlib import Path

import torch

from selfattn.config import TrainConfig
from selfattn.engine import World
from selfattn.errors import ConfigError, DataError
from selfattn.files import write_atomically
from selfattn.language import say

FILE = "checkpoint.pt"
KEYS = {"model_class", "config", "step", "model", "optimizer", "history", "random_states"}


@dataclass
class Checkpoint:
    """Everything a run needs to go on: where it stopped and the state it had there."""

    model_class: str  # e.g. "GPTLanguageModel"
    config: dict  # asdict(TrainConfig)
    step: int  # steps taken; the evaluation at this step is in the history
    model: dict  # state_dict
    optimizer: dict  # state_dict
    history: dict  # asdict(History)
    random_states: list[dict]  # each process's, by rank: generator name -> state (a uint8 tensor)


def path_in(folder: Path) -> Path:
    return Path(folder) / FILE


def save(
    folder: Path,
    step: int,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    config: TrainConfig,
    history: dict,
    batches: torch.Generator,
    world: World,
) -> None:
    """Replace the folder's checkpoint, atomically, with the run as it stands after ``step`` steps.

    ``history`` is the run's history so far (as a dict); ``batches`` the generator its training
    batches come from (an evaluation seeds its own: ``training.evaluation_generator``). Every
    process of ``world`` calls it and hands its generators to the main one, which writes the file.
    """
    device = next(model.parameters()).device
    states = world.gather(random_states(batches, device))
    if not world.main:
        return
    checkpoint = Checkpoint(
        type(model).__name__,
        asdict(config),
        step,
        model.state_dict(),
        optimizer.state_dict(),
        history,
        states,
    )
    write_atomically(path_in(folder), partial(torch.save, asdict(checkpoint)))


def restore(
    checkpoint: Checkpoint,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    batches: torch.Generator,
    rank: int,
) -> None:
    """Put the model, the optimizer and every random generator back as ``checkpoint`` holds them,
    the generators as the process of this ``rank`` left them."""
    model.load_state_dict(checkpoint.model)
    optimizer.load_state_dict(checkpoint.optimizer)
    device = next(model.parameters()).device
    set_random_states(checkpoint.random_states[rank], batches, device)


def random_states(batches: torch.Generator, device: torch.device) -> dict:
    """The state of every generator a run draws from: its batch generator, and dropout's."""
    states = {"batches": batches.get_state()}
    states["dropout"] = torch.get_rng_state()  # dropout draws from torch's global generator
    if device.type != "cpu":  # on a GPU (CUDA, or an Apple GPU: mps), from the GPU's own
        states[gpu_generator(device)] = torch.get_device_module(device).get_rng_state(device)
    return states


def set_random_states(states: dict, batches: torch.Generator, device: torch.device) -> None:
    """Put every generator a run draws from back in the ``states`` :func:`random_states` took."""
    batches.set_state(states["batches"])
    torch.set_rng_state(states["dropout"])
    if device.type != "cpu":
        torch.get_device_module(device).set_rng_state(states[gpu_generator(device)], device)


def gpu_generator(device: torch.device) -> str:
    """The name a checkpoint gives the state of the generator of a GPU's kind: ``dropout_cuda``,
    ``dropout_mps``."""
    return f"dropout_{device.type}"


def check_folder(folder: Path, resume: bool) -> None:
    """A one-line error unless a run can save its checkpoints into ``folder``, checked before it trains.

    The folder, or the nearest folder above it that exists (where it would be made), must be a folder
    the run may write into; a new run (not ``resume``) must not replace a checkpoint that is there.
    Then a new run's folder is made, as its first save would make it, so that a place where no folder
    can be made (a read-only or virtual file system) is refused now too.
    """
    folder = Path(folder)
    there = next(p for p in (folder, *folder.parents) if p.exists())
    if not there.is_dir():
        raise ConfigError(
            say(
                "cannot save the run into {folder}: {there} is a file; name a folder instead.",
                folder=folder,
                there=there,
            )
        )
    if not os.access(there, os.W_OK | os.X_OK):
        raise ConfigError(
            say(
                "cannot save the run into {folder}: {there} is not writable; "
                "save it into a folder you can write to.",
                folder=folder,
                there=there,
            )
        )
    if resume:
        return
    path = path_in(folder)
    if path.exists():
        raise ConfigError(
            say(
                "{path} already holds a checkpoint; continue it with --resume {folder}, "
                "or save the new run into another folder.",
                path=path,
                folder=folder,
            )
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(
            say(
                "cannot save the run into {folder}: {why}; save it into a folder you can write to.",
                folder=folder,
                why=err.strerror,
            )
        ) from None


def load(folder: Path, model: torch.nn.Module, config: TrainConfig, processes: int) -> Checkpoint:
    """The folder's checkpoint, checked to be whole and to be a run of ``model``'s class with ``config``
    in as many ``processes``."""
    path = path_in(folder)
    if not path.is_file():
        raise DataError(
            say("no checkpoint at {path}: start the run with --out {folder} first.", path=path, folder=folder)
        )
    try:
        saved = torch.load(path, weights_only=True)
    except Exception as err:  # a truncated or foreign file: torch says why in its own words
        raise DataError(
            say(
                "{path} is incomplete or not a checkpoint ({error}); delete it and start again.",
                path=path,
                error=type(err).__name__,
            )
        ) from None
    if not isinstance(saved, dict) or set(saved) != KEYS:
        raise DataError(
            say("{path} is incomplete or not a checkpoint; delete it and start again.", path=path)
        )
    ours = asdict(config)
    differ = [
        say(
            "{name}={saved!r}, not {ours!r}",
            name=f.name,
            saved=saved["config"].get(f.name, f.default),
            ours=ours[f.name],
        )
        for f in fields(TrainConfig)
        if saved["config"].get(f.name, f.default) != ours[f.name]  # a field newer than the save: its default
    ]
    if saved["model_class"] != type(model).__name__:
        differ.insert(
            0, say("the model {saved}, not {ours}", saved=saved["model_class"], ours=type(model).__name__)
        )
    saved_in = len(saved["random_states"])  # one per process
    if saved_in != processes:
        differ.append(
            say("{saved} process, not {ours}", saved=saved_in, ours=processes)
            if saved_in == 1
            else say("{saved} processes, not {ours}", saved=saved_in, ours=processes)
        )
    if differ:
        raise ConfigError(
            say(
                "{path} was trained with {differ}: resume with the settings it was "
                "trained with, or start a new run in another folder.",
                path=path,
                differ=say("; ").join(differ),
            )
        )
    return Checkpoint(**saved)
