"""The book's interactive figures: HTML for the web, PNG for the PDF, from real data.

Each function returns an :class:`InteractiveFigure`; make it the last line of a
code cell (or ``glue`` it) and the notebook shows it. :data:`FIGURES` lists the
thirteen in the order the book introduces them, each with a call that draws it.

See ``output.py`` for how the script reaches the page; the book's build moves
it into one static file that every page loads (``_ext/content/figure_script.py``).
"""

from selfattn.figures.choice import next_token_choice
from selfattn.figures.learning import before_after, heatmap_steps, ladder, training_curve
from selfattn.figures.mechanism import (
    averaging_matrix,
    batch_grid,
    context_window,
    head_maps,
    mixing_values,
    projections,
    score_table,
    shape_walk,
)
from selfattn.figures.output import InteractiveFigure

# The thirteen figures: each one's kind (``data-kind`` in its HTML, the view that draws it in
# figures.js) and a call that makes it, written with the names the chapters use: ``corpus``,
# the averaging matrix ``a`` with a matrix ``b`` and ``c = a @ b``, a trained ``model`` and its
# ``history``, the ``initial_model`` it started from, a batch ``xb``, a ``text`` of block_size
# characters, the ``bigram`` run's History (or its final validation loss), the toy run's
# ``snapshots`` (step, loss, weights) and ``tokens``, and a GPT-style ``gpt_model`` with its
# ``gpt_history``.
FIGURES: tuple[tuple[str, str], ...] = (
    ("context-window", "context_window(corpus.text[:9])"),
    ("batch", "batch_grid(corpus, model)"),
    ("shape-walk", "shape_walk(model, xb, corpus.tokenizer)"),
    ("averaging", "averaging_matrix(a, b, c)"),
    ("qkv", "projections(model, corpus.tokenizer, text)"),
    ("score-table", "score_table(model, corpus.tokenizer, text)"),
    ("mix-values", "mixing_values(model, corpus.tokenizer, text)"),
    ("training", "training_curve(history, bigram)"),
    ("before-after", "before_after(initial_model, model)"),
    ("heatmap-steps", "heatmap_steps(snapshots, tokens)"),
    ("ladder", "ladder({'one head': history, 'four heads': gpt_history})"),
    ("head-maps", "head_maps(gpt_model, corpus.tokenizer, text)"),
    ("next-token", "next_token_choice(gpt_model, corpus.tokenizer, text)"),
)

__all__ = [
    "FIGURES",
    "InteractiveFigure",
    "averaging_matrix",
    "batch_grid",
    "before_after",
    "context_window",
    "head_maps",
    "heatmap_steps",
    "ladder",
    "mixing_values",
    "next_token_choice",
    "projections",
    "score_table",
    "shape_walk",
    "training_curve",
]
