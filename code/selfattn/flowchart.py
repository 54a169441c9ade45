"""Flow charts of a model's forward pass: boxes for the steps, arrows labelled with shapes.

"Recap and cheat sheet" draws the attention model and "A small GPT" the whole
GPT with :func:`flowchart`. The chapters fill in every box and arrow from a real
forward pass, so no shape or size on a chart is typed by hand. Two columns:
read down the left one and up the right one.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

# Box colours by the kind of step, light enough for black text.
FILL = {"text": "#E8F1FA", "embed": "#E6F5EF", "attend": "#FCEBDD", "compute": "#F3ECF8", "output": "#F1F1F1"}
LABEL = "#1F4E79"  # the colour of the shapes on the arrows
X0, X1, WIDTH, HEIGHT, PITCH = 2.1, 8.7, 4.2, 0.95, 1.45


@dataclass(frozen=True)
class Box:
    """One step: where it sits, its title, a line of code and an optional note."""

    column: int  # 0: left, read downwards; 1: right, read upwards
    row: int
    kind: str  # a key of FILL
    title: str
    code: str
    note: str | None = None
    learned: bool = False  # holds parameters: drawn with a thick border


@dataclass(frozen=True)
class Arrow:
    """What travels from one box to another, e.g. ``Arrow("embed", "qkv", "x (32, 8, 32)")``."""

    start: str
    end: str
    label: str


@dataclass(frozen=True)
class Frame:
    """A dashed frame around rows ``first`` to ``last`` of both columns (keep its title short)."""

    first: int
    last: int
    title: str


def _centre(box: Box) -> tuple[float, float]:
    return (X1 if box.column else X0), -box.row * PITCH


def flowchart(
    boxes: dict[str, Box], arrows: list[Arrow], frame: Frame | None = None, height: float = 6.6
) -> Figure:
    """Draw the boxes and the arrows between them; a horizontal arrow's label is ``name shape``."""
    rows = max(box.row for box in boxes.values())
    fig, ax = plt.subplots(figsize=(8.2, height))
    fig.subplots_adjust(left=0, right=1, bottom=0, top=1)
    ax.set_xlim(-0.15, 10.95)
    ax.set_ylim(-rows * PITCH - 0.62, 0.62)
    ax.axis("off")
    if frame is not None:  # around the rows' boxes, its title in the gap between the columns
        top, bottom = -frame.first * PITCH + 0.57, -frame.last * PITCH - 0.57
        ax.add_patch(
            Rectangle((-0.1, bottom), 10.95, top - bottom, fill=False, linestyle="--", edgecolor="#777777")
        )
        middle = -(frame.first + frame.last - 1) / 2 * PITCH
        ax.text(
            5.4, middle, frame.title, ha="center", va="center", fontsize=8.5, style="italic", color="#333333"
        )
    for box in boxes.values():
        cx, cy = _centre(box)
        rounded_box(ax, (cx, cy), (WIDTH, HEIGHT), FILL[box.kind], linewidth=1.8 if box.learned else 0.8)
        ax.text(cx, cy + 0.22, box.title, ha="center", va="center", fontsize=10, weight="bold")
        ax.text(cx, cy - 0.06, box.code, ha="center", va="center", fontsize=7.5, family="monospace")
        if box.note:
            ax.text(
                cx,
                cy - 0.32,
                box.note,
                ha="center",
                va="center",
                fontsize=7.5,
                style="italic",
                color="#555555",
            )
    for arrow in arrows:
        _arrow(ax, _centre(boxes[arrow.start]), _centre(boxes[arrow.end]), arrow.label)
    return fig


def rounded_box(
    ax: plt.Axes,
    centre: tuple[float, float],
    size: tuple[float, float],
    fill: str,
    linewidth: float = 0.8,
    boxstyle: str = "round,pad=0.04",
) -> None:
    """A box with rounded corners and a dark edge, centred on ``centre``, ``size`` = (width, height)."""
    (x, y), (width, height) = centre, size
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle=boxstyle,
            facecolor=fill,
            edgecolor="#333333",
            linewidth=linewidth,
        )
    )


def _arrow(ax: plt.Axes, start: tuple[float, float], end: tuple[float, float], label: str) -> None:
    (x0, y0), (x1, y1) = start, end
    if x0 == x1:  # vertical, between two boxes of one column
        step = HEIGHT / 2 + 0.05
        y0, y1 = (y0 - step, y1 + step) if y1 < y0 else (y0 + step, y1 - step)
        ax.text(
            x0 + 0.12,
            (y0 + y1) / 2,
            label,
            ha="left",
            va="center",
            fontsize=8.5,
            family="monospace",
            color=LABEL,
        )
    else:  # horizontal, across the gap between the columns, either way
        sign = 1 if x1 > x0 else -1
        x0, x1 = x0 + sign * (WIDTH / 2 + 0.05), x1 - sign * (WIDTH / 2 + 0.05)
        name, shape = label.split(" ", 1)
        ax.text(
            (x0 + x1) / 2,
            y0 + 0.1,
            f"{name}\n{shape}",
            ha="center",
            va="bottom",
            fontsize=8.5,
            family="monospace",
            color=LABEL,
        )
    ax.add_patch(FancyArrowPatch((x0, y0), (x1, y1), arrowstyle="-|>", mutation_scale=13, color="#333333"))
