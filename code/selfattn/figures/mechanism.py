"""Figures 1-7 and 12: how attention turns a window of characters into new vectors.

Every number comes from the model passed in: the functions run it once on real
text and keep what its layers saw and returned.
"""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.figure import Figure as MplFigure
from matplotlib.patches import Rectangle

from selfattn.anatomy import AttentionStages, block_input, heads_of, stages, trace
from selfattn.errors import ConfigError
from selfattn.figures.output import InteractiveFigure, Words, rounded, shown
from selfattn.heatmaps import heatmap
from selfattn.language import say
from selfattn.models import AttentionLanguageModel
from selfattn.tokenizers import CharTokenizer

LIT, DIM, NEXT = "#f3c26b", "#eceff2", "#009E73"

# The line of ``AttentionLanguageModel.forward`` each stop of the shape walk shows, without its
# comment; the tests hold every one to the model's source.
WALK_CODE = {
    "token embeddings": "tok_emb = self.token_embedding_table(idx)",
    "+ positions": "x = tok_emb + pos_emb",
    "attention": "x = self.sa_head(x)",
    "logits": "logits = self.lm_head(x)",
}


def head_input(model: AttentionLanguageModel, tokenizer: CharTokenizer, text: str) -> torch.Tensor:
    """What the model's head receives for one sequence of text: x, (1, T, n_embd)."""
    if not 1 <= len(text) <= model.block_size:
        raise ConfigError(
            say("text has {n} characters; give 1 to block_size={T}.", n=len(text), T=model.block_size)
        )
    idx = torch.tensor([tokenizer.encode(text)])  # (1, T)
    return trace(model, idx)["x"]


@torch.no_grad()
def head_stages(model: AttentionLanguageModel, tokenizer: CharTokenizer, text: str) -> AttentionStages:
    """The head's intermediates for one sequence of text (batch of one)."""
    return stages(model.sa_head, head_input(model, tokenizer, text))


def context_window(text: str, block_size: int = 8, selected: int = 3) -> InteractiveFigure:
    """Figure 1: ``block_size`` positions of ``text``; choosing position t lights positions 0..t.

    ``text`` needs at least ``block_size + 1`` characters: the one after the
    window is what the last position predicts.
    """
    if len(text) <= block_size:
        raise ConfigError(
            say(
                "text has {n} characters; give at least block_size + 1 = {least}.",
                n=len(text),
                least=block_size + 1,
            )
        )
    window = text[: block_size + 1]
    data = {
        "tokens": [shown(c) for c in window[:-1]],
        "next": [shown(c) for c in window[1:]],
        "start": min(selected, block_size - 1),
    }
    t = data["start"]
    description = Words(
        "A context window of {size} positions holding {window!r}. Choosing position t lights positions 0 "
        "to t, the characters it may look at; it predicts character t + 1. For example, position {t} sees "
        "{seen!r} and predicts {next!r}.",
        size=block_size,
        window=window[:-1],
        t=t,
        seen=window[: t + 1],
        next=window[t + 1],
    )
    return InteractiveFigure(
        "context-window", data, "The context window", description, _draw_context, (6.4, 3.4)
    )


def _draw_context(fig: MplFigure, d: dict) -> None:
    T = len(d["tokens"])
    ax = fig.subplots()
    for t in range(T):
        for j in range(T):
            visible = j <= t
            ax.add_patch(Rectangle((j, t), 0.92, 0.84, color=LIT if visible else DIM))
            ax.text(
                j + 0.46,
                t + 0.42,
                d["tokens"][j],
                ha="center",
                va="center",
                color="#222" if visible else "#999",
            )
        if t + 1 < T:
            ax.add_patch(Rectangle((t + 1, t), 0.92, 0.84, fill=False, ls="--", lw=1.5, ec=NEXT))
    ax.set(xlim=(0, T), ylim=(T, 0), xlabel="position it can look at", ylabel="position t")
    ax.set_xticks(np.arange(T) + 0.46, range(T))
    ax.set_yticks(np.arange(T) + 0.42, range(T))
    ax.grid(False)
    ax.tick_params(length=0)
    ax.spines[["left", "bottom"]].set_visible(False)
    ax.set_title("Position t sees positions 0..t (lit) and predicts the next character (dashed)", fontsize=9)


def batch_grid(
    corpus, model, batch_size: int = 4, block_size: int = 8, excerpt_chars: int = 2000, seed: int = 1337
) -> InteractiveFigure:
    """Figure 2: a ``(batch_size, block_size)`` grid of ids drawn from the training text.

    The first ``excerpt_chars`` characters of ``corpus.train`` and ``model``'s
    token embedding table are embedded, so the browser draws new batches the way
    ``get_batch`` does and shows any cell's embedding. The first batch uses the
    windows ``get_batch`` draws from the excerpt with a generator seeded ``seed``.
    """
    ids = corpus.train[:excerpt_chars]  # (N,)
    text = corpus.tokenizer.decode(ids.tolist())
    generator = torch.Generator().manual_seed(seed)
    starts = torch.randint(len(ids) - block_size, (batch_size,), generator=generator)  # as get_batch draws
    table = model.token_embedding_table.weight.detach()  # (vocab_size, C)
    data = {
        "text": text,
        "vocab": "".join(corpus.tokenizer.chars),
        "B": batch_size,
        "T": block_size,
        "C": table.shape[1],
        "starts": starts.tolist(),
        "seed": seed,
        "emb": rounded(table, 2),
    }
    first = text[data["starts"][0] : data["starts"][0] + block_size]
    description = Words(
        "A batch of token ids with B = {B} rows and T = {T} columns, drawn at random from the training "
        "text; a button draws another batch. Choosing a cell shows that its id stands for a vector of "
        "C = {C} numbers, its row of the token embedding table. The first row reads {first!r}, ids {ids}.",
        B=batch_size,
        T=block_size,
        C=table.shape[1],
        first=first,
        ids=str(corpus.tokenizer.encode(first)),
    )
    return InteractiveFigure("batch", data, "A batch of token ids", description, _draw_batch, (6.4, 4.2))


def _draw_batch(fig: MplFigure, d: dict) -> None:
    stoi = {c: i for i, c in enumerate(d["vocab"])}
    grid_ax, vec_ax = fig.subplots(2, 1, height_ratios=[d["B"], 2.2])
    for b, start in enumerate(d["starts"]):
        for t, ch in enumerate(d["text"][start : start + d["T"]]):
            grid_ax.add_patch(Rectangle((t, b), 0.94, 0.9, color=LIT if (b, t) == (0, 0) else DIM))
            grid_ax.text(t + 0.47, b + 0.32, stoi[ch], ha="center", va="center", fontsize=10, weight="bold")
            grid_ax.text(t + 0.47, b + 0.7, shown(ch), ha="center", va="center", fontsize=8, color="#555")
    grid_ax.set(xlim=(0, d["T"]), ylim=(d["B"], 0), xlabel="t (position)", ylabel="b (row)")
    grid_ax.set_xticks(np.arange(d["T"]) + 0.47, range(d["T"]))
    grid_ax.set_yticks(np.arange(d["B"]) + 0.45, range(d["B"]))
    grid_ax.grid(False)
    grid_ax.tick_params(length=0)
    grid_ax.set_title(f"xb: a ({d['B']}, {d['T']}) grid of token ids", fontsize=10)
    first = stoi[d["text"][d["starts"][0]]]
    vector = d["emb"][first]
    vec_ax.bar(range(d["C"]), vector, color=["#D55E00" if v > 0 else "#0072B2" for v in vector])
    vec_ax.set(xlabel=f"channel (C = {d['C']})", xlim=(-0.6, d["C"] - 0.4))
    vec_ax.set_title(f"xb[0, 0] = {first} is looked up as a vector of {d['C']} numbers", fontsize=10)


@torch.no_grad()
def shape_walk(
    model: AttentionLanguageModel, idx: torch.Tensor, tokenizer: CharTokenizer | None = None
) -> InteractiveFigure:
    """Figure 3: ids ``idx`` (B, T) through the model to logits, showing the axis that changes.

    The rows of the small heatmaps are labelled with ``tokenizer``'s characters, or with ids.
    """
    seen = trace(model, idx)
    B, T = idx.shape
    C, hs, V = seen["x"].shape[-1], seen["out"].shape[-1], seen["logits"].shape[-1]
    head_note = Words("equal to n_embd here, so its length stays" if hs == C else "so its length becomes")
    stops = [
        (
            "ids",
            "xb  # from get_batch",
            idx,
            None,
            Words(
                "A batch of ids: B = {B} sequences of T = {T} positions, one integer per position.", B=B, T=T
            ),
        ),
        (
            "token embeddings",
            WALK_CODE["token embeddings"],
            seen["tok_emb"],
            2,
            Words(
                "Each id becomes its row of the embedding table: a new last axis of C = n_embd = {C} "
                "numbers.",
                C=C,
            ),
        ),
        (
            "+ positions",
            WALK_CODE["+ positions"],
            seen["x"],
            None,
            Words(
                "Adding the ({T}, {C}) position embeddings changes the numbers, not the shape: it "
                "broadcasts over the batch.",
                T=T,
                C=C,
            ),
        ),
        (
            "attention",
            WALK_CODE["attention"],
            seen["out"],
            2,
            Words(
                "The head mixes each position with the ones before it. The last axis now holds head_size "
                "numbers ({head_note} {hs}).",
                head_note=head_note,
                hs=hs,
            ),
        ),
        (
            "logits",
            WALK_CODE["logits"],
            seen["logits"],
            2,
            Words(
                "lm_head turns each position's {hs} numbers into {V} scores, one per character of the "
                "vocabulary. B and T never changed; only the last axis did.",
                hs=hs,
                V=V,
            ),
        ),
    ]
    row = idx[0].tolist()
    data = {
        "tokens": [shown(c) for c in tokenizer.decode(row)] if tokenizer else [str(i) for i in row],
        "stops": [
            {
                "label": name,
                "code": code,
                "shape": list(tensor.shape),
                "axis": axis,
                "note": note,
                "values": tensor[0].tolist() if tensor.dim() == 2 else rounded(tensor[0], 2),
            }
            for name, code, tensor, axis, note in stops
        ],
    }
    description = Words(
        "From ids to logits, one stop at a time: {stops}. B and T stay the same; only the last axis changes.",
        stops=[
            Words("{name} {shape}", name=Words(name), shape=str(tuple(tensor.shape)))
            for name, _, tensor, _, _ in stops
        ],
    )
    return InteractiveFigure("shape-walk", data, "The (B, T, C) walk", description, _draw_walk, (7.5, 3.2))


def _draw_walk(fig: MplFigure, d: dict) -> None:
    stops = d["stops"]
    widths = [1.2] + [max(np.asarray(s["values"]).shape[-1] / 16, 1.5) for s in stops[1:]]
    axes = fig.subplots(1, len(stops), width_ratios=widths)
    for ax, stop in zip(axes, stops, strict=True):
        values = np.asarray(stop["values"], dtype=float)
        names = ["B", "T", "C"][: len(stop["shape"])]
        shape = ", ".join(f"{n}={s}" for n, s in zip(names, stop["shape"], strict=True))
        ax.set_title(f"{stop['label']}\n({shape})", fontsize=8, color="#b3261e" if stop["axis"] else "#222")
        ax.grid(False)
        ax.set_xticks([])
        ax.set_yticks(range(len(d["tokens"])), d["tokens"], fontsize=7)
        if values.ndim == 1:
            ax.imshow(np.zeros((len(values), 1)), cmap="Greys", vmin=0, vmax=1, aspect="auto")
            for t, v in enumerate(values):
                ax.text(0, t, int(v), ha="center", va="center", fontsize=8)
        else:
            scale = np.abs(values).max() or 1
            ax.imshow(values, cmap="RdBu_r", vmin=-scale, vmax=scale, aspect="auto", interpolation="nearest")
            ax.set_xlabel(f"{values.shape[1]} numbers", fontsize=8)


def averaging_matrix(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> InteractiveFigure:
    """Figure 4: the averaging matrix ``a`` (T, T) built in three steps, then ``c = a @ b``.

    The steps before ``a`` are made here with the torch calls that make it, and must end at
    ``a``; ``b`` is (T, n) and ``c`` must equal ``a @ b``.
    """
    if a.dim() != 2 or a.shape[0] != a.shape[1]:
        raise ConfigError(say("a has shape {shape}; give a square (T, T) matrix.", shape=tuple(a.shape)))
    T = a.shape[0]
    if b.dim() != 2 or b.shape[0] != T:
        raise ConfigError(
            say(
                "b has shape {shape}; give one row per row of a, (T, n) with T = {T}.",
                shape=tuple(b.shape),
                T=T,
            )
        )
    ones = torch.ones(T, T, dtype=a.dtype)  # (T, T)
    tril = torch.tril(ones)  # (T, T)
    sums = tril.sum(dim=1, keepdim=True)  # (T, 1): 1, 2, ..., T
    if not torch.allclose(a, tril / sums):
        raise ConfigError(say("a is not torch.tril(torch.ones(T, T)) with each row divided by its sum."))
    if c.shape != b.shape or not torch.allclose(c, a @ b):
        raise ConfigError(
            say("c is not a @ b, the {shape} product of the a and b given.", shape=tuple(b.shape))
        )
    above, sums_text = T * (T - 1) // 2, ", ".join(str(int(s)) for s in sums.flatten().tolist())
    notes = [
        Words(
            "All {count} entries are 1: every position would see every other, the future included.",
            count=T * T,
        ),
        Words(
            "tril keeps the {kept} entries on and below the diagonal and sets the {above} above it to 0: the "
            "zeros keep the future out.",
            kept=T * T - above,
            above=above,
        ),
        Words(
            "Each row divided by its sum ({sums}): every row now sums to 1, so a row of a takes an average.",
            sums=sums_text,
        ),
        "Row t of c is the average of rows 0 to t of b. Point at a cell of c, or focus it, to see the row "
        "of a and the column of b that make it.",
    ]
    codes = [f"torch.ones({T}, {T})", f"torch.tril(torch.ones({T}, {T}))", "a / a.sum(dim=1, keepdim=True)"]
    data = {
        "stages": [
            {"code": code, "note": note, "a": rounded(m, 4), "digits": digits}
            for m, code, note, digits in zip(
                [ones, tril, a, a], [*codes, "c = a @ b"], notes, [0, 0, 2, 2], strict=True
            )
        ],
        "b": rounded(b, 4),
        "c": rounded(c, 4),
    }
    last = ", ".join(f"{v:.2f}" for v in c[-1].tolist())
    description = Words(
        "The {T} by {T} averaging matrix a, built in three steps: {ones} is all ones; torch.tril sets the "
        "{above} entries above the diagonal to 0; dividing each row by its sum ({sums}) makes every row "
        "sum to 1. Then c = a @ b, with b of shape {shape}: row t of c is the average of rows 0 to t of b; "
        "the last row is [{last}].",
        T=T,
        ones=codes[0],
        above=above,
        sums=sums_text,
        shape=str(tuple(b.shape)),
        last=last,
    )
    return InteractiveFigure(
        "averaging", data, "Building the averaging matrix", description, _draw_averaging, (8.0, 2.8)
    )


def _draw_averaging(fig: MplFigure, d: dict) -> None:
    b, c = torch.tensor(d["b"]), torch.tensor(d["c"])
    T, n = b.shape
    labels = [str(i) for i in range(max(T, n))]
    axes = fig.subplots(1, 5, width_ratios=[T, T, T, n, n])
    scale = float(torch.cat([b, c]).abs().max()) or 1.0
    for ax, stage in zip(axes[:3], d["stages"][:3], strict=True):
        fmt = f"{{:.{stage['digits']}f}}"
        heatmap(ax, torch.tensor(stage["a"]), labels, cmap="viridis", vmin=0, vmax=1, fmt=fmt, fontsize=7)
    for ax, m in zip(axes[3:], (b, c), strict=True):
        heatmap(ax, m, labels, cmap="RdBu_r", vmin=-scale, vmax=scale, fmt="{:.2f}", fontsize=7)
    titles = ["1. torch.ones", "2. torch.tril", "3. ÷ row sums", "b", "4. c = a @ b"]
    for ax, title in zip(axes, titles, strict=True):
        ax.set_title(title, fontsize=9)


@torch.no_grad()
def projections(
    model: AttentionLanguageModel, tokenizer: CharTokenizer, text: str, position: int | None = None
) -> InteractiveFigure:
    """Figure 5: one position's input x turned into q, k and v by the head's three weight matrices.

    The matrices are shown as the book writes them, ``q = x W_q`` with ``W_q`` of shape
    (n_embd, head_size), that is ``query.weight.T``; ``position`` defaults to the last one.
    """
    head = model.sa_head
    x = head_input(model, tokenizer, text)  # (1, T, C)
    s = stages(head, x)
    T = len(text)
    position = T - 1 if position is None else position
    if not 0 <= position < T:
        raise ConfigError(
            say(
                "position={t}; give 0 to {last}, one of the {T} characters of text.",
                t=position,
                last=T - 1,
                T=T,
            )
        )
    layers = {"q": head.query, "k": head.key, "v": head.value}
    data = {
        "tokens": [shown(ch) for ch in text],
        "x": rounded(x[0], 4),
        "w": {name: rounded(layer.weight.T, 4) for name, layer in layers.items()},  # (C, hs) each
        "out": {name: rounded(getattr(s, name)[0], 3) for name in layers},  # (T, hs) each
        "position": position,
    }
    C, hs = x.shape[-1], s.q.shape[-1]

    def start(name: str) -> str:
        return ", ".join(f"{v:.2f}" for v in getattr(s, name)[0, position, :3].tolist())

    description = Words(
        "The input vector x of each position of {text!r} ({C} numbers) times the head's three {C} by {hs} "
        "weight matrices W_q, W_k and W_v gives q, k and v, {hs} numbers each: q[j] is the sum over i of "
        "x[i]·W_q[i, j]. Buttons pick the position; pointing at an output number shows the weights that "
        "made it. For position {position} ({char!r}), q starts {q}, k starts {k} and v starts {v}.",
        text=text,
        C=C,
        hs=hs,
        position=position,
        char=text[position],
        q=start("q"),
        k=start("k"),
        v=start("v"),
    )
    return InteractiveFigure("qkv", data, "From x to q, k and v", description, _draw_projections, (7.6, 4.4))


def _draw_projections(fig: MplFigure, d: dict) -> None:
    p, x = d["position"], np.asarray(d["x"])
    C, hs = x.shape[1], len(d["out"]["q"][0])
    axes = fig.subplots(2, 4, width_ratios=[1.2, hs / 8, hs / 8, hs / 8], height_ratios=[C, 2.5])
    scale = np.abs(x[p]).max() or 1
    axes[0, 0].imshow(x[p][:, None], cmap="RdBu_r", vmin=-scale, vmax=scale, aspect="auto")
    axes[0, 0].set_title(f"x[{p}] {d['tokens'][p]}", fontsize=9)
    axes[0, 0].set_ylabel(f"i ({C} numbers)", fontsize=8)
    axes[1, 0].axis("off")
    for col, name in enumerate(("q", "k", "v"), start=1):
        w, out = np.asarray(d["w"][name]), np.asarray(d["out"][name][p])
        top, bottom = axes[0, col], axes[1, col]
        w_scale, out_scale = np.abs(w).max() or 1, np.abs(out).max() or 1
        top.imshow(w, cmap="RdBu_r", vmin=-w_scale, vmax=w_scale, aspect="auto", interpolation="nearest")
        top.set_title(f"W_{name} ({C} × {hs})", fontsize=9)
        bottom.imshow(out[None, :], cmap="RdBu_r", vmin=-out_scale, vmax=out_scale, aspect="auto")
        bottom.set_xlabel(f"{name} = x W_{name}: {hs} numbers", fontsize=8)
    for ax in axes.flat:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)


def score_table(model: AttentionLanguageModel, tokenizer: CharTokenizer, text: str) -> InteractiveFigure:
    """Figure 6: the head's (T, T) scores for ``text``: raw q.k, scaled, masked, softmax."""
    s = head_stages(model, tokenizer, text)
    hs, T = s.q.shape[-1], len(text)
    data = {
        "tokens": [shown(c) for c in text],
        "hs": hs,
        "stages": {name: rounded(getattr(s, name)[0], 3) for name in ("raw", "scaled", "masked", "wei")},
    }
    description = Words(
        "The {T} by {T} attention scores of one head for {text!r}, in four steps. Raw q·k scores have "
        "standard deviation {raw:.2f}; multiplied by 1/√{hs} they have {scaled:.2f}; the {future} cells "
        "above the diagonal (the future) are set to minus infinity; softmax turns each row into weights "
        "that sum to 1. The last row's weights are {last}.",
        T=T,
        text=text,
        raw=s.raw.std().item(),
        hs=hs,
        scaled=s.scaled.std().item(),
        future=T * (T - 1) // 2,
        last=", ".join(f"{w:.2f}" for w in s.wei[0, -1].tolist()),
    )
    return InteractiveFigure(
        "score-table", data, "Building the score table", description, _draw_scores, (7.2, 6.4)
    )


def _draw_scores(fig: MplFigure, d: dict) -> None:
    titles = {
        "raw": "1. raw q·kᵀ",
        "scaled": f"2. scaled × 1/√{d['hs']}",
        "masked": "3. masked: future = −∞",
        "wei": "4. softmax: rows sum to 1",
    }
    for ax, (name, title) in zip(fig.subplots(2, 2).flat, titles.items(), strict=True):
        m = np.array([[np.nan if v is None else v for v in row] for row in d["stages"][name]])
        m = np.where(np.isnan(m), -np.inf, m)
        scale = 1.0 if name == "wei" else np.abs(m[np.isfinite(m)]).max() or 1
        low, cmap = (0.0, "viridis") if name == "wei" else (-scale, "RdBu_r")
        heatmap(
            ax, torch.from_numpy(m), d["tokens"], cmap=cmap, vmin=low, vmax=scale, fmt="{:.2f}", fontsize=5.5
        )
        ax.tick_params(labelsize=8)
        ax.set_title(title, fontsize=10)


def mixing_values(
    model: AttentionLanguageModel, tokenizer: CharTokenizer, text: str, row: int = 3
) -> InteractiveFigure:
    """Figure 7: row ``row`` of ``out`` as the sum of ``wei[row, j] * v[j]`` for ``text``."""
    s = head_stages(model, tokenizer, text)
    T = len(text)
    row = min(row, T - 1)
    data = {
        "tokens": [shown(c) for c in text],
        "wei": rounded(s.wei[0], 4),
        "v": rounded(s.v[0], 4),
        "row": row,
    }
    weights = ", ".join(f"{w:.2f} × v[{j}]" for j, w in enumerate(s.wei[0, row, : row + 1].tolist()))
    description = Words(
        "The attention weights wei ({T} by {T}) for {text!r} beside the value vectors v ({T} by {hs}). "
        "Choosing row i shows out[i] as the weighted sum of the rows of v: for row {row}, out[{row}] = "
        "{weights}.",
        T=T,
        text=text,
        hs=s.v.shape[-1],
        row=row,
        weights=weights,
    )
    return InteractiveFigure("mix-values", data, "Mixing the values", description, _draw_mix, (7.2, 3.6))


def _draw_mix(fig: MplFigure, d: dict) -> None:
    wei, v, i, tokens = np.asarray(d["wei"]), np.asarray(d["v"]), d["row"], d["tokens"]
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.6])
    heatmap(
        left, torch.from_numpy(wei), tokens, cmap="viridis", vmin=0.0, vmax=1.0, fmt="{:.2f}", fontsize=5.5
    )
    left.tick_params(labelsize=8)
    left.add_patch(Rectangle((-0.5, i - 0.5), len(tokens), 1, fill=False, ec="#b3261e", lw=2))
    left.set_title(f"wei: row {i} holds the weights", fontsize=9)
    parts = wei[i, : i + 1, None] * v[: i + 1]  # (i + 1, hs)
    rows = np.vstack([parts, parts.sum(axis=0, keepdims=True)])
    scale = np.abs(v).max() or 1
    right.imshow(rows, cmap="RdBu_r", vmin=-scale, vmax=scale, aspect="auto", interpolation="nearest")
    labels = [f"{wei[i, j]:.2f} × v[{j}] {tokens[j]}" for j in range(i + 1)] + [f"= out[{i}]"]
    right.set_yticks(range(len(labels)), labels, fontsize=7)
    right.axhline(i + 0.5, color="#222", lw=1.5)
    right.set_xticks([])
    right.set_xlabel(f"{v.shape[1]} numbers per row", fontsize=8)
    right.grid(False)
    right.set_title("weighted rows of v, summed", fontsize=9)


@torch.no_grad()
def head_maps(model, tokenizer: CharTokenizer, text: str, layer: int = 0) -> InteractiveFigure:
    """Figure 12: the attention weights of each head of block ``layer`` of a GPT model for ``text``.

    A button picks the head, a row picks the position whose largest weights are read out.
    """
    if not 1 <= len(text) <= model.block_size:
        raise ConfigError(
            say("text has {n} characters; give 1 to block_size={T}.", n=len(text), T=model.block_size)
        )
    if not 0 <= layer < len(model.blocks):
        raise ConfigError(
            say("layer={layer}: the model has blocks 0 to {last}.", layer=layer, last=len(model.blocks) - 1)
        )
    idx = torch.tensor([tokenizer.encode(text)])  # (1, T)
    x = block_input(model, idx, layer)  # (1, T, C)
    weights = [stages(head, x).wei[0] for head in heads_of(model.blocks[layer].sa)]  # n_head x (T, T)
    tokens = [shown(c) for c in text]
    T = len(text)
    data = {"tokens": tokens, "heads": [rounded(w, 3) for w in weights], "head": 0, "row": T - 1}
    targets = [
        Words("head {h}: {char!r}", h=h, char=text[int(w[-1].argmax())]) for h, w in enumerate(weights)
    ]
    block = Words("its one block") if len(model.blocks) == 1 else Words("block {layer}", layer=layer)
    description = Words(
        "The attention weights of the {heads} heads of {block} for {text!r}: one {T} by {T} table per "
        "head, rows the positions that look, columns the positions looked at, zero above the diagonal. The "
        "last position's largest weight falls on {targets}.",
        heads=len(weights),
        block=block,
        text=text,
        T=T,
        targets=targets,
    )
    title = "What each head looks at"
    return InteractiveFigure("head-maps", data, title, description, _draw_heads, (10, 3.0))


def _draw_heads(fig: MplFigure, d: dict) -> None:
    axes = np.atleast_1d(fig.subplots(1, len(d["heads"])))
    for h, (ax, w) in enumerate(zip(axes, d["heads"], strict=True)):
        heatmap(ax, torch.tensor(w), d["tokens"], cmap="viridis", vmin=0, vmax=1, fmt=None)
        ax.set_title(f"head {h}", fontsize=10)
