"""The KV cache: the ids and scores of generate, the work it saves, the rebuild, its size, its errors."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from selfattn import ConfigError, TrainConfig, make_model
from selfattn.kv_cache import (
    GPT2_SMALL,
    GPTSizes,
    KVCache,
    cache_memory,
    forward_cached,
    generate_cached,
)
from selfattn.models import generate
from selfattn.runs import LADDER

V = 65
BLOCK = 8
SMALL = TrainConfig(block_size=BLOCK, n_embd=16, head_size=12, n_head=2, n_layer=2, dropout=0.1)
KINDS = ["attention", "gpt"]
SETTINGS = [{}, {"top_k": 5, "temperature": 0.8}, {"top_p": 0.9}, {"greedy": True}]
# (prompt length, new tokens): within the context, crossing block_size, and a prompt longer than it
LENGTHS = [(2, 5), (3, 20), (12, 10)]


def small_model(kind: str) -> torch.nn.Module:
    return make_model(kind, V, SMALL).eval()  # eval: no dropout, so every step is reproducible


def prompt(length: int, rows: int = 2) -> torch.Tensor:
    return torch.randint(V, (rows, length), generator=torch.Generator().manual_seed(length))


def recorded(write, model, idx, n, **settings):
    """``write``'s ids, and the scores it chose each id from: the last position of each lm_head call."""
    scores = []
    hook = model.lm_head.register_forward_hook(lambda module, args, out: scores.append(out[:, -1]))
    try:
        ids = write(model, idx, n, torch.Generator().manual_seed(7), **settings)
    finally:
        hook.remove()
    return ids, scores


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(s) or "default")
@pytest.mark.parametrize("length, new", LENGTHS, ids=["within", "crossing", "long-prompt"])
def test_the_cache_writes_generates_ids_from_generates_scores(kind, settings, length, new):
    model, idx = small_model(kind), prompt(length)
    expected, expected_scores = recorded(generate, model, idx, new, **settings)
    ids, scores = recorded(generate_cached, model, idx, new, **settings)
    assert ids.shape == (2, length + new)
    assert torch.equal(ids, expected)
    assert len(scores) == len(expected_scores) == new, "one call of lm_head per new id"
    for step, (cached, uncached) in enumerate(zip(scores, expected_scores, strict=True)):
        assert torch.allclose(cached, uncached, atol=1e-5), f"step {step}"


@pytest.mark.parametrize("kind", KINDS)
def test_each_step_feeds_only_the_new_id_until_the_window_is_full(kind):
    """Generating 3 + 10 ids with block_size 8: the prompt once, then one id per step until the cache
    holds 8 positions; from then on the window slides and every step rebuilds it from 8 ids."""
    model = small_model(kind)
    fed = []
    hook = model.token_embedding_table.register_forward_hook(
        lambda m, args, out: fed.append(args[0].shape[1])
    )
    generate_cached(model, prompt(3), 10, torch.Generator().manual_seed(0))
    hook.remove()
    assert fed == [3, 1, 1, 1, 1, 1, BLOCK, BLOCK, BLOCK, BLOCK]


@pytest.mark.parametrize("kind", KINDS)
def test_split_prefill_gives_the_scores_of_one_forward_pass(kind):
    model, idx = small_model(kind), prompt(BLOCK)
    with torch.no_grad():
        full, _ = model(idx)  # (2, 8, V)
        first, cache = forward_cached(model, idx[:, :5])
        rest, cache = forward_cached(model, idx[:, 5:], cache)
        alone, _ = forward_cached(model, idx)
    assert torch.equal(alone, full), "without a cache: the same computation as forward"
    assert torch.allclose(torch.cat((first, rest), dim=1), full, atol=1e-5)
    assert cache.length == BLOCK


@pytest.mark.parametrize("kind", KINDS)
def test_a_step_leaves_the_cache_it_reads_unchanged(kind):
    model, idx = small_model(kind), prompt(6)
    with torch.no_grad():
        _, cache = forward_cached(model, idx[:, :5])
        kept = [(k.clone(), v.clone()) for k, v in cache.layers]
        first, grown = forward_cached(model, idx[:, 5:], cache)
        again, _ = forward_cached(model, idx[:, 5:], cache)
    assert (cache.length, grown.length) == (5, 6)
    assert all(
        torch.equal(k, k0) and torch.equal(v, v0) for (k, v), (k0, v0) in zip(cache.layers, kept, strict=True)
    )
    assert torch.equal(first, again)


@pytest.mark.parametrize("kind", KINDS)
def test_keys_kept_across_a_slide_of_the_window_give_other_scores(kind):
    """Why the cache is rebuilt: keep the last 7 cached positions and add the next id at position 7,
    and the scores are not those of the window read afresh (the ids stood one position later)."""
    model, idx = small_model(kind), prompt(BLOCK + 1)
    with torch.no_grad():
        _, cache = forward_cached(model, idx[:, :BLOCK])  # positions 0 .. 7 hold ids 0 .. 7
        slid = KVCache(tuple((k[:, :, 1:], v[:, :, 1:]) for k, v in cache.layers))  # ids 1 .. 7
        kept, _ = forward_cached(model, idx[:, BLOCK:], slid)  # id 8 at position 7
        fresh, _ = model(idx[:, 1:])  # ids 1 .. 8 at positions 0 .. 7, as generate reads them
    assert not torch.allclose(kept[:, -1], fresh[:, -1], atol=1e-3)


def test_the_cache_follows_the_model_in_train_mode_too():
    """With dropout switched off by p = 0, train mode changes nothing: the same ids either way."""
    model = make_model("gpt", V, replace(SMALL, dropout=0.0)).train()
    idx = prompt(3)
    expected = generate(model, idx, 12, torch.Generator().manual_seed(1))
    assert torch.equal(generate_cached(model, idx, 12, torch.Generator().manual_seed(1)), expected)


def test_no_new_tokens_leaves_the_ids_as_they_were():
    idx = prompt(4)
    assert torch.equal(generate_cached(small_model("gpt"), idx, 0), idx)


def counted_bytes(cache: KVCache) -> int:
    return sum(k.nbytes + v.nbytes for k, v in cache.layers)


@pytest.mark.parametrize(
    "kind, config",
    [
        ("attention", SMALL),
        ("gpt", SMALL),
        ("gpt", LADDER["small-gpt"].config),
        ("gpt", LADDER["lecture"].config),
    ],
    ids=["attention", "gpt", "small-gpt", "lecture"],
)
def test_the_memory_formula_counts_the_cached_tensors(kind, config):
    model = make_model(kind, V, config).eval()
    idx = torch.zeros((1, config.block_size), dtype=torch.long)
    with torch.no_grad():
        _, one = forward_cached(model, idx[:, :1])
        _, full = forward_cached(model, idx)
    memory = cache_memory(kind, config)
    assert memory.per_token == counted_bytes(one)
    assert memory.full_context == counted_bytes(full)
    assert all(k.dtype == torch.float32 for k, _ in full.layers)


def test_gpt2_small_has_the_published_sizes_and_a_cache_of_72_kib_per_token():
    assert (GPT2_SMALL.n_layer, GPT2_SMALL.n_embd, GPT2_SMALL.block_size) == (12, 768, 1024)
    memory = cache_memory("gpt", GPT2_SMALL)
    assert memory.per_token == 72 * 2**10 and memory.full_context == 72 * 2**20


def test_gpt_sizes_count_as_the_same_sizes_in_a_train_config():
    """GPTSizes hold a GPT too large for TrainConfig's memory check (GPT-2 XL's 48 layers) and count
    as the same sizes in a TrainConfig do."""
    small = LADDER["small-gpt"].config
    as_sizes = GPTSizes(n_layer=small.n_layer, n_embd=small.n_embd, block_size=small.block_size)
    assert cache_memory("gpt", as_sizes) == cache_memory("gpt", small)
    with pytest.raises(ConfigError):
        TrainConfig(batch_size=1, block_size=1024, n_embd=1600, n_head=25, n_layer=48)
    xl = cache_memory("gpt", replace(GPT2_SMALL, n_embd=1600, n_layer=48))
    assert xl.per_token == 2 * 48 * 1600 * 4


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: GPTSizes(n_layer=0), "n_layer=0: n_layer must be at least 1"),
        (lambda: GPTSizes(n_embed=768), "Did you mean n_embd"),
        (lambda: cache_memory("attention", GPT2_SMALL), "kind='gpt'"),
    ],
)
def test_bad_sizes_are_one_line_config_errors(make, message):
    with pytest.raises(ConfigError, match=message) as error:
        make()
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("kind", ["bigram", "multihead", "residual"])
def test_an_unsupported_model_is_named_in_one_line(kind):
    model = make_model(kind, V, TrainConfig(n_head=2))
    for call in (
        lambda: generate_cached(model, prompt(2), 3),
        lambda: forward_cached(model, prompt(2)),
    ):
        with pytest.raises(ConfigError) as error:
            call()
        message = str(error.value)
        assert "\n" not in message
        assert type(model).__name__ in message
        assert "AttentionLanguageModel" in message and "GPTLanguageModel" in message
    with pytest.raises(ConfigError, match=r"kind='bigram'.*'attention' and 'gpt'") as error:
        cache_memory("bigram", TrainConfig())
    assert "\n" not in str(error.value)


def test_a_misspelled_setting_is_a_config_error_as_for_sampling():
    with pytest.raises(ConfigError, match="Did you mean top_k"):
        generate_cached(small_model("gpt"), prompt(2), 3, topk=5)
