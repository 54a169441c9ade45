"""Every bad hyperparameter gets a message naming the field, the value and what is allowed."""

from __future__ import annotations

import pytest

from selfattn import ConfigError, TrainConfig

BAD = [
    ({"batch_size": 0}, r"batch_size=0: batch_size must be at least 1"),
    ({"block_size": -8}, r"block_size=-8: block_size must be at least 1"),
    ({"n_embd": 32.0}, r"n_embd=32\.0 \(float\): n_embd must be a whole number"),
    ({"head_size": "32"}, r"head_size='32' \(str\): head_size must be a whole number"),
    ({"max_iters": True}, r"max_iters=True \(bool\): max_iters must be a whole number"),
    ({"max_iters": -1}, r"max_iters=-1: max_iters must be at least 0"),
    ({"eval_interval": 0}, r"eval_interval=0: eval_interval must be at least 1"),
    ({"eval_iters": None}, r"eval_iters=None \(NoneType\): eval_iters must be a whole number"),
    ({"seed": -5}, r"seed=-5: seed must be at least 0"),
    ({"learning_rate": 0}, r"learning_rate=0: learning_rate must be a finite number greater than 0"),
    ({"learning_rate": -1e-3}, r"learning_rate=-0\.001: learning_rate must be a finite number"),
    ({"learning_rate": float("nan")}, r"learning_rate=nan: learning_rate must be a finite number"),
    ({"learning_rate": float("inf")}, r"learning_rate=inf: learning_rate must be a finite number"),
    ({"learning_rate": 5.0}, r"learning_rate=5\.0: .*at most 1"),
    ({"learning_rate": "1e-3"}, r"learning_rate='1e-3' \(str\): learning_rate must be a number"),
    ({"learning_rate": False}, r"learning_rate=False \(bool\): learning_rate must be a number"),
    ({"batch_size": 100_000, "block_size": 4096}, r"batch_size=100000 with block_size=4096 .* GiB"),
]


@pytest.mark.parametrize(
    ("overrides", "message"), BAD, ids=[next(iter(o)) + "=" + repr(next(iter(o.values()))) for o, _ in BAD]
)
def test_bad_config_is_rejected_with_a_clear_message(overrides, message):
    with pytest.raises(ConfigError, match=message):
        TrainConfig(**overrides)


def test_config_error_is_a_value_error():
    assert issubclass(ConfigError, ValueError)


def test_good_configs_are_accepted():
    TrainConfig()
    TrainConfig(learning_rate=1, max_iters=0, seed=0, block_size=256, batch_size=64, n_embd=384, head_size=64)
