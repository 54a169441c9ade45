"""Command-line runner behind the chapter scripts (``code/01_bigram.py``, ``code/02_attention.py``)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields, replace

import torch
from tqdm import tqdm

from selfattn.config import TrainConfig
from selfattn.corpus import load_corpus
from selfattn.errors import ConfigError, DataError
from selfattn.training import Progress, fit


def parse_config(defaults: TrainConfig, argv: list[str] | None, description: str) -> tuple[TrainConfig, int]:
    """``--field value`` flags for every config field, explained and validated like any config."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawTextHelpFormatter)
    for f in fields(TrainConfig):
        flag = "--" + f.name.replace("_", "-")
        meaning = f.metadata["rule"].help
        kind = type(f.default)
        parser.add_argument(
            flag, type=kind, default=getattr(defaults, f.name), help=f"{meaning} (default: %(default)s)"
        )
    parser.add_argument(
        "--sample-tokens",
        type=int,
        default=500,
        help="characters to generate at the end (default: %(default)s)",
    )
    args = vars(parser.parse_args(argv))
    sample_tokens = args.pop("sample_tokens")
    try:
        return replace(defaults, **args), sample_tokens
    except ConfigError as err:
        parser.error(str(err))


def main(kind: str, defaults: TrainConfig, description: str, argv: list[str] | None = None) -> None:
    """Train ``kind`` with the flags in ``argv``, print the step log and a sample."""
    config, sample_tokens = parse_config(defaults, argv, description)
    try:
        tokenizer = load_corpus().tokenizer  # the data first: no progress bar for a run that cannot start
    except DataError as err:
        sys.exit(f"error: {err}")
    print(config)
    bar = tqdm(total=config.max_iters, unit="step", dynamic_ncols=True)

    def progress(p: Progress) -> None:
        bar.set_postfix(train=f"{p.train_loss:.3f}", val=f"{p.val_loss:.3f}", refresh=False)
        bar.update(p.step - bar.n)
        if p.evaluated:
            tqdm.write(f"step {p.step:5d}: train loss {p.train_loss:.4f}, val loss {p.val_loss:.4f}")

    model, history = fit(kind, config, progress)
    bar.close()
    params = sum(p.numel() for p in model.parameters())
    print(f"{params:,} parameters; final val loss {history.final_val:.4f}")

    start = torch.zeros((1, 1), dtype=torch.long)  # (B=1, T=1): a newline to start from
    generator = torch.Generator().manual_seed(config.seed)
    print(tokenizer.decode(model.generate(start, sample_tokens, generator)[0].tolist()))
