"""The models: shapes, causality, attention rows, parameter counts, buffers, generation."""

from __future__ import annotations

import re

import pytest
import torch

from selfattn import AttentionLanguageModel, BigramLanguageModel, Head, TrainConfig, make_model
from selfattn.anatomy import stages

V = 65


def attention_model(**sizes) -> AttentionLanguageModel:
    torch.manual_seed(0)
    return AttentionLanguageModel(V, **sizes)


def n_parameters(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def test_logits_are_b_t_v_and_the_loss_a_scalar_only_with_targets():
    idx = torch.randint(V, (4, 8))
    for model in (BigramLanguageModel(V), attention_model()):
        logits, loss = model(idx, idx)
        assert logits.shape == (4, 8, V)
        assert loss.shape == ()
        logits, loss = model(idx)
        assert loss is None


def test_sequences_up_to_block_size_run_and_a_longer_one_finds_no_position_row():
    """The chapters catch the IndexError of a too-long sequence: position block_size has no row."""
    model = attention_model(block_size=8, n_embd=16, head_size=12)
    for T in range(1, 9):
        logits, _ = model(torch.randint(V, (2, T)))
        assert logits.shape == (2, T, V)
    asked = []
    model.position_embedding_table.register_forward_pre_hook(lambda m, args: asked.append(args[0].tolist()))
    with pytest.raises(IndexError):
        model(torch.zeros((1, 9), dtype=torch.long))
    assert model.position_embedding_table.num_embeddings == 8
    assert asked == [list(range(9))], "the position table was asked for positions 0 to 8, and failed there"


def test_targets_change_the_loss_but_never_the_logits():
    generator = torch.Generator().manual_seed(0)
    idx, targets = torch.randint(V, (2, 4, 8), generator=generator)
    model = attention_model()
    logits, loss = model(idx, targets)
    other_logits, other_loss = model(idx, torch.zeros_like(targets))
    assert torch.equal(logits, other_logits) and loss != other_loss


def test_attention_is_causal():
    """Changing tokens after position t leaves the logits at positions <= t unchanged."""
    model = attention_model().eval()
    idx = torch.randint(V, (2, 8), generator=torch.Generator().manual_seed(1))
    base, _ = model(idx)
    for t in range(7):
        changed = idx.clone()
        changed[:, t + 1 :] = (changed[:, t + 1 :] + 1) % V
        logits, _ = model(changed)
        assert torch.allclose(logits[:, : t + 1], base[:, : t + 1], atol=1e-6)
        assert not torch.allclose(logits[:, t + 1 :], base[:, t + 1 :])


def test_attention_rows_sum_to_one_and_are_zero_above_diagonal():
    model = attention_model()
    x = torch.randn(3, 8, 32)  # (B, T, C)
    wei = stages(model.sa_head, x).wei  # (B, T, T)
    assert torch.allclose(wei.sum(dim=-1), torch.ones(3, 8))
    upper = torch.triu(torch.ones(8, 8, dtype=torch.bool), diagonal=1)
    assert (wei[:, upper] == 0).all()
    assert (wei[:, ~upper] > 0).all()
    # and the head's output is exactly these weights applied to its values
    assert torch.allclose(model.sa_head(x), wei @ model.sa_head.value(x), atol=1e-6)


def test_stages_mask_exactly_the_future_and_reproduce_the_heads_forward():
    model = attention_model()
    x = torch.randn(2, 8, 32)  # (B, T, C)
    s = stages(model.sa_head, x)
    upper = torch.triu(torch.ones(8, 8, dtype=torch.bool), diagonal=1)
    assert torch.allclose(s.scaled, s.raw / 32**0.5)
    assert torch.isneginf(s.masked[:, upper]).all() and torch.isfinite(s.masked[:, ~upper]).all()
    assert torch.allclose(s.out, model.sa_head(x), atol=1e-6)


def test_parameter_counts_follow_the_layer_sizes():
    assert n_parameters(BigramLanguageModel(V)) == 4225
    for block, c, hs in [(8, 32, 8), (8, 32, 16), (8, 32, 32), (8, 32, 64), (16, 24, 12)]:
        model = attention_model(block_size=block, n_embd=c, head_size=hs)
        expected = V * c + block * c + 3 * c * hs + (hs * V + V)  # tok, pos, q/k/v, lm_head + bias
        assert n_parameters(model) == expected
        assert n_parameters(Head(c, hs, block)) == 3 * c * hs, "query, key and value have no bias"


def test_tril_is_a_saved_buffer_and_intermediates_are_not_saved():
    model = attention_model()
    assert [name for name, _ in model.named_buffers()] == ["sa_head.tril"]
    assert "sa_head.tril" in model.state_dict()
    assert "sa_head.tril" not in dict(model.named_parameters())
    assert not model.sa_head.tril.requires_grad
    assert not any(re.search(r"\b(q|k|v|wei|out)\b", name) for name in model.state_dict())


def test_make_model_with_the_same_config_gives_the_same_weights():
    cfg = TrainConfig()
    a = make_model("attention", V, cfg).state_dict()
    b = make_model("attention", V, cfg).state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_generate_crops_the_context_to_block_size():
    model = attention_model(block_size=8)
    seen = []
    model.register_forward_pre_hook(lambda module, args: seen.append(args[0].shape[1]))
    out = model.generate(torch.zeros((1, 1), dtype=torch.long), 12, torch.Generator().manual_seed(0))
    assert out.shape == (1, 13)
    assert seen == [1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 8]


def test_generate_is_reproducible_with_a_generator():
    model = BigramLanguageModel(V)
    start = torch.zeros((2, 1), dtype=torch.long)
    a = model.generate(start, 20, torch.Generator().manual_seed(3))
    b = model.generate(start, 20, torch.Generator().manual_seed(3))
    assert torch.equal(a, b) and a.shape == (2, 21)
