"""The interactive figures where the chapters use them, on the built site.

Each chapter page holds its figures in reading order, loads the figure script from one file, the
figure's data from the chapter's own model and text, and the cell that made it shown as code a
live reader can re-run. (That every figure is an image in the PDF is checked by
tests/pdf/test_pdf_like_the_site.py.)
"""

from __future__ import annotations

import html
import json
import math
import re

import numpy as np
import pytest

from _ext.content.figure_script import SCRIPT
from tests.helpers import code_blocks, page_text

# Per page: the figure kinds in reading order, and the call that makes each, as the page shows it.
PAGES = {
    "six-steps": [
        ("context-window", "context_window(block, block_size=config.block_size)"),
        ("batch", "batch_grid(corpus, model)"),
        ("shape-walk", "shape_walk(model, xb, corpus.tokenizer)"),
        ("averaging", "averaging_matrix(a, b, c)"),
        ("qkv", "projections(model, corpus.tokenizer, text)"),
        ("score-table", "score_table(model, corpus.tokenizer, text)"),
        ("mix-values", "mixing_values(model, corpus.tokenizer, text, row=5)"),
    ],
    "attention-model": [("training", "training_curve(attention_history, bigram_history)")],
    "parameters": [("before-after", "before_after(fresh, model)")],
}
FIGURE = re.compile(
    r'<figure class="sa-fig"[^>]*data-kind="([\w-]+)".*?'
    r'<script type="application/json" class="sa-data">(.*?)</script>',
    re.S,
)


def figures(path) -> list[tuple[str, dict]]:
    """The (kind, embedded data) of every interactive figure on a built page, in order."""
    return [(kind, json.loads(html.unescape(data))) for kind, data in FIGURE.findall(path.read_text("utf-8"))]


@pytest.mark.book
@pytest.mark.parametrize("page", PAGES)
def test_chapter_shows_its_figures_with_one_script_and_the_code_that_made_them(built_book, page):
    path = built_book / "book" / f"{page}.html"
    source = path.read_text(encoding="utf-8")
    assert [kind for kind, _ in figures(path)] == [kind for kind, _ in PAGES[page]]
    assert len(SCRIPT.findall(source)) == 1, "the figure script, as the site's one file"
    assert "<script data-selfattn-figures>" not in source, "and no copy of it in the page"
    assert "sa-fallback" in source, "a text fallback for readers without JavaScript"
    cells = code_blocks(path)
    for kind, call in PAGES[page]:
        assert any(block.rstrip().endswith(call) for block in cells), f"{kind}: a cell ending in {call}"


@pytest.mark.book
def test_six_steps_figures_show_the_chapters_block_and_sequence(built_book, corpus):
    found = dict(figures(built_book / "book" / "six-steps.html"))
    context = found["context-window"]
    assert len(context["tokens"]) == 8 and context["tokens"][1:] == context["next"][:-1]
    batch = found["batch"]
    assert (batch["B"], batch["T"], batch["C"]) == (4, 8, 32)
    assert batch["vocab"] == "".join(corpus.tokenizer.chars)
    assert [stop["shape"] for stop in found["shape-walk"]["stops"]][-1] == [32, 8, 65]
    king = ["t", "h", "e", "␣", "k", "i", "n", "g"]
    scores = found["score-table"]
    assert scores["tokens"] == king and scores["hs"] == 32
    wei = scores["stages"]["wei"]
    assert all(math.isclose(sum(row), 1, abs_tol=0.01) for row in wei)
    assert all(row[t + 1 :] == [0] * (7 - t) for t, row in enumerate(wei)), "no weight on the future"
    mix = found["mix-values"]
    assert mix["tokens"] == king and mix["row"] == 5
    assert mix["wei"][5][:6] == pytest.approx([row[:6] for row in wei][5], abs=1e-3)
    averaging = found["averaging"]
    assert [stage["a"] for stage in averaging["stages"][:2]] == [
        [[1, 1, 1]] * 3,
        [[1, 0, 0], [1, 1, 0], [1, 1, 1]],
    ]
    assert averaging["stages"][2]["a"] == [[1, 0, 0], [0.5, 0.5, 0], [0.3333, 0.3333, 0.3333]]
    assert averaging["b"] == [[2, 7], [6, 4], [6, 5]], "the chapter's b"
    assert averaging["c"][1] == [4, 5.5], "the row the prose works out"
    qkv = found["qkv"]
    assert qkv["tokens"] == king and qkv["position"] == 7
    assert [len(qkv["x"][0]), len(qkv["w"]["q"]), len(qkv["w"]["q"][0]), len(qkv["out"]["v"][0])] == [32] * 4
    q, k = np.array(qkv["out"]["q"]), np.array(qkv["out"]["k"])
    assert np.allclose(np.array(qkv["x"]) @ np.array(qkv["w"]["q"]), q, atol=2e-3), "q = x W_q"
    assert np.allclose(q @ k.T, scores["stages"]["raw"], atol=0.02), "the score table's q and k"


@pytest.mark.book
def test_training_and_weight_figures_reuse_the_chapters_runs(built_book):
    text = page_text(built_book / "book" / "attention-model.html")
    ((_, training),) = figures(built_book / "book" / "attention-model.html")
    bigram = re.search(r"The bigram model ends at a validation loss of ([\d.]+\d)", text)
    assert training["bigram"] == pytest.approx(float(bigram.group(1)), abs=1e-3)
    assert training["steps"][-1] == 5000 and training["cross"] is not None
    assert training["val"][-1] < training["bigram"] < training["val"][0]
    ((_, weights),) = figures(built_book / "book" / "parameters.html")
    names = {m["name"] for m in weights["mats"]}
    heads = {f"sa_head.{part}.weight" for part in ("query", "key", "value")}
    embeddings = {"token_embedding_table.weight", "position_embedding_table.weight"}
    assert names == heads | embeddings | {"lm_head.weight"}, "every weight matrix, biases left out"
    assert all(m["before"] != m["after"] for m in weights["mats"]), "training changed every matrix"
    parameters = page_text(built_book / "book" / "parameters.html")
    assert "same numbers as the copies kept at the start: True" in parameters


@pytest.mark.book
def test_weight_figure_states_the_chapters_parameter_count(built_book):
    """The chapter counts the model's parameters, biases included; the figure's texts and its
    description give the same total (from model.parameters()) and name what the drawing leaves out."""
    from selfattn import TrainConfig, make_model

    model = make_model("attention", 65, TrainConfig(n_embd=32, head_size=32))
    total, tensors = sum(p.numel() for p in model.parameters()), len(list(model.parameters()))
    path = built_book / "book" / "parameters.html"
    text = page_text(path)
    assert f"In all, {tensors} tensors holding {total:,} numbers" in text, "the chapter's count"
    ((_, weights),) = figures(path)
    assert (weights["count"]["parameters"], weights["count"]["tensors"]) == (total, tensors)
    left_out = total - weights["count"]["drawn"]
    start = f"Before training: {total:,} random starting numbers in {tensors} tensors."
    assert weights["notes"]["before"].startswith(start)
    assert f"not drawn: lm_head.bias, {left_out} numbers" in weights["notes"]["before"]
    assert weights["notes"]["after"].startswith(f"After training: the same {total:,} numbers")
    description = re.search(r'<p class="sa-sr" id="[\w-]+"[^>]*>(.*?)</p>', path.read_text("utf-8")).group(1)
    assert html.unescape(weights["notes"]["before"]) in html.unescape(description)
