"""One causal self-attention head on tiny Shakespeare (the chapter "The attention language
model"): val loss about 2.40.

python code/02_attention.py [--max-iters 5000] [--n-embd 32] [--head-size 32] ...
"""

from selfattn.cli import main
from selfattn.runs import PART_II

if __name__ == "__main__":
    main({"attention": PART_II["attention"]}, __doc__)
