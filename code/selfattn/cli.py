"""Command-line runner behind the chapter scripts (``code/01_bigram.py`` .. ``code/03_gpt.py``)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields, replace

import torch
from tqdm import tqdm

from selfattn.config import TrainConfig
from selfattn.corpus import load_corpus
from selfattn.errors import ConfigError, DataError
from selfattn.runs import Rung, describe
from selfattn.training import UNUSED, Progress, fit

DEFAULT = "default: %(default)s"


def default_device() -> str:
    """CUDA when torch sees a GPU, else the CPU."""
    return "cuda" if torch.cuda.is_available() else "cpu"


def parse_args(presets: dict[str, Rung], argv: list[str] | None, description: str) -> argparse.Namespace:
    """``--preset`` (when there are several), then ``--field value`` for every config field.

    The fields' defaults are the chosen preset's, so ``--help`` shows them; the
    result is checked like any config.
    """
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--preset", choices=list(presets), default=next(iter(presets)))
    chosen = presets[first.parse_known_args(argv)[0].preset]

    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawTextHelpFormatter)
    if len(presets) > 1:
        lines = "\n".join(f"{name}: {rung.what}" for name, rung in presets.items())
        parser.add_argument("--preset", choices=list(presets), default=next(iter(presets)), help=lines)
    flags = [f for f in fields(TrainConfig) if f.name not in UNUSED[chosen.kind]]
    for f in flags:
        flag, meaning = "--" + f.name.replace("_", "-"), f.metadata["rule"].help
        default = getattr(chosen.config, f.name)
        parser.add_argument(flag, type=type(f.default), default=default, help=f"{meaning} ({DEFAULT})")
    parser.add_argument("--device", default=default_device(), help=f"cpu or cuda ({DEFAULT})")
    parser.add_argument(
        "--sample-tokens", type=int, default=500, help=f"characters to write at the end ({DEFAULT})"
    )
    args = parser.parse_args(argv)
    settings = {f.name: getattr(args, f.name) for f in flags}
    try:
        args.config = replace(chosen.config, **settings)
    except ConfigError as err:
        parser.error(str(err))
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        parser.error(f"--device {args.device}: torch sees no CUDA GPU here; use --device cpu.")
    args.kind = chosen.kind
    return args


def main(presets: dict[str, Rung], description: str, argv: list[str] | None = None) -> None:
    """Train the chosen preset with the flags in ``argv``, print the step log and a sample."""
    args = parse_args(presets, argv, description)
    config = args.config
    try:
        tokenizer = load_corpus().tokenizer  # the data first: no progress bar for a run that cannot start
    except DataError as err:
        sys.exit(f"error: {err}")
    print(describe(args.kind, config))
    bar = tqdm(total=config.max_iters, unit="step", dynamic_ncols=True)

    def progress(p: Progress) -> None:
        if p.evaluated:  # the losses change only here
            bar.set_postfix(train=f"{p.train_loss:.3f}", val=f"{p.val_loss:.3f}", refresh=False)
            tqdm.write(f"step {p.step:5d}: train loss {p.train_loss:.4f}, val loss {p.val_loss:.4f}")
        bar.update(p.step - bar.n)

    model, history = fit(args.kind, config, progress, args.device, reuse=False)  # always train
    bar.close()
    params = sum(p.numel() for p in model.parameters())
    print(f"{params:,} parameters; final val loss {history.final_val:.4f}")

    model.eval()  # no dropout while writing
    start = torch.zeros((1, 1), dtype=torch.long, device=args.device)  # (B=1, T=1): a newline
    generator = torch.Generator(device=args.device).manual_seed(config.seed)
    print(tokenizer.decode(model.generate(start, args.sample_tokens, generator)[0].tolist()))
