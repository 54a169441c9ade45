"""Choosing the next token: the default draw unchanged, each setting's effect, each bad value's message."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from selfattn import ConfigError, TrainConfig, make_model
from selfattn.sampling import MIN_TEMPERATURE, Sampling, distinct_share, real_word_share, words

V = 65
SMALL = TrainConfig(n_embd=16, head_size=16, n_head=2, n_layer=2, block_size=8)


def reference_generate(model, idx, max_new_tokens, generator):
    """``generate`` as the book wrote it before sampling had settings: softmax, then multinomial."""
    for _ in range(max_new_tokens):
        logits, _ = model(idx[:, -model.block_size :])
        probs = F.softmax(logits[:, -1, :], dim=-1)
        idx = torch.cat((idx, torch.multinomial(probs, 1, generator=generator)), dim=1)
    return idx


@pytest.mark.parametrize("kind", ["bigram", "attention", "gpt"])
def test_the_default_draw_gives_the_same_ids_as_plain_softmax_sampling(kind):
    """Every sample the book printed before keeps its text: same model, same generator, same ids."""
    model = make_model(kind, V, SMALL).eval()
    start = torch.zeros((2, 1), dtype=torch.long)
    with torch.no_grad():
        expected = reference_generate(model, start, 30, torch.Generator().manual_seed(7))
    assert torch.equal(model.generate(start, 30, torch.Generator().manual_seed(7)), expected)


def test_temperature_divides_the_scores_before_softmax():
    logits = torch.randn(3, V)
    for t in (0.5, 2.0):
        assert torch.allclose(Sampling(temperature=t).probabilities(logits), F.softmax(logits / t, dim=-1))


def test_top_k_keeps_the_k_likeliest_tokens_in_their_old_proportions():
    logits = torch.randn(4, V)
    probs = Sampling(top_k=5).probabilities(logits)
    full = F.softmax(logits, dim=-1)
    for row, p in zip(full, probs, strict=True):
        kept = p > 0
        assert kept.sum() == 5
        assert set(kept.nonzero().flatten().tolist()) == set(row.topk(5).indices.tolist())
        assert torch.allclose(p[kept], row[kept] / row[kept].sum())


def test_top_k_keeps_the_same_tokens_before_or_after_the_temperature():
    """*LLMs from scratch* keeps the top k first and divides second; the book divides first."""
    logits = torch.randn(4, V)
    for t in (0.5, 2.0):
        book = Sampling(temperature=t, top_k=5).probabilities(logits)
        kth = logits.topk(5, dim=-1).values[:, [-1]]  # (4, 1): the k-th largest undivided score
        theirs = F.softmax(logits.masked_fill(logits < kth, float("-inf")) / t, dim=-1)
        assert torch.equal(book > 0, theirs > 0), t
        assert torch.allclose(book, theirs), t


def test_top_p_keeps_the_fewest_likeliest_tokens_that_reach_p():
    probs = torch.tensor([[0.5, 0.05, 0.3, 0.15]])
    logits = probs.log()
    cases = {0.5: {0}, 0.6: {0, 2}, 0.8: {0, 2}, 0.81: {0, 2, 3}, 1.0: {0, 1, 2, 3}}
    for p, kept in cases.items():
        out = Sampling(top_p=p).probabilities(logits)[0]
        assert set(out.nonzero().flatten().tolist()) == kept, p
        assert math.isclose(out.sum().item(), 1.0, rel_tol=1e-6)


def test_greedy_takes_the_likeliest_token_whatever_the_generator():
    model = make_model("attention", V, SMALL).eval()
    start = torch.zeros((1, 1), dtype=torch.long)
    a = model.generate(start, 20, torch.Generator().manual_seed(1), greedy=True)
    b = model.generate(start, 20, torch.Generator().manual_seed(2), greedy=True)
    assert torch.equal(a, b)
    logits, _ = model(a[:, -1 - SMALL.block_size : -1])  # the context of the last id
    assert torch.equal(logits[0, -1].argmax(), a[0, -1])


def test_a_low_temperature_samples_what_greedy_takes():
    model = make_model("attention", V, SMALL).eval()
    start = torch.zeros((1, 1), dtype=torch.long)
    cold = model.generate(start, 20, torch.Generator().manual_seed(1), temperature=1e-4)
    assert torch.equal(cold, model.generate(start, 20, greedy=True))


def test_a_small_temperature_samples_and_the_smallest_allowed_takes_what_greedy_takes():
    model = make_model("attention", V, SMALL).eval()
    start = torch.zeros((1, 1), dtype=torch.long)
    cool = model.generate(start, 20, torch.Generator().manual_seed(1), temperature=0.05)
    assert cool.shape == (1, 21) and cool.max() < V
    coldest = model.generate(start, 20, torch.Generator().manual_seed(1), temperature=MIN_TEMPERATURE)
    assert torch.equal(coldest, model.generate(start, 20, greedy=True))


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"temperature": 0}, "temperature=0: temperature must be a finite number at least 1e-30"),
        ({"temperature": -1.0}, "temperature=-1.0: temperature must be a finite number at least 1e-30"),
        (
            {"temperature": 1e-39},
            "temperature=1e-39: temperature must be a finite number at least 1e-30 (dividing the scores "
            "by less overflows float32 to inf and nan; 1 leaves the scores alone; for the likeliest "
            "token every time, use greedy=True).",
        ),
        ({"temperature": float("nan")}, "temperature=nan: temperature must be a finite number"),
        ({"temperature": float("inf")}, "temperature=inf: temperature must be a finite number"),
        ({"top_k": 0}, "top_k=0: top_k must be at least 1."),
        ({"top_k": 2.5}, "top_k=2.5 (float): top_k must be a whole number (int) or None."),
        ({"top_p": 0.0}, "top_p=0.0: top_p must be a finite number greater than 0 and at most 1."),
        ({"top_p": 1.5}, "top_p=1.5: top_p must be a finite number greater than 0 and at most 1."),
        ({"greedy": True, "top_k": 3}, "greedy=True takes the likeliest token"),
        ({"greedy": "yes"}, "greedy='yes' (str): greedy must be True or False."),
    ],
)
def test_a_bad_setting_is_a_one_line_config_error_before_anything_is_generated(setting, message):
    model = make_model("bigram", V, SMALL)
    calls = []
    model.register_forward_pre_hook(lambda module, args: calls.append(1))
    with pytest.raises(ConfigError) as err:
        model.generate(torch.zeros((1, 1), dtype=torch.long), 5, **setting)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)
    assert calls == []


def test_top_k_above_the_vocabulary_names_its_size():
    model = make_model("bigram", V, SMALL)
    with pytest.raises(
        ConfigError, match=r"^top_k=66: top_k must be at most the 65 tokens of the vocabulary\.$"
    ):
        model.generate(torch.zeros((1, 1), dtype=torch.long), 5, top_k=66)


def test_the_measures_of_a_sample():
    known = set(words("To be, or not to be: that is the question."))
    assert real_word_share("to be or nto", known) == 0.75
    assert real_word_share("...", known) == 0.0
    assert distinct_share("abcdef", 2) == 1.0
    assert distinct_share("ababab", 2) == 2 / 5
