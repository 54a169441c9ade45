"""The interactive figures drawn in this process, and the same figures as one executed notebook page.

The page's cells are a set-up cell, which trains a model with the given configuration and
defines every name the calls in ``selfattn.figures.FIGURES`` use, then one cell per figure with
its call. ``draw`` runs those cells here; ``notebook`` writes them as a notebook whose outputs are
the figures ``draw`` gave, as Jupyter shows a cell's result, so the page is executed once and
carries the very numbers of the figures in hand. The figure tests build that notebook with
Jupyter Book (not executing it again); ``benchmarks/page_weight_figures.py`` weighs the figures
of the book's own run.
"""

from __future__ import annotations

import nbformat

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
TITLE = "# Figures"
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def setup_cell(config: TrainConfig, bigram: str) -> str:
    """The set-up cell; ``bigram`` is an expression for the bigram run's History or its final loss."""
    return SETUP.format(functions=", ".join(FUNCTIONS), config=config, bigram=bigram)


def draw(config: TrainConfig, bigram: str) -> tuple[dict, dict[str, InteractiveFigure]]:
    """Run the page's cells here: the names the set-up cell defines, and the figures by kind."""
    names: dict = {}
    exec(setup_cell(config, bigram), names)
    return names, {kind: eval(call, names) for kind, call in FIGURES}


def notebook(
    config: TrainConfig, bigram: str, figures: dict[str, InteractiveFigure]
) -> nbformat.NotebookNode:
    """The page as an executed notebook: its title, the set-up cell (which shows nothing), then
    each figure's cell with ``figures[kind]`` (what ``draw`` gave) as its result, in the formats
    IPython's display formatter gives Jupyter (the HTML view, PNG, SVG and text)."""
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    cells = [
        nbformat.v4.new_markdown_cell(TITLE),
        nbformat.v4.new_code_cell(setup_cell(config, bigram).strip(), execution_count=1),
    ]
    for count, (kind, call) in enumerate(FIGURES, start=2):
        data, metadata = formatter.format(figures[kind])
        result = nbformat.v4.new_output("execute_result", data=data, metadata=metadata, execution_count=count)
        cells.append(nbformat.v4.new_code_cell(call, execution_count=count, outputs=[result]))
    metadata = {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}}
    page = nbformat.v4.new_notebook(cells=cells, metadata=metadata)
    nbformat.validate(page)
    return page
