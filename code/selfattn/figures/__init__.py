"""The book's interactive figures: HTML for the web, PNG for the PDF, from real data.

Each function returns an :class:`InteractiveFigure`; make it the last line of a
code cell and the notebook shows it. See ``output.py`` for how the script gets
to the page.
"""

from selfattn.figures.learning import before_after, heatmap_steps, training_curve
from selfattn.figures.mechanism import batch_grid, context_window, mixing_values, score_table, shape_walk
from selfattn.figures.output import InteractiveFigure

__all__ = [
    "InteractiveFigure",
    "batch_grid",
    "before_after",
    "context_window",
    "heatmap_steps",
    "mixing_values",
    "score_table",
    "shape_walk",
    "training_curve",
]
