"""Part IV's modules: both forms of multi-head attention agree, every rung is causal and builds
its own blocks, parameter counts follow the formula, dropout acts only in training."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from selfattn import make_model
from selfattn.anatomy import gpt_trace, heads_of, stages
from selfattn.gpt import (
    AttentionBlock,
    Block,
    CausalSelfAttention,
    GPTLanguageModel,
    MultiHeadAttention,
    PlainBlock,
    ResidualBlock,
)
from selfattn.registry import MODELS
from selfattn.runs import LADDER

V = 65
PART_IV = [name for name in LADDER if name != "lecture"]


def copy_heads_into(split: CausalSelfAttention, listed: MultiHeadAttention) -> None:
    """Give the split form the list form's weights: head h owns rows h*hs .. (h+1)*hs."""
    with torch.no_grad():
        for name in ("key", "query", "value"):
            rows = [getattr(head, name).weight for head in listed.heads]  # n_head x (hs, C)
            getattr(split, name).weight.copy_(torch.cat(rows, dim=0))  # (C, C)
        split.proj.load_state_dict(listed.proj.state_dict())


@pytest.mark.parametrize(("n_embd", "n_head"), [(32, 4), (24, 3), (16, 1)])
def test_list_of_heads_and_split_heads_compute_the_same(n_embd, n_head):
    torch.manual_seed(0)
    listed = MultiHeadAttention(n_embd, n_head, block_size=8)
    split = CausalSelfAttention(n_embd, n_head, block_size=8)
    copy_heads_into(split, listed)
    x = torch.randn(3, 8, n_embd)  # (B, T, C)
    assert torch.allclose(listed(x), split(x), atol=1e-6)
    assert torch.allclose(listed(x[:, :5]), split(x[:, :5]), atol=1e-6), "shorter sequences too"


@pytest.mark.parametrize("name", PART_IV)
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_every_rung_is_causal(name, mode):
    """Changing the tokens after position t leaves the logits at positions <= t unchanged."""
    config = LADDER[name].config
    model = make_model(LADDER[name].kind, V, replace(config, dropout=0.0))
    model.train(mode == "train")
    T = config.block_size
    idx = torch.randint(V, (2, T), generator=torch.Generator().manual_seed(1))
    base, _ = model(idx)
    for t in (0, T // 2, T - 2):
        changed = idx.clone()
        changed[:, t + 1 :] = (changed[:, t + 1 :] + 1) % V
        logits, _ = model(changed)
        assert torch.allclose(logits[:, : t + 1], base[:, : t + 1], atol=1e-5)
        assert not torch.allclose(logits[:, t + 1 :], base[:, t + 1 :])


def gpt_parameters(V: int, T: int, C: int, L: int) -> int:
    """The full GPT's count by formula: embeddings, L blocks, final LayerNorm, lm_head."""
    attention = 3 * C * C + (C * C + C)  # key, query, value (no bias); proj
    feed_forward = (C * 4 * C + 4 * C) + (4 * C * C + C)
    layer_norms = 2 * (2 * C)
    return V * C + T * C + L * (attention + feed_forward + layer_norms) + 2 * C + (C * V + V)


@pytest.mark.parametrize("name", ["layernorm", "small-gpt", "lecture"])
def test_parameter_count_follows_the_formula(name):
    c = LADDER[name].config
    model = GPTLanguageModel(V, c.block_size, c.n_embd, c.n_head, c.n_layer, c.dropout)
    assert sum(p.numel() for p in model.parameters()) == gpt_parameters(V, c.block_size, c.n_embd, c.n_layer)


def test_the_lecture_preset_builds_a_model_of_the_lectures_size():
    """The lecture reports 10.8 M parameters, and the preset's description says so: the model has them."""
    rung = LADDER["lecture"]
    model = make_model(rung.kind, V, rung.config)
    size = f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters"
    assert size == "10.8 M parameters" and size in rung.what


# What each rung's blocks are, and what they compute from their own parts.
RUNG_BLOCKS = {
    "multihead": (AttentionBlock, lambda b, x: b.sa(x)),
    "ffwd": (PlainBlock, lambda b, x: b.ffwd(b.sa(x))),
    "deep-plain": (PlainBlock, lambda b, x: b.ffwd(b.sa(x))),
    "residual": (ResidualBlock, lambda b, x: (h := x + b.sa(x)) + b.ffwd(h)),
    "layernorm": (Block, lambda b, x: (h := x + b.sa(b.ln1(x))) + b.ffwd(b.ln2(h))),
}


@pytest.mark.parametrize("name", list(RUNG_BLOCKS))
def test_each_rung_stacks_its_own_blocks(name):
    kind, computed = RUNG_BLOCKS[name]
    config = LADDER[name].config
    model = make_model(LADDER[name].kind, V, config)
    assert [type(block) for block in model.blocks] == [kind] * config.n_layer
    assert hasattr(model, "ln_f") == (kind is Block), "the final LayerNorm comes with LayerNorm"
    x = torch.randn(2, config.block_size, config.n_embd)  # (B, T, C)
    with torch.no_grad():
        assert torch.allclose(model.blocks[0](x), computed(model.blocks[0], x), atol=1e-6)


def test_gpt_trace_reads_the_attention_weights_the_block_uses():
    """What gpt_trace keeps as ``wei`` is every head's softmax of its scores, as the heads compute it."""
    torch.manual_seed(0)
    model = GPTLanguageModel(V, 8, 32, 4, 2, dropout=0.1).eval()
    seen = gpt_trace(model, torch.randint(V, (3, 8), generator=torch.Generator().manual_seed(1)))
    with torch.no_grad():
        heads = [stages(head, seen["ln1"]).wei for head in heads_of(model.blocks[0].sa)]  # nh x (B, T, T)
    assert seen["wei"].shape == (3, 4, 8, 8)
    assert torch.allclose(seen["wei"], torch.stack(heads, dim=1), atol=1e-6)


def test_dropout_acts_in_training_only():
    torch.manual_seed(0)
    model = GPTLanguageModel(V, 8, 32, 4, 2, dropout=0.5)
    idx = torch.randint(V, (2, 8))
    model.eval()
    first, _ = model(idx)
    second, _ = model(idx)
    assert torch.equal(first, second), "eval() turns dropout off"
    no_dropout = GPTLanguageModel(V, 8, 32, 4, 2, dropout=0.0)
    no_dropout.load_state_dict(model.state_dict())
    assert torch.allclose(no_dropout.eval()(idx)[0], first)
    model.train()
    assert not torch.allclose(model(idx)[0], first), "train() turns it on"


def test_every_kind_builds_and_scores_a_batch():
    for kind in MODELS:
        model = make_model(kind, V, LADDER["multihead"].config)
        logits, loss = model(torch.randint(V, (2, 8)), torch.randint(V, (2, 8)))
        assert logits.shape == (2, 8, V) and loss.shape == ()
