"""Chapter 2: one causal self-attention head on tiny Shakespeare (val loss about 2.41).

python code/02_attention.py [--max-iters 5000] [--n-embd 32] [--head-size 32] ...
"""

from selfattn import TrainConfig
from selfattn.cli import main

if __name__ == "__main__":
    main(
        "attention",
        TrainConfig(n_embd=32, head_size=32, learning_rate=1e-3, max_iters=5000, eval_interval=500),
        __doc__,
    )
