"""The training recipe of real GPTs, one part at a time ("Training it well").

Each part is a :class:`~selfattn.config.TrainConfig` field, off by default, so the
runs of the earlier chapters train exactly as before. ``init_weights`` and
``tie_weights`` change the model before it trains (``make_model`` calls them);
``make_optimizer`` and ``take_step`` are how the training loop steps, with
``param_groups`` and ``learning_rate_at``.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn

from selfattn.config import TrainConfig


def init_weights(model: nn.Module, std: float, scale_residual: bool = False) -> None:
    """Draw every Linear and Embedding weight from N(0, std²) and zero every bias.

    This is how the lecture's final ``gpt.py`` (and GPT-1's released code) start. With
    ``scale_residual``, the two layers of each block whose outputs are added to the residual
    stream start ``1/sqrt(2 * n_layer)`` smaller, so the stream does not grow with depth (the
    GPT-2 paper; nanoGPT's ``c_proj``).
    """
    for module in model.modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=std)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)
    if scale_residual:
        n_layer = len(model.blocks)
        for block in model.blocks:
            for layer in (block.sa.proj, block.ffwd.proj):  # the two that write into the stream
                nn.init.normal_(layer.weight, mean=0.0, std=std / math.sqrt(2 * n_layer))


def tie_weights(model: nn.Module) -> None:
    """Let ``lm_head`` score with the token embedding's own matrix: one (vocab, C) matrix, read both ways."""
    model.lm_head.weight = model.token_embedding_table.weight


def param_groups(model: nn.Module, config: TrainConfig) -> list[dict]:
    """AdamW's parameter groups: all decayed alike, or (``decay_matrices_only``) only the matrices.

    The matrices are the Linear layers' weights; biases, LayerNorms and embeddings (a tied
    ``lm_head`` is the embedding) are not decayed.
    """
    params = list(model.parameters())  # each parameter once, a tied matrix too
    if not config.decay_matrices_only:
        return [{"params": params, "weight_decay": config.weight_decay}]
    embeddings = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    linear = {id(m.weight) for m in model.modules() if isinstance(m, nn.Linear)}
    matrices = linear - embeddings
    return [
        {"params": [p for p in params if id(p) in matrices], "weight_decay": config.weight_decay},
        {"params": [p for p in params if id(p) not in matrices], "weight_decay": 0.0},
    ]


def learning_rate_at(step: int, config: TrainConfig) -> float:
    """The learning rate of step ``step`` (0-based): a linear warmup, then cosine decay.

    Over the first ``warmup_iters`` steps the rate climbs to ``learning_rate``; with
    ``min_lr_ratio`` it then falls along half a cosine to that share of itself at the
    last step. With neither it is ``learning_rate`` throughout.
    """
    top = config.learning_rate
    if step < config.warmup_iters:
        return top * (step + 1) / config.warmup_iters
    if config.min_lr_ratio is None:
        return top
    done = (step - config.warmup_iters) / max(1, config.max_iters - config.warmup_iters)  # 0 .. 1
    floor = config.min_lr_ratio * top
    return floor + 0.5 * (1 + math.cos(math.pi * done)) * (top - floor)


STEP_FIELDS = ("warmup_iters", "min_lr_ratio", "grad_clip", "weight_decay", "decay_matrices_only", "beta2")


def steps_plainly(config: TrainConfig) -> bool:
    """Whether ``config`` steps as ``training.plain_loop`` does: AdamW at its defaults, one
    learning rate throughout, no clipping (its model may still start the recipe's way)."""
    default = TrainConfig()
    return all(getattr(config, name) == getattr(default, name) for name in STEP_FIELDS)


def make_optimizer(model: nn.Module, config: TrainConfig) -> torch.optim.AdamW:
    """AdamW over the model's parameter groups, with the config's learning rate and beta2."""
    betas = (0.9, config.beta2)  # beta1 stays at AdamW's default
    return torch.optim.AdamW(param_groups(model, config), lr=config.learning_rate, betas=betas, fused=True)


def take_step(
    model: nn.Module, optimizer: torch.optim.Optimizer, loss: torch.Tensor, config: TrainConfig, step: int
) -> float | None:
    """One optimizer step from ``loss``: its gradient, clipped if asked, then a step at this step's rate.

    Returns the gradient's norm before clipping when the step clips (else None).
    """
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    norm = None
    if config.grad_clip is not None:
        # scale the whole gradient down, every parameter's alike, if its norm is above grad_clip
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip).item()
    for group in optimizer.param_groups:
        group["lr"] = learning_rate_at(step, config)
    optimizer.step()
    return norm
