"""Matplotlib settings shared by every figure in the book."""

from __future__ import annotations

import matplotlib as mpl
from matplotlib.axes import Axes

from selfattn.training import History

# Okabe-Ito colours: distinguishable with colour-blindness, on white and in print.
COLORS = {"train": "#0072B2", "val": "#D55E00", "bigram": "#555555", "attention": "#009E73"}
# One colour per model when many share a chart (the ladder of Part IV), in the same palette.
SERIES = ["#555555", "#009E73", "#56B4E9", "#E69F00", "#999999", "#0072B2", "#CC79A7", "#D55E00"]


NOTEBOOK = "module://matplotlib_inline.backend_inline"  # the backend a Jupyter kernel draws with
# The book's look. An SVG keeps its words as text (the translated editions write them in their
# language, _ext/editions/translation/figure_text.py) and the same names inside on every run.
STYLE = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "figure.figsize": (6.4, 3.6),
    "figure.dpi": 110,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "font.size": 10,
    "svg.fonttype": "none",
    "svg.hashsalt": "selfattn",
}
# The font figures with Chinese characters fall back to (with_chinese); the PDF's and the Chinese
# edition's figures use it too.
CJK_FONT = "Noto Sans CJK SC"


def use_book_style() -> None:
    """A white card behind every figure, so it stays legible in the site's dark mode. In a
    notebook, every figure comes as PNG and as SVG with its words as text: the book's pages show
    the PNG, Jupyter and the book's live mode the SVG."""
    mpl.rcParams.update(STYLE)
    if mpl.get_backend() == NOTEBOOK:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("png", "svg", metadata={"Date": None})  # no date: the same SVG every run


def with_chinese() -> None:
    """Let figures write Chinese characters: where DejaVu Sans has no glyph, matplotlib takes it
    from Noto Sans CJK (Debian's ``fonts-noto-cjk``; the book's Binder image installs it)."""
    mpl.rcParams.update({"font.family": ["DejaVu Sans", CJK_FONT]})


def plot_losses(ax: Axes, history: History, label: str, color: str) -> None:
    """The evaluated train (dotted) and val (solid) losses of one run."""
    ax.plot(history.steps, history.train_loss, ":", color=color, label=f"{label}: train")
    ax.plot(history.steps, history.val_loss, "-", color=color, label=f"{label}: val")
    ax.set_xlabel("training step")
    ax.set_ylabel("cross-entropy loss")
