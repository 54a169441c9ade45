"""One causal self-attention head on tiny Shakespeare (the chapter "The attention language
model"): val loss about 2.40.

python code/02_attention.py [--max-iters 5000] [--n-embd 32] [--head-size 32] ...
"""

from selfattn import ATTENTION
from selfattn.cli import main
from selfattn.runs import Rung

if __name__ == "__main__":
    main({"attention": Rung("attention", ATTENTION, "one causal self-attention head")}, __doc__)
