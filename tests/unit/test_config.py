"""Every bad hyperparameter gets a message naming the field, the value and what is allowed."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from selfattn import ATTENTION, ConfigError, DataError, ReaderError, TrainConfig

BAD = [
    ({"batch_size": 0}, r"batch_size=0: batch_size must be at least 1"),
    ({"n_head": 0}, r"n_head=0: n_head must be at least 1"),
    ({"n_layer": 2.0}, r"n_layer=2\.0 \(float\): n_layer must be a whole number"),
    ({"dropout": 1.0}, r"dropout=1\.0: dropout must be a finite number at least 0 and less than 1"),
    ({"dropout": -0.1}, r"dropout=-0\.1: dropout must be a finite number at least 0"),
    (
        {"n_embd": 32, "n_head": 5},
        r"n_embd=32 with n_head=5: .* n_embd must be a multiple of n_head \(e\.g\. n_head=4\)",
    ),
    (
        {"batch_size": 64, "block_size": 2048, "n_embd": 768, "n_head": 12, "n_layer": 12},
        r"batch_size=64, block_size=2048, n_embd=768, n_head=12, n_layer=12 need about .* GiB per step",
    ),
    ({"block_size": -8}, r"block_size=-8: block_size must be at least 1"),
    ({"n_embd": 32.0}, r"n_embd=32\.0 \(float\): n_embd must be a whole number"),
    ({"head_size": "32"}, r"head_size='32' \(str\): head_size must be a whole number"),
    ({"max_iters": True}, r"max_iters=True \(bool\): max_iters must be a whole number"),
    ({"max_iters": -1}, r"max_iters=-1: max_iters must be at least 0"),
    ({"eval_interval": 0}, r"eval_interval=0: eval_interval must be at least 1"),
    ({"eval_iters": None}, r"eval_iters=None \(NoneType\): eval_iters must be a whole number"),
    ({"seed": -5}, r"seed=-5: seed must be from 0 to 18446744073709551615 \(torch takes seeds of 64 bits\)"),
    ({"seed": 2**64}, r"seed=18446744073709551616: seed must be from 0 to 18446744073709551615"),
    ({"learning_rate": 0}, r"learning_rate=0: learning_rate must be a finite number greater than 0"),
    ({"learning_rate": -1e-3}, r"learning_rate=-0\.001: learning_rate must be a finite number"),
    ({"learning_rate": float("nan")}, r"learning_rate=nan: learning_rate must be a finite number"),
    ({"learning_rate": float("inf")}, r"learning_rate=inf: learning_rate must be a finite number"),
    ({"learning_rate": 5.0}, r"learning_rate=5\.0: .*at most 1"),
    ({"learning_rate": "1e-3"}, r"learning_rate='1e-3' \(str\): learning_rate must be a number"),
    ({"learning_rate": False}, r"learning_rate=False \(bool\): learning_rate must be a number"),
    (
        {"batch_size": 100_000, "block_size": 4096},
        r"batch_size=100000, block_size=4096, n_embd=32, n_head=1, n_layer=1 need about .* GiB",
    ),
    (
        {"learnig_rate": 1e-3},
        r"TrainConfig has no field 'learnig_rate'\. Did you mean learning_rate\? Its fields",
    ),
    ({"n_embed": 64}, r"has no field 'n_embed'\. Did you mean n_embd\?"),
    ({"temperature": 0.8}, r"has no field 'temperature'\. Its fields are batch_size, block_size"),
    ({"init_std": 0}, r"init_std=0: init_std must be a finite number greater than 0 \(GPT-2 uses 0\.02\)"),
    ({"init_std": "0.02"}, r"init_std='0\.02' \(str\): init_std must be a number or None"),
    ({"scale_residual_init": 1}, r"scale_residual_init=1 \(int\): scale_residual_init must be True or False"),
    ({"scale_residual_init": True}, r"scale_residual_init=True scales .* set init_std too"),
    ({"warmup_iters": 600, "max_iters": 500}, r"warmup_iters=600 with max_iters=500: .* at most 500"),
    (
        {"min_lr_ratio": 1.5},
        r"min_lr_ratio=1\.5: min_lr_ratio must be a finite number at least 0 and at most 1",
    ),
    ({"grad_clip": 0.0}, r"grad_clip=0\.0: grad_clip must be a finite number greater than 0"),
    ({"weight_decay": -0.1}, r"weight_decay=-0\.1: weight_decay must be a finite number at least 0"),
    ({"beta2": 1.0}, r"beta2=1\.0: beta2 must be a finite number at least 0 and less than 1"),
    ({"corpus": "Shakespeare"}, r"corpus='Shakespeare': corpus must be one of shakespeare, tang-poems\."),
    ({"corpus": None}, r"corpus=None: corpus must be one of shakespeare, tang-poems\."),
    ({"bpe_vocab": 100}, r"bpe_vocab=100: a byte-level vocabulary holds the 256 bytes .* 256 or more"),
    ({"bpe_vocab": -1}, r"bpe_vocab=-1: bpe_vocab must be at least 0"),
]


@pytest.mark.parametrize(
    ("overrides", "message"), BAD, ids=[next(iter(o)) + "=" + repr(next(iter(o.values()))) for o, _ in BAD]
)
def test_bad_config_is_rejected_with_a_clear_message(overrides, message):
    with pytest.raises(ConfigError, match=message):
        TrainConfig(**overrides)


def test_every_failure_is_one_line():
    for overrides, _ in BAD:
        with pytest.raises(ConfigError) as error:
            TrainConfig(**overrides)
        assert "\n" not in str(error.value)


def test_replace_is_checked_like_construction():
    with pytest.raises(ConfigError, match="did you mean|Did you mean max_iters"):
        replace(ATTENTION, max_iter=10)
    with pytest.raises(ConfigError, match="max_iters=-1"):
        replace(ATTENTION, max_iters=-1)


def test_too_many_positional_values_is_a_config_error():
    count = len(fields(TrainConfig))
    with pytest.raises(ConfigError, match=f"takes at most {count} values"):
        TrainConfig(*range(1, count + 2))


def test_reader_errors_share_one_base():
    assert issubclass(ConfigError, ReaderError) and issubclass(DataError, ReaderError)
    assert issubclass(ConfigError, ValueError), "code that catches ValueError still works"


def test_printed_config_is_one_field_per_line():
    lines = str(ATTENTION).splitlines()
    assert len(lines) == len(fields(TrainConfig))
    width = max(len(f.name) for f in fields(TrainConfig))
    assert f"{'learning_rate':>{width}} = 0.001" in lines and f"{'max_iters':>{width}} = 5000" in lines


def test_good_configs_are_accepted():
    TrainConfig()
    TrainConfig(learning_rate=1, max_iters=0, seed=0, block_size=256, batch_size=64, n_embd=384, head_size=64)
    TrainConfig(n_embd=384, n_head=6, n_layer=6, block_size=256, batch_size=64, dropout=0.2)
