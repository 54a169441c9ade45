"""Training hyperparameters, checked the moment they are set."""

from __future__ import annotations

from selfattn.bpe import check_vocab_size
from selfattn.errors import ConfigError
from selfattn.language import say, words
from selfattn.settings import checked, setting

# The most memory one training step may need: beyond it most laptops swap and many GPUs run out.
MEMORY_LIMIT_BYTES = 8 * 2**30
# The texts a run can train on (selfattn.corpus), each with a bound on its characters (tiny
# Shakespeare has 65, the Tang poems 8,337), for the memory check.
CORPORA = {"shakespeare": 128, "tang-poems": 9000}
# torch seeds are unsigned 64-bit integers.
LARGEST_SEED = 2**64 - 1
SEED_HINT = words("torch takes seeds of 64 bits")
# The fields that choose the text and its tokens (Part VII): at their defaults, Shakespeare's characters.
DATA_FIELDS = ("corpus", "bpe_vocab")
# The fields of the training recipe ("Training it well"): off at their defaults (selfattn.recipe).
RECIPE_FIELDS = (
    "init_std",
    "scale_residual_init",
    "tie_weights",
    "warmup_iters",
    "min_lr_ratio",
    "grad_clip",
    "weight_decay",
    "decay_matrices_only",
    "beta2",
)


@checked
class TrainConfig:
    """Everything a training run depends on. Defaults are the bigram chapter's."""

    batch_size: int = setting(32, "sequences in each training batch", low=1)
    block_size: int = setting(8, "context length: how many tokens a position can see", low=1)
    n_embd: int = setting(32, "width of the token and position embeddings", low=1)
    head_size: int = setting(32, "width of the one head's queries, keys and values", low=1)
    n_head: int = setting(1, "attention heads per block, each n_embd / n_head wide", low=1)
    n_layer: int = setting(1, "blocks stacked one after another", low=1)
    dropout: float = setting(
        0.0, "share of activations zeroed at random while training", low=0, high=1, high_open=True
    )
    learning_rate: float = setting(
        1e-2, "AdamW's step size", low=0, low_open=True, high=1, hint=words("typical values are 1e-4 to 1e-2")
    )
    max_iters: int = setting(3000, "training steps", low=0)
    eval_interval: int = setting(300, "steps between two evaluations of both splits", low=1)
    eval_iters: int = setting(200, "batches averaged in each evaluation", low=1)
    seed: int = setting(
        1337, "seed for the starting weights and the batches", low=0, high=LARGEST_SEED, hint=SEED_HINT
    )
    corpus: str = setting("shakespeare", "the text trained on", choices=tuple(CORPORA))
    bpe_vocab: int = setting(
        0,
        "0: a token per character; else this many byte-pair tokens, learned on the training split",
        low=0,
    )
    # The training recipe of real GPTs ("Training it well"), each part off by default (selfattn.recipe).
    init_std: float | None = setting(
        None,
        "std of the normal starting weights, biases zero (None: PyTorch's own starting weights)",
        low=0,
        low_open=True,
        hint=words("GPT-2 uses 0.02"),
    )
    scale_residual_init: bool = setting(
        False, "start the layers that write into the residual stream 1/sqrt(2 n_layer) smaller"
    )
    tie_weights: bool = setting(False, "one matrix for the token embedding and lm_head")
    warmup_iters: int = setting(0, "steps over which the learning rate rises to learning_rate", low=0)
    min_lr_ratio: float | None = setting(
        None,
        "cosine-decay the learning rate to this share of it by the last step (None: no decay)",
        low=0,
        high=1,
    )
    grad_clip: float | None = setting(
        None,
        "largest gradient norm a step takes; larger ones are scaled down (None: no clipping)",
        low=0,
        low_open=True,
    )
    weight_decay: float = setting(0.01, "AdamW's weight decay", low=0, high=1)
    decay_matrices_only: bool = setting(
        False, "decay only the Linear layers' weight matrices, not biases, LayerNorms or embeddings"
    )
    beta2: float = setting(
        0.999,
        "AdamW's beta2: how slowly its average of squared gradients forgets",
        low=0,
        high=1,
        high_open=True,
    )

    def check_together(self) -> None:
        """Rules between fields: heads that split n_embd evenly, a recipe that fits, a step that fits."""
        if self.n_embd % self.n_head:
            raise ConfigError(
                say(
                    "n_embd={n_embd} with n_head={n_head}: each head gets n_embd / n_head channels, so "
                    "n_embd must be a multiple of n_head (e.g. n_head={divisor}).",
                    n_embd=self.n_embd,
                    n_head=self.n_head,
                    divisor=_divisor(self),
                )
            )
        if self.scale_residual_init and self.init_std is None:
            raise ConfigError(
                say(
                    "scale_residual_init=True scales the starting weights init_std draws; set init_std too "
                    "(e.g. init_std=0.02)."
                )
            )
        if self.bpe_vocab:  # 0: characters
            check_vocab_size(self.bpe_vocab, "bpe_vocab")
        if self.warmup_iters > self.max_iters:
            raise ConfigError(
                say(
                    "warmup_iters={warmup} with max_iters={steps}: the warmup must end by the last step; "
                    "make warmup_iters at most {steps}.",
                    warmup=self.warmup_iters,
                    steps=self.max_iters,
                )
            )
        need = step_bytes(self)
        if need > MEMORY_LIMIT_BYTES:
            raise ConfigError(
                say(
                    "batch_size={B}, block_size={T}, n_embd={C}, n_head={heads}, n_layer={layers} need "
                    "about {need:.1f} GiB per step, more than the {limit:.0f} GiB allowed; make "
                    "batch_size, block_size or n_layer smaller.",
                    B=self.batch_size,
                    T=self.block_size,
                    C=self.n_embd,
                    heads=self.n_head,
                    layers=self.n_layer,
                    need=need / 2**30,
                    limit=MEMORY_LIMIT_BYTES / 2**30,
                )
            )


def step_bytes(config: TrainConfig) -> int:
    """A generous estimate of the float32 memory one training step needs (forward and backward)."""
    B, T, C = config.batch_size, config.block_size, max(config.n_embd, config.head_size)
    per_layer = 20 * B * T * C + 3 * B * config.n_head * T * T  # activations kept for backward
    weights = 12 * config.n_layer * C * C  # each block's attention and MLP
    vocab = max(CORPORA[config.corpus], config.bpe_vocab)
    return 4 * (B * T * max(C, vocab) * 10 + config.n_layer * per_layer + 4 * weights)


def _divisor(config: TrainConfig) -> int:
    """The largest head count up to n_head that divides n_embd."""
    return max(d for d in range(1, config.n_head + 1) if config.n_embd % d == 0)
