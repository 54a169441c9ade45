"""Command-line runner behind the chapter scripts (``code/01_bigram.py`` .. ``code/03_gpt.py``)."""

from __future__ import annotations

import argparse
import io
import re
import sys
import time
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, NoReturn, get_type_hints

import torch
from tqdm import tqdm

from selfattn.config import TrainConfig
from selfattn.corpus import load_corpus
from selfattn.engine import DTYPES, Engine, World, start, stop
from selfattn.errors import ConfigError, ReaderError
from selfattn.language import say, words
from selfattn.registry import LADDER_MODELS, UNREAD
from selfattn.runs import Run, describe
from selfattn.settings import field_type
from selfattn.tokenizers import CharTokenizer
from selfattn.training import Progress, fit

DEFAULT = "default: %(default)s"
DEVICE = re.compile(r"auto|cpu|mps|cuda(?::(?P<gpu>\d+))?")  # the devices the scripts train on
WAIT_FOR_MAIN = 10  # seconds a failing process of several waits for the main one's message
# What a flag's text that is not a number is told, by (a float is wanted, none is allowed).
NUMBERS = {
    (True, False): words("{text!r} is not a number"),
    (True, True): words("{text!r} is not a number or none"),
    (False, False): words("{text!r} is not a whole number"),
    (False, True): words("{text!r} is not a whole number or none"),
}


def torchrun(processes: int, *command: str | Path) -> list[str]:
    """The command that runs ``command`` (a script and its flags, or ``-m``, a module and its
    flags) in ``processes`` processes on this machine, which find each other at 127.0.0.1 (on a
    port the launcher picks), with this Python."""
    launch = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", f"--nproc-per-node={processes}"]
    return [*launch, "--rdzv-backend", "c10d", "--rdzv-endpoint", "127.0.0.1:0", *map(str, command)]


def auto_device() -> tuple[str, str]:
    """The device ``--device auto`` trains on, and the line that says which and why: CUDA when
    torch sees a CUDA GPU, else an Apple GPU (mps) when it sees one, else the CPU."""
    if torch.cuda.is_available():
        return "cuda", say("Device: cuda (torch sees a CUDA GPU).")
    if torch.backends.mps.is_available():
        return "mps", say("Device: mps (no CUDA GPU; torch sees an Apple GPU).")
    return "cpu", say("Device: cpu (torch sees neither a CUDA GPU nor an Apple GPU).")


def speak_any_text() -> None:
    """Let the standard streams print every language the package speaks: a character the
    terminal's encoding lacks (Chinese under an ASCII or Latin-1 locale) is written as its
    escape, ``\\u4e2d``, instead of stopping the run with a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def flag_type(kind: type, optional: bool) -> Callable[[str], Any]:
    """Read a flag's text as a field of type ``kind``: ``true``/``false`` for a bool, ``none`` to leave
    an optional field unset."""

    def parse(text: str) -> Any:
        if optional and text.lower() == "none":
            return None
        if kind is bool:
            if text.lower() not in ("true", "false"):
                raise argparse.ArgumentTypeError(say("{text!r}: give true or false", text=text))
            return text.lower() == "true"
        try:
            return kind(text)
        except ValueError:
            wanted = NUMBERS[kind is float, optional]
            raise argparse.ArgumentTypeError(say(wanted, text=text)) from None

    return parse


def count(text: str) -> int:
    """Read a flag's text as a whole number, 0 or more."""
    number = flag_type(int, optional=False)(text)
    if number < 0:
        raise argparse.ArgumentTypeError(say("{text!r}: give 0 or more", text=text))
    return number


def parse_args(presets: dict[str, Run], argv: list[str] | None, description: str) -> argparse.Namespace:
    """``--preset`` (when there are several), then ``--field value`` for every config field.

    The fields' defaults are the chosen preset's, so ``--help`` shows them; the
    result is checked like any config.
    """
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--preset", choices=list(presets), default=next(iter(presets)))
    chosen = presets[first.parse_known_args(argv)[0].preset]

    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawTextHelpFormatter)
    if len(presets) > 1:
        lines = "\n".join(f"{name}: {preset.what}" for name, preset in presets.items())
        parser.add_argument("--preset", choices=list(presets), default=next(iter(presets)), help=lines)
    flags = [f for f in fields(TrainConfig) if f.name not in UNREAD[chosen.kind]]
    kinds = get_type_hints(TrainConfig)
    for f in flags:
        flag, meaning = "--" + f.name.replace("_", "-"), f.metadata["rule"].help
        default = getattr(chosen.config, f.name)
        parser.add_argument(
            flag,
            type=flag_type(*field_type(kinds[f.name])),
            choices=f.metadata["rule"].choices or None,
            default=default,
            help=f"{meaning} ({DEFAULT})",
        )
    parser.add_argument(
        "--device",
        default="auto",
        help=f"auto (CUDA, else an Apple GPU, else the CPU), cpu, cuda, cuda:N or mps ({DEFAULT})",
    )
    parser.add_argument(
        "--dtype",
        choices=list(DTYPES),
        default="float32",
        help=f"bfloat16: autocast, on CUDA or Apple GPUs ({DEFAULT})",
    )
    parser.add_argument("--compile", action="store_true", help="on CUDA GPUs: train through torch.compile")
    if chosen.kind in LADDER_MODELS:  # the models whose attention is a CausalSelfAttention
        parser.add_argument(
            "--sdpa", action="store_true", help="attention through PyTorch's scaled_dot_product_attention"
        )
    saving = parser.add_mutually_exclusive_group()
    saving.add_argument(
        "--out", type=Path, metavar="DIR", help="save a checkpoint into DIR at every evaluation"
    )
    saving.add_argument(
        "--resume", type=Path, metavar="DIR", help="go on from DIR's checkpoint (same settings), saving there"
    )
    parser.add_argument(
        "--sample-tokens",
        type=count,
        default=500,
        help=f"characters to write at the end, 0 for none ({DEFAULT})",
    )
    args = parser.parse_args(argv)
    settings = {f.name: getattr(args, f.name) for f in flags}
    try:
        args.config = replace(chosen.config, **settings)
    except ConfigError as err:
        parser.error(str(err))
    device = DEVICE.fullmatch(args.device)
    if device is None:
        parser.error(
            say(
                "--device {device}: the scripts run on auto, cpu, cuda (cuda:N for GPU number N) or mps.",
                device=args.device,
            )
        )
    args.chosen = None  # the line that says which device auto chose, and why
    if args.device == "auto":
        args.device, args.chosen = auto_device()
    if args.device == "mps" and not torch.backends.mps.is_available():
        parser.error(
            say("--device mps: torch sees no Apple GPU here; use --device cpu.")
            if torch.backends.mps.is_built()
            else say("--device mps: this torch was built without MPS, for Apple GPUs; use --device cpu.")
        )
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        parser.error(
            say("--device {device}: torch sees no CUDA GPU here; use --device cpu.", device=args.device)
        )
    if device["gpu"] is not None and int(device["gpu"]) >= torch.cuda.device_count():
        gpus = torch.cuda.device_count()
        parser.error(
            say(
                "--device {device}: torch sees {gpus} CUDA GPUs here, numbered 0 to {last}.",
                device=args.device,
                gpus=gpus,
                last=gpus - 1,
            )
        )
    args.kind, args.sdpa = chosen.kind, getattr(args, "sdpa", False)
    return args


def main(presets: dict[str, Run], description: str, argv: list[str] | None = None) -> None:
    """Train the chosen preset with the flags in ``argv``, print the step log and a sample.

    Under ``torchrun`` every process trains its share of each batch (``selfattn.engine``); only
    the main one prints and saves.
    """
    speak_any_text()
    args = parse_args(presets, argv, description)
    config, world = args.config, World.launched()
    try:
        # the data first: no progress bar for a run that cannot start
        tokenizer = load_corpus(config.corpus, config.bpe_vocab).tokenizer
        engine = start(world, args.device, args.dtype, args.compile, config, args.sdpa)
    except ReaderError as err:
        fail(err, world)
    try:
        run(args, engine, tokenizer)
    finally:
        stop(engine)


def fail(err: ReaderError, world: World) -> NoReturn:
    """Exit with the error's one line, printed once, by the main process.

    Every process of a world fails alike; the others wait for the main one to say why (torchrun
    stops them when it exits).
    """
    if not world.main:
        time.sleep(WAIT_FOR_MAIN)
    sys.exit(f"error: {err}" if world.main else 1)


def run(args: argparse.Namespace, engine: Engine, tokenizer: CharTokenizer) -> None:
    """The run itself, once its data and its engine are ready."""
    config, main = args.config, engine.world.main
    if main:
        if args.chosen:
            print(args.chosen)
        print(describe(args.kind, config))
    bars: list[tqdm] = []  # opened at the first step, once the run (and its checkpoint) is sure to start

    def progress(p: Progress) -> None:
        if not bars:
            bars.append(tqdm(total=config.max_iters, initial=p.step, unit="step", dynamic_ncols=True))
            if resume:
                tqdm.write(say("going on from the checkpoint of step {step}", step=p.step))
        bar = bars[0]
        if p.evaluated:  # the losses change only here
            bar.set_postfix(train=f"{p.train_loss:.3f}", val=f"{p.val_loss:.3f}", refresh=False)
            tqdm.write(
                say(
                    "step {step:5}: train loss {train:.4f}, val loss {val:.4f}",
                    step=p.step,
                    train=p.train_loss,
                    val=p.val_loss,
                )
            )
        bar.update(p.step - bar.n)

    try:  # always train: the run cache is the book's, not the scripts'
        resume = args.resume is not None
        folder = args.resume or args.out
        model, history = fit(
            args.kind,
            config,
            progress=progress if main else None,
            engine=engine,
            reuse=False,
            save_to=folder,
            resume=resume,
        )
    except ReaderError as err:
        fail(err, engine.world)
    finally:
        for bar in bars:
            bar.close()
    if not main:
        return
    params = sum(p.numel() for p in model.parameters())
    print(say("{params:,} parameters; final val loss {val:.4f}", params=params, val=history.final_val))

    model.eval()  # no dropout while writing
    start_ids = torch.zeros((1, 1), dtype=torch.long, device=engine.device)  # (B=1, T=1): a newline
    generator = torch.Generator(device=engine.device).manual_seed(config.seed)
    print(tokenizer.decode(model.generate(start_ids, args.sample_tokens, generator)[0].tolist()))
