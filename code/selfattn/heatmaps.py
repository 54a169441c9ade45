"""Small matrices drawn as labelled, optionally annotated, grids of coloured cells."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.image import AxesImage

MASKED_COLOR = "#d9d9d9"  # light grey with a "-inf" label: cells softmax will turn into exact zeros


def heatmap(
    ax: Axes,
    values: torch.Tensor,
    labels: Sequence[str] | None = None,
    *,
    cmap: str = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    fmt: str | None = "{:.1f}",
    fontsize: float = 7,
) -> AxesImage:
    """Draw ``values`` (rows, cols) on ``ax``; ``-inf`` cells are grey and marked "−∞".

    ``labels`` name both the rows and the columns (positions of one sequence);
    ``fmt`` writes each finite value in its cell (``None`` for no numbers).
    """
    grid = values.detach().cpu().double().numpy()  # (rows, cols)
    masked = np.ma.masked_invalid(grid)
    colormap = mpl.colormaps[cmap].with_extremes(bad=MASKED_COLOR)
    image = ax.imshow(masked, cmap=colormap, vmin=vmin, vmax=vmax)
    ax.grid(False)
    if labels is not None:
        ax.set_xticks(range(grid.shape[1]), labels[: grid.shape[1]])
        ax.set_yticks(range(grid.shape[0]), labels[: grid.shape[0]])
    ax.tick_params(length=0)
    if fmt is not None:
        for (row, col), value in np.ndenumerate(grid):
            if np.isneginf(value):
                ax.text(col, row, "−∞", ha="center", va="center", fontsize=fontsize, color="#444444")
                continue
            text = fmt.format(value)
            text = fmt.format(0.0) if float(text) == 0 else text.replace("-", "−")  # no "−0.0"
            ink = ink_on(image.cmap(image.norm(value))[:3])
            ax.text(col, row, text, ha="center", va="center", fontsize=fontsize, color=ink)
    return image


def ink_on(rgb: Sequence[float]) -> str:
    """Black or white text, whichever contrasts more with a cell of colour ``rgb`` (0-1 each).

    WCAG's relative luminance and contrast ratio; ``paint`` in figures.js applies the same rule.
    """
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return "black" if (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) else "white"
