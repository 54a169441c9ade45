"""The models the book trains, by kind: which class each name builds, and what each reads.

``make_model`` is the one place a kind's name becomes a model; the training loop
(``selfattn.training``), the runs (``selfattn.runs``) and the scripts (``selfattn.cli``) start from it.
"""

from __future__ import annotations

import torch

from selfattn.config import TrainConfig
from selfattn.errors import ConfigError
from selfattn.gpt import (
    FeedForwardLanguageModel,
    GPTLanguageModel,
    MultiHeadLanguageModel,
    ResidualLanguageModel,
)
from selfattn.language import say
from selfattn.models import AttentionLanguageModel, BigramLanguageModel, LanguageModel
from selfattn.recipe import init_weights, tie_weights

# Part IV's models: each kind is named after the rung of selfattn.runs.LADDER that first trains it,
# the complete GPT "gpt".
LADDER_MODELS: dict[str, type[LanguageModel]] = {
    "multihead": MultiHeadLanguageModel,
    "ffwd": FeedForwardLanguageModel,
    "residual": ResidualLanguageModel,
    "gpt": GPTLanguageModel,
}
MODELS = ("bigram", "attention", *LADDER_MODELS)
PLAIN = TrainConfig()  # every recipe field at its default: off
# Config fields a kind of model does not read (the scripts offer no flag for them).
PART_IV_ONLY = {"n_head", "n_layer", "dropout"}
# The recipe's parts that change the model itself: only the complete GPT takes them.
GPT_ONLY = {"init_std", "scale_residual_init", "tie_weights"}
UNREAD = {
    "bigram": {"n_embd", "head_size", *PART_IV_ONLY, *GPT_ONLY},
    "attention": PART_IV_ONLY | GPT_ONLY,
    **{kind: {"head_size", *GPT_ONLY} for kind in LADDER_MODELS if kind != "gpt"},
    "gpt": {"head_size"},
}


def make_model(kind: str, vocab_size: int, config: TrainConfig) -> LanguageModel:
    """Build a ``kind`` model (one of ``MODELS``) with weights drawn from ``config.seed``.

    ``"bigram"`` and ``"attention"`` are Part II's models; the others are the
    ladder's models on the way to a GPT (``LADDER_MODELS``). The complete GPT
    also takes the recipe's starting weights and weight tying (``selfattn.recipe``).
    """
    if kind not in MODELS:
        raise ConfigError(say("kind={kind!r}: choose one of {kinds}.", kind=kind, kinds=", ".join(MODELS)))
    for name in sorted(UNREAD[kind] & GPT_ONLY):
        if getattr(config, name) != getattr(PLAIN, name):
            raise ConfigError(
                say("{name} changes the GPT only: use kind='gpt', or leave {name} unset.", name=name)
            )
    torch.manual_seed(config.seed)
    if kind == "bigram":
        return BigramLanguageModel(vocab_size)
    if kind == "attention":
        return AttentionLanguageModel(vocab_size, config.block_size, config.n_embd, config.head_size)
    model = LADDER_MODELS[kind](
        vocab_size, config.block_size, config.n_embd, config.n_head, config.n_layer, config.dropout
    )
    if config.tie_weights:
        tie_weights(model)
    if config.init_std is not None:
        init_weights(model, config.init_std, config.scale_residual_init)
    return model
