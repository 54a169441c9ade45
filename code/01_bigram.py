"""Chapter 1: the bigram model on tiny Shakespeare (val loss about 2.49).

python code/01_bigram.py [--max-iters 3000] [--learning-rate 1e-2] ...
"""

from selfattn import TrainConfig
from selfattn.cli import main

if __name__ == "__main__":
    main("bigram", TrainConfig(learning_rate=1e-2, max_iters=3000, eval_interval=300), __doc__)
