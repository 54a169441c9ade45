"""Training hyperparameters, checked the moment they are set."""

from __future__ import annotations

from selfattn.errors import ConfigError
from selfattn.settings import checked, setting

# The largest activation budget a run may ask for; beyond it a laptop starts to swap.
MEMORY_LIMIT_BYTES = 2 * 2**30
# The largest vocabulary the book trains on (characters of tiny Shakespeare: 65).
ASSUMED_VOCAB = 128
# torch seeds are unsigned 64-bit integers.
LARGEST_SEED = 2**64 - 1
SEED_HINT = "torch takes seeds of 64 bits"


@checked
class TrainConfig:
    """Everything a training run depends on. Defaults are the bigram chapter's."""

    batch_size: int = setting(32, "sequences in each training batch", low=1)
    block_size: int = setting(8, "context length: how many tokens a position can see", low=1)
    n_embd: int = setting(32, "width of the token and position embeddings", low=1)
    head_size: int = setting(32, "width of the attention head's queries, keys and values", low=1)
    learning_rate: float = setting(
        1e-2, "AdamW's step size", low=0, low_open=True, high=1, hint="typical values are 1e-4 to 1e-2"
    )
    max_iters: int = setting(3000, "training steps", low=0)
    eval_interval: int = setting(300, "steps between two evaluations of both splits", low=1)
    eval_iters: int = setting(200, "batches averaged in each evaluation", low=1)
    seed: int = setting(
        1337, "seed for the starting weights and the batches", low=0, high=LARGEST_SEED, hint=SEED_HINT
    )

    def check_together(self) -> None:
        """Reject sizes whose activations (forward and backward) cannot fit in memory."""
        widest = max(self.block_size, self.n_embd, self.head_size, ASSUMED_VOCAB)
        # about ten float32 tensors of shape (B, T, widest) live during one step
        need = 10 * 4 * self.batch_size * self.block_size * widest
        if need > MEMORY_LIMIT_BYTES:
            raise ConfigError(
                f"batch_size={self.batch_size} with block_size={self.block_size} "
                f"(and n_embd={self.n_embd}, head_size={self.head_size}) needs about "
                f"{need / 2**30:.1f} GiB per step, more than the {MEMORY_LIMIT_BYTES / 2**30:.0f} GiB "
                "allowed; make batch_size or block_size smaller."
            )
