"""Figures 8-11: what training records and what it changes."""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import torch
from matplotlib.figure import Figure as MplFigure

from selfattn.errors import ConfigError
from selfattn.figures.output import InteractiveFigure, Words, rounded, shown
from selfattn.language import say
from selfattn.plotting import COLORS, SERIES
from selfattn.training import History


def _crossing(steps: Sequence[int], losses: Sequence[float], level: float) -> int | None:
    """The first step (linearly interpolated between evaluations) at which ``losses`` drop below ``level``."""
    for (s0, v0), (s1, v1) in pairwise(zip(steps, losses, strict=True)):
        if v0 < level:
            return s0
        if v1 < level:
            return math.ceil(s0 + (v0 - level) / (v0 - v1) * (s1 - s0))
    return None


def training_curve(
    history: History, bigram: History | float, label: str = "attention", points: int = 100
) -> InteractiveFigure:
    """Figure 8: ``history``'s losses played back against the bigram's final validation loss.

    ``bigram`` is the bigram run's ``History`` or its final validation loss.
    The per-step batch losses are averaged into about ``points`` points.
    """
    level = bigram.final_val if isinstance(bigram, History) else float(bigram)
    window = max(1, math.ceil(len(history.batch_loss) / points))
    batch = np.asarray(history.batch_loss)
    smoothed = [
        [start + len(chunk), round(float(chunk.mean()), 4)]
        for start in range(0, len(batch), window)
        for chunk in [batch[start : start + window]]
    ]
    last = history.steps[-1]
    cross = _crossing(history.steps, history.val_loss, level)
    data = {
        "label": label,
        "steps": list(history.steps),
        "val": rounded(history.val_loss, 4),
        "train": rounded(history.train_loss, 4),
        "batch": smoothed,
        "bigram": round(level, 4),
        "cross": cross,
        "stride": math.gcd(last, max(1, last // 100)),  # slider step: divides the last step
        "duration": 4000,
    }
    when = (
        Words("drops below it at about step {cross}", cross=cross)
        if cross is not None
        else Words("never drops below it")
    )
    description = Words(
        "The {label} model's validation loss over {last} training steps, from {first:.2f} to "
        "{final:.3f}, against a dashed line at the bigram model's {level:.3f}: the curve {when}. "
        "A play button draws the curve step by step; a slider picks any step.",
        label=Words(label),
        last=last,
        first=history.val_loss[0],
        final=history.final_val,
        level=level,
        when=when,
    )
    return InteractiveFigure("training", data, "Training past the bigram", description, _draw_training)


def _draw_training(fig: MplFigure, d: dict) -> None:
    ax = fig.subplots()
    batch = np.asarray(d["batch"])
    ax.plot(batch[:, 0], batch[:, 1], color="#56B4E9", lw=1, label=f"{d['label']}: batch loss (averaged)")
    ax.plot(d["steps"], d["val"], color=COLORS["attention"], lw=2.5, label=f"{d['label']}: validation")
    ax.axhline(d["bigram"], color=COLORS["bigram"], ls="--", lw=1.5, label=f"bigram: {d['bigram']:.3f}")
    if d["cross"] is not None:
        ax.plot(
            [d["cross"]], [d["bigram"]], "o", color="#b3261e", label=f"crosses at about step {d['cross']}"
        )
    ax.set(xlabel="training step", ylabel="cross-entropy loss")
    ax.legend(fontsize=8)


def _matrices(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """Every weight matrix of a model, by its parameter name (biases left out)."""
    return {name: p.detach() for name, p in model.named_parameters() if p.dim() == 2}


def _quantized(values: torch.Tensor, scale: float) -> str:
    """Values in [-scale, scale] as base64 bytes, 0 = -scale, 255 = +scale (for a colour scale only)."""
    levels = ((values / scale).clamp(-1, 1) + 1) * 127.5
    return base64.b64encode(levels.round().to(torch.uint8).numpy().tobytes()).decode("ascii")


def _plural(count: int, one: str, many: str) -> Words:
    """``one`` or ``many``, templates with a ``{count:,}``, filled with ``count``."""
    return Words(one if count == 1 else many, count=count)


def _parameter_count(model: torch.nn.Module, drawn: set[str]) -> dict:
    """The model's parameter count from ``model.parameters()``, and how much of it ``drawn`` holds."""
    params = dict(model.named_parameters())
    return {
        "parameters": sum(p.numel() for p in params.values()),
        "tensors": len(params),
        "drawn": sum(params[name].numel() for name in drawn),
        "matrices": len(drawn),
        "left_out": [[name, p.numel()] for name, p in params.items() if name not in drawn],
    }


def _tensors(count: int) -> Words:
    return _plural(count, "{count:,} tensor", "{count:,} tensors")


def _numbers(count: int) -> Words:
    return _plural(count, "{count:,} number", "{count:,} numbers")


def _drawn_text(count: dict, sep: str = "; ") -> Words:
    """What the figure draws and what it leaves out of the model's parameters."""
    matrices = _plural(count["matrices"], "the weight matrix", "the {count} weight matrices")
    if not count["left_out"]:
        return Words(
            "Drawn: {matrices}, {numbers}, all of them", matrices=matrices, numbers=_numbers(count["drawn"])
        )
    left_out = [Words("{name}, {numbers}", name=name, numbers=_numbers(n)) for name, n in count["left_out"]]
    return Words(
        "Drawn: {matrices}, {numbers}{sep}not drawn: {left_out}",
        matrices=matrices,
        numbers=_numbers(count["drawn"]),
        sep=sep,
        left_out=left_out,
    )


def before_after(initial: torch.nn.Module, trained: torch.nn.Module, px: int = 3) -> InteractiveFigure:
    """Figure 9: every weight matrix of ``initial`` and ``trained`` (same architecture), toggled.

    ``initial`` is the model before training, e.g. ``make_model("attention",
    vocab_size, config)`` with the config the trained model was fitted with.
    Each matrix is drawn ``px`` screen pixels per number, on one colour scale
    shared by its two states. Parameters that are not matrices (biases) are not
    drawn; the texts give the model's full count and what is left out.
    """
    before, after = _matrices(initial), _matrices(trained)
    shapes = [{name: p.shape for name, p in m.named_parameters()} for m in (initial, trained)]
    if shapes[0] != shapes[1]:
        raise ConfigError(
            say("initial and trained must be the same architecture (same parameter names and shapes).")
        )
    mats = []
    for name, b in before.items():
        a = after[name]
        scale = float(torch.quantile(torch.cat([b.abs().flatten(), a.abs().flatten()]), 0.99)) or 1.0
        mats.append(
            {
                "name": name,
                "rows": b.shape[0],
                "cols": b.shape[1],
                "before": _quantized(b, scale),
                "after": _quantized(a, scale),
                "std": [round(b.std().item(), 4), round(a.std().item(), 4)],
                "scale": round(scale, 4),
            }
        )
    moved = max(mats, key=lambda m: abs(math.log(m["std"][1] / m["std"][0])))
    count = _parameter_count(trained, set(before))
    summary = ", ".join(f"{m['name']} {m['rows']}×{m['cols']}" for m in mats)
    notes = {
        "before": Words(
            "Before training: {total:,} random starting numbers in {tensors}. {drawn}.",
            total=count["parameters"],
            tensors=_tensors(count["tensors"]),
            drawn=_drawn_text(count),
        ),
        "after": Words(
            "After training: the same {total:,} numbers, now shaped by the data. The biggest change in "
            "spread among the matrices is in {name}: its standard deviation went from {before:.3f} to "
            "{after:.3f}.",
            total=count["parameters"],
            name=moved["name"],
            before=moved["std"][0],
            after=moved["std"][1],
        ),
    }
    data = {"mats": mats, "px": px, "count": count, "notes": notes}
    description = Words(
        "The model's weight matrices ({summary}) as colour grids, before and after training, with a "
        "toggle between the two. {before} {after}",
        summary=summary,
        **notes,
    )
    return InteractiveFigure(
        "before-after", data, "Before and after training", description, _draw_before_after, (7.2, 4.8)
    )


def _draw_before_after(fig: MplFigure, d: dict) -> None:
    count = d["count"]
    fig.suptitle(
        f"The model's {count['parameters']:,} parameters in {_tensors(count['tensors'])}\n"
        f"{_drawn_text(count, sep=' · ')}",
        fontsize=8,
    )
    mats = d["mats"]
    axes = fig.subplots(2, len(mats), height_ratios=[1, 1], width_ratios=[m["cols"] for m in mats])
    for col, m in enumerate(mats):
        for row, state in enumerate(("before", "after")):
            q = np.frombuffer(base64.b64decode(m[state]), dtype=np.uint8).reshape(m["rows"], m["cols"])
            ax = axes[row, col]
            ax.imshow(q / 127.5 - 1, cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest", aspect="auto")
            ax.set_xticks([])
            ax.set_yticks([])
            ax.grid(False)
            ax.set_title(f"std {m['std'][row]:.2f}", fontsize=7)
            if col == 0:
                ax.set_ylabel(state, fontsize=10)
            if row == 1:
                label = m["name"].removesuffix(".weight").replace("_embedding_table", "_embedding\n_table")
                ax.set_xlabel(f"{label}\n{m['rows']}×{m['cols']}", fontsize=6.5)


def _label(token: str) -> str:
    return token.strip() or shown(token[:1])


def heatmap_steps(
    snapshots: Sequence[tuple[int, float, object]], tokens: Sequence[str], start: int = 0
) -> InteractiveFigure:
    """Figure 10: one attention-weight heatmap per recorded step, picked with a slider.

    ``snapshots`` is a list of ``(step, loss, weights)`` with ``weights`` an
    (n, n) tensor or array (row: the token that looks); ``tokens`` are the n
    labels (surrounding spaces are dropped for display).
    """
    labels = [_label(t) for t in tokens]
    snaps = []
    for step, loss, weights in snapshots:
        w = np.asarray(torch.as_tensor(weights).detach().cpu(), dtype=float).squeeze()
        if w.shape != (len(labels), len(labels)):
            raise ConfigError(
                say(
                    "step {step}: weights have shape {shape}, expected ({n}, {n}).",
                    step=step,
                    shape=w.shape,
                    n=len(labels),
                )
            )
        snaps.append({"step": int(step), "loss": round(float(loss), 6), "w": rounded(w, 3)})
    if not snaps:
        raise ConfigError(say("snapshots is empty: record at least one (step, loss, weights)."))
    first, last = snaps[0], snaps[-1]
    focus = min(1, len(labels) - 1)

    def strongest(snap: dict) -> Words:
        row = snap["w"][focus]
        j = int(np.argmax(row))
        return Words(
            "{token!r} gives {share:.2f} of its attention to {other!r}",
            token=labels[focus],
            share=row[j],
            other=labels[j],
        )

    data = {"tokens": labels, "snapshots": snaps, "start": min(max(start, 0), len(snaps) - 1)}
    description = Words(
        "Attention weights between the tokens {tokens} at {count} recorded training steps, chosen with "
        "a slider. At step {first} (loss {first_loss:.3f}) {first_strongest}; at step {last} (loss "
        "{last_loss:.4f}) {last_strongest}.",
        tokens=", ".join(labels),
        count=len(snaps),
        first=first["step"],
        first_loss=first["loss"],
        first_strongest=strongest(first),
        last=last["step"],
        last_loss=last["loss"],
        last_strongest=strongest(last),
    )
    width = 2.2 * min(len(snaps), 5) + 0.8
    return InteractiveFigure(
        "heatmap-steps", data, "Attention weights during training", description, _draw_steps, (width, 2.9)
    )


def _draw_steps(fig: MplFigure, d: dict) -> None:
    """At most five frames, evenly spread from the first recorded step to the last."""
    count = len(d["snapshots"])
    picks = np.unique(np.linspace(0, count - 1, min(count, 5)).round().astype(int))
    frames = [d["snapshots"][i] for i in picks]
    axes = np.atleast_1d(fig.subplots(1, len(frames)))
    n = len(d["tokens"])
    for ax, snap in zip(axes, frames, strict=True):
        image = ax.imshow(snap["w"], cmap="viridis", vmin=0, vmax=1)
        ax.set_title(f"step {snap['step']}\nloss {snap['loss']:.3f}", fontsize=9)
        ax.set_xticks(range(n), d["tokens"], rotation=45, ha="right", fontsize=7)
        ax.set_yticks(range(n), d["tokens"] if ax is axes[0] else [], fontsize=7)
        ax.grid(False)
    fig.colorbar(image, ax=list(axes), shrink=0.8)


def ladder(histories: dict[str, History], dashed: Sequence[str] = ()) -> InteractiveFigure:
    """Figure 11: several runs' validation losses, replayed together; ``dashed`` names drawn dashed."""
    if not 1 <= len(histories) <= len(SERIES):
        raise ConfigError(
            say("histories has {n} runs; give 1 to {most}.", n=len(histories), most=len(SERIES))
        )
    series = [
        {
            "label": name,
            "steps": list(h.steps),
            "val": rounded(h.val_loss, 4),
            "color": color,
            "dashed": name in dashed,
        }
        for (name, h), color in zip(histories.items(), SERIES, strict=False)
    ]
    last = max(h.steps[-1] for h in histories.values())
    intervals = [b - a for h in histories.values() for a, b in pairwise(h.steps)]
    data = {"series": series, "stride": math.gcd(*intervals, last) or 1, "duration": 6000}
    description = Words(
        "Validation loss against training step for {count} models, drawn together and replayable with "
        "a Play button and a slider. Final validation losses: {finals}.",
        count=len(histories),
        finals=[
            Words("{name} {loss:.3f}", name=Words(name), loss=h.final_val) for name, h in histories.items()
        ],
    )
    title = "Every model, step by step"
    return InteractiveFigure("ladder", data, title, description, _draw_ladder, (6.4, 4.0))


def _draw_ladder(fig: MplFigure, d: dict) -> None:
    ax = fig.subplots()
    for c in d["series"]:
        ax.plot(
            c["steps"],
            c["val"],
            color=c["color"],
            ls="--" if c["dashed"] else "-",
            label=f"{c['label']}: {c['val'][-1]:.3f}",
        )
    ax.set_xlabel("training step")
    ax.set_ylabel("validation loss")
    ax.legend(fontsize=7, ncols=2)
