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
                ax.text(col, row, "−∞", ha="center", va="center", fontsize=7, color="#444444")
                continue
            red, green, blue, _ = image.cmap(image.norm(value))
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
            text = fmt.format(value)
            text = fmt.format(0.0) if float(text) == 0 else text.replace("-", "−")  # no "−0.0"
            ax.text(col, row, text, ha="center", va="center", fontsize=7, color="white" if dark else "black")
    return image
