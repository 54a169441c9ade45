"""The runs the book trains, each defined once.

Chapters, scripts, tests and benchmarks all start from these; a chapter that
varies one builds it visibly, e.g. ``replace(ATTENTION, max_iters=500)``.
"""

from __future__ import annotations

from dataclasses import replace

from selfattn.config import TrainConfig

# "The bigram model": one table lookup per character.
BIGRAM = TrainConfig(learning_rate=1e-2, max_iters=3000, eval_interval=300)

# Part II: token and position embeddings and one causal head, n_embd = head_size = 32.
ATTENTION = TrainConfig(n_embd=32, head_size=32, learning_rate=1e-3, max_iters=5000, eval_interval=500)

# The "try it" cell of "The attention language model": ten times the learning rate, 500 steps.
ATTENTION_TRY = replace(ATTENTION, learning_rate=1e-2, max_iters=500, eval_interval=100)
