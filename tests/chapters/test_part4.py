"""What the chapters of "From one head to a GPT" claim, against what the package computes.

Each rung is trained once (the run cache shares it with the build) and its validation loss is
held in a band around the value its chapter reports; the pages must show those numbers and the
package's own source.
"""

from __future__ import annotations

import pytest
import torch

from selfattn import fit, load_corpus, make_model
from selfattn.anatomy import gpt_trace
from selfattn.gpt import Block, CausalSelfAttention, FeedForward, GPTLanguageModel, MultiHeadAttention
from selfattn.runs import LADDER
from tests.helpers import chapter, figure_alts, shows_source

# The validation loss of each rung (torch 2.13 CPU, seed 1337), with the lecture's figure beside it
# where it reports one. The bands hold the book's own numbers, not the lecture's.
EXPECTED = {
    "multihead": (2.269, 2.28),
    "ffwd": (2.197, 2.24),
    "deep-plain": (2.282, None),
    "residual": (2.076, 2.08),
    "layernorm": (2.068, 2.06),
    "small-gpt": (1.798, None),
}


@pytest.fixture(scope="module")
def ladder():
    return {name: fit(rung.kind, rung.config)[1] for name, rung in LADDER.items() if name != "lecture"}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_rung_reaches_its_chapters_loss(ladder, name):
    assert abs(ladder[name].final_val - EXPECTED[name][0]) < 0.01


@pytest.mark.slow
def test_many_heads_page(built_book, ladder):
    path, text = chapter(built_book, "many-heads")
    assert f"Four heads reach a validation loss of {ladder['multihead'].final_val:.3f}" in text
    assert "largest difference between the two outputs below 1e-6: True" in text
    for obj in (MultiHeadAttention, CausalSelfAttention):
        assert shows_source(path, obj), f"the page shows the package's {obj.__qualname__}"
    assert len(figure_alts(path)) == 2


@pytest.mark.slow
def test_feed_forward_page(built_book, ladder):
    path, text = chapter(built_book, "feed-forward")
    assert f"to {ladder['ffwd'].final_val:.3f}, by" in text
    assert "8,352 parameters" in text or "8,352" in text
    assert shows_source(path, FeedForward) and shows_source(path, Block.forward)


@pytest.mark.slow
def test_going_deep_page(built_book, ladder):
    path, text = chapter(built_book, "going-deep")
    for name in ("deep-plain", "residual", "layernorm"):
        assert f"{ladder[name].final_val:.3f}" in text, name
    assert "same as nn.LayerNorm: True" in text and "the block returns its input: True" in text
    assert shows_source(path, GPTLanguageModel)


@pytest.mark.slow
def test_dropout_page_shows_dropout_acting_in_training_only(built_book):
    _, text = chapter(built_book, "dropout")
    printed = [
        "train mode, two calls give the same logits: False",
        "eval mode, two calls give the same logits: True",
        "eval(): same as Head: True",
        "train(): same as Head: False",
    ]
    assert [line for line in printed if line not in text] == []


@pytest.mark.slow
def test_small_gpt_page(built_book, ladder):
    path, text = chapter(built_book, "small-gpt")
    assert f"reaches a validation loss of {ladder['small-gpt'].final_val:.3f}" in text
    assert "GPT-2 small: 124,439,808" in text
    assert "the lecture's GPU-scale GPT: 10,788,929" in text
    assert "same as Head: True" in text and "same output in eval(): True" in text


@pytest.mark.slow
def test_small_gpt_chart_shows_the_shapes_of_a_real_forward_pass(built_book):
    c = LADDER["small-gpt"].config
    model = make_model("gpt", load_corpus().tokenizer.vocab_size, c)
    seen = gpt_trace(model, torch.zeros(c.batch_size, c.block_size, dtype=torch.long))
    path, text = chapter(built_book, "small-gpt")
    printed = " ".join(text.split())
    assert [name for name, t in seen.items() if f"{name}: {tuple(t.shape)}" not in printed] == []
    [alt] = [alt for alt in figure_alts(path) if "one block" in alt]
    claims = [
        f"{c.batch_size} snippets of {c.block_size} characters",
        f"runs {c.n_layer} in a row",
        f"{c.n_head} heads",
        f"weights of shape {tuple(seen['wei'].shape)}",
        f"from {c.n_embd} to {tuple(seen['hidden'].shape)[-1]}",
        f"carries {tuple(seen['x'].shape)}",
        f"logits are {tuple(seen['logits'].shape)}",
    ]
    assert [claim for claim in claims if claim not in alt] == []
