"""Static diagrams of Parts V and VI, drawn from the sizes a chapter passes in.

``data_parallel_step`` draws one training step shared by several processes ("Beyond one
machine"), ``tile_grid`` the query × key tiles of causal attention computed tile by tile ("What
attention costs"), and ``cached_query`` one new position's attention against a KV cache
("Generating faster: the KV cache"). The chapters draw them in hidden cells; every number on
them comes from the chapter.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Polygon, Rectangle

from selfattn.flowchart import rounded_box
from selfattn.plotting import COLORS

INK = "#333333"
LIGHT = {"batch": "#E8F1FA", "compute": "#FCEBDD", "share": "#E6F5EF", "skip": "#F1F1F1"}


def _box(ax: Axes, x: float, y: float, width: float, text: str, fill: str, height: float = 0.62) -> None:
    """A rounded box centred on (x, y) with ``text`` in it."""
    rounded_box(ax, (x, y), (width, height), fill, boxstyle="round,pad=0.02,rounding_size=0.08")
    ax.text(x, y, text, ha="center", va="center", fontsize=8.5, color=INK)


def _arrow(ax: Axes, start: tuple[float, float], end: tuple[float, float]) -> None:
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=10, color=INK, linewidth=0.9))


def _blank(ax: Axes) -> None:
    ax.set_axis_off()
    ax.set_aspect("equal")


def data_parallel_step(processes: int, rows: int) -> Figure:
    """One step of data parallelism: a batch of ``rows`` rows, its shares, each process's backward
    pass, the all-reduce and the same optimizer step on every copy, top to bottom."""
    share = rows // processes
    width, pitch = 3.1, 3.5  # a process's column
    xs = [pitch * (r - (processes - 1) / 2) for r in range(processes)]
    wide = pitch * (processes - 1) + width
    levels = [4.0, 3.0, 2.0, 1.0, 0.0]  # top to bottom
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    _box(ax, 0, levels[0], wide, f"one batch of {rows} rows, drawn alike by every process", LIGHT["batch"])
    for r, x in enumerate(xs):
        rows_of_r = f"process {r}: rows {r * share} to {(r + 1) * share - 1}"
        _box(ax, x, levels[1], width, rows_of_r, LIGHT["share"])
        _box(ax, x, levels[2], width, "forward and backward:\nthe gradient of its share", LIGHT["compute"])
        _box(ax, x, levels[4], width, "AdamW: the same step\non every copy of the model", LIGHT["share"])
        for top, bottom in zip(levels, levels[1:], strict=False):
            _arrow(ax, (x, top - 0.32), (x, bottom + 0.32))
    _box(ax, 0, levels[3], wide, "all-reduce: every process receives the average gradient", LIGHT["batch"])
    ax.set_xlim(-wide / 2 - 0.1, wide / 2 + 0.1)
    ax.set_ylim(-0.45, 4.45)
    _blank(ax)
    return fig


def tile_grid(tiles: int, tile: int) -> Figure:
    """Causal attention's (T, T) scores as ``tiles`` × ``tiles`` tiles of ``tile`` positions: tiles
    below the diagonal computed whole, diagonal tiles with their future masked, the rest skipped."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
    for i in range(tiles):  # query tile, drawn from the top
        for j in range(tiles):  # key tile
            x, y = j, tiles - 1 - i
            if j < i:
                computed = Rectangle((x, y), 1, 1, facecolor=COLORS["train"], alpha=0.55, edgecolor="white")
                ax.add_patch(computed)
            elif j == i:  # keys after the query, the upper right triangle, are masked
                ax.add_patch(Rectangle((x, y), 1, 1, facecolor="white", edgecolor="white"))
                ax.add_patch(Polygon([(x, y), (x, y + 1), (x + 1, y)], facecolor=COLORS["train"], alpha=0.55))
                ax.add_patch(
                    Polygon(
                        [(x, y + 1), (x + 1, y + 1), (x + 1, y)],
                        facecolor="white",
                        hatch="////",
                        edgecolor=COLORS["val"],
                        linewidth=0,
                    )
                )
            else:
                ax.add_patch(Rectangle((x, y), 1, 1, facecolor=LIGHT["skip"], edgecolor="white"))
    ax.add_patch(Rectangle((0, 0), tiles, tiles, fill=False, edgecolor=INK, linewidth=0.8))
    ticks = [k + 0.5 for k in range(tiles)]
    ax.set_xticks(ticks, [f"{k * tile}–{(k + 1) * tile - 1}" for k in range(tiles)], fontsize=7, rotation=45)
    ax.set_yticks(ticks, [f"{k * tile}–{(k + 1) * tile - 1}" for k in reversed(range(tiles))], fontsize=7)
    ax.set_xlabel("key positions, one tile per column")
    ax.set_ylabel("query positions, one tile per row")
    ax.set_xlim(0, tiles)
    ax.set_ylim(0, tiles)
    ax.set_aspect("equal")
    ax.grid(False)
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(False)
    legend = [
        Rectangle((0, 0), 1, 1, facecolor=COLORS["train"], alpha=0.55, label="computed whole"),
        Rectangle(
            (0, 0),
            1,
            1,
            facecolor="white",
            hatch="////",
            edgecolor=COLORS["val"],
            label="on the diagonal:\nthe future masked",
        ),
        Rectangle(
            (0, 0), 1, 1, facecolor=LIGHT["skip"], edgecolor="0.7", label="skipped:\nall in the future"
        ),
    ]
    ax.legend(handles=legend, fontsize=8, loc="upper left", bbox_to_anchor=(1.03, 1.0), frameon=False)
    return fig


def cached_query(past: int, head_size: int) -> Figure:
    """One new position against a KV cache of ``past`` positions: its key and value join the
    cache, its query scores every cached key, and one row of weights mixes the cached values."""
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    n, cell = past + 1, 0.4
    cols = min(head_size, 4)  # a few of the head's numbers stand for all of them
    top = n * cell

    def cells(x0: float, y0: float, count: int, width: float, fill: str) -> None:
        for c in range(count):
            ax.add_patch(Rectangle((x0 + c * width, y0), width, cell, facecolor=fill, edgecolor="white"))

    def cache(x0: float, title: str) -> None:
        for r in range(n):
            fresh = r == n - 1
            cells(x0, top - (r + 1) * cell, cols, cell, COLORS["val"] if fresh else LIGHT["batch"])
        ax.text(x0 + cols * cell / 2, top + 0.12, title, ha="center", va="bottom", fontsize=8.5, color=INK)

    cache(0.0, f"keys K\n{n} positions")
    cache(2.4, f"values V\n{n} positions")
    ax.text(-0.15, cell / 2, "new", ha="right", va="center", fontsize=8, color=COLORS["val"])
    ax.text(
        -0.15,
        cell + past * cell / 2,
        f"cached:\npositions\n0 to {past - 1}",
        ha="right",
        va="center",
        fontsize=8,
        color=INK,
    )
    qx = 5.3
    cells(qx, top - cell, cols, cell, COLORS["val"])
    ax.text(
        qx + cols * cell / 2,
        top + 0.12,
        "the new\nquery q",
        ha="center",
        va="bottom",
        fontsize=8.5,
        color=INK,
    )
    wy = top - 3.2 * cell  # the row of weights
    cells(qx, wy, n, cell / 2, COLORS["train"])
    ax.text(
        qx + n * cell / 2 + 0.15,
        wy + cell / 2,
        f"{n} weights:\nsoftmax of q\nagainst each key",
        ha="left",
        va="center",
        fontsize=8,
        color=INK,
    )
    oy = cell / 2 - cell  # the output row, level with the new position
    cells(qx, oy, cols, cell, COLORS["attention"])
    ax.text(
        qx + cols * cell + 0.15,
        oy + cell / 2,
        "output: the\nweighted sum\nof the values",
        ha="left",
        va="center",
        fontsize=8,
        color=INK,
    )
    _arrow(ax, (qx + cols * cell / 2, top - cell - 0.05), (qx + cols * cell / 2, wy + cell + 0.05))
    _arrow(ax, (cols * cell + 0.08, top - 2 * cell), (qx - 0.08, wy + cell / 2))
    _arrow(ax, (qx + n * cell / 4, wy - 0.05), (qx + n * cell / 4, oy + cell + 0.05))
    _arrow(ax, (2.4 + cols * cell + 0.08, cell), (qx - 0.08, oy + cell / 2))
    ax.set_xlim(-1.5, 9.4)
    ax.set_ylim(oy - 0.25, top + 0.75)
    _blank(ax)
    return fig
