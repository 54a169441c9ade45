"""The interactive figures on one notebook page, and the same figures drawn in this process.

The page's cells are a set-up cell, which trains a model with the given configuration and
defines every name the calls in ``selfattn.figures.FIGURES`` use, then one cell per figure with
its call. ``draw`` runs the very same code here, so its figures carry the same numbers as the
built page's. The figure tests build the page; ``benchmarks/page_weight_figures.py`` weighs the
figures of the book's own run.
"""

from __future__ import annotations

from selfattn import TrainConfig
from selfattn.figures import FIGURES, InteractiveFigure

SETUP = """\
from dataclasses import replace

import torch
from selfattn import BIGRAM, TrainConfig, fit, get_batch, load_corpus, make_model
from selfattn.figures import {functions}
from selfattn.toy import run_toy

corpus = load_corpus()
config = {config!r}
model, history = fit("attention", config)
gpt_model, gpt_history = fit("multihead", replace(config, n_head=4))
initial_model = make_model("attention", corpus.tokenizer.vocab_size, config)
bigram = {bigram}
xb, yb = get_batch(corpus.train, 4, 8, torch.Generator().manual_seed(1337))
b = torch.randn(4, 3, generator=torch.Generator().manual_seed(0))
a = torch.tril(torch.ones(4, 4))
a = a / a.sum(dim=1, keepdim=True)
c = a @ b
text = "First Ci"
toy = run_toy()
snapshots = [(step, toy.losses[step], weights) for step, weights in sorted(toy.snapshots.items())]
tokens = toy.tokens
"""
FUNCTIONS = sorted({call.split("(")[0] for _, call in FIGURES})
HEADER = """\
---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---

# Figures

"""


def setup_cell(config: TrainConfig, bigram: str) -> str:
    """The set-up cell; ``bigram`` is an expression for the bigram run's History or its final loss."""
    return SETUP.format(functions=", ".join(FUNCTIONS), config=config, bigram=bigram)


def page_source(config: TrainConfig, bigram: str) -> str:
    """The page as a MyST notebook: the set-up cell, then one cell per figure."""
    cells = [setup_cell(config, bigram), *(call for _, call in FIGURES)]
    return HEADER + "\n".join(f"```{{code-cell}} ipython3\n{cell.strip()}\n```\n" for cell in cells)


def draw(config: TrainConfig, bigram: str) -> tuple[dict, dict[str, InteractiveFigure]]:
    """Run the page's cells here: the names the set-up cell defines, and the figures by kind."""
    names: dict = {}
    exec(setup_cell(config, bigram), names)
    return names, {kind: eval(call, names) for kind, call in FIGURES}
