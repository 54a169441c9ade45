"""The bigram model on tiny Shakespeare (the chapter "The bigram ceiling"): val loss about 2.48.

python code/01_bigram.py [--max-iters 3000] [--learning-rate 1e-2] ...
"""

from selfattn.cli import main
from selfattn.runs import PART_II

if __name__ == "__main__":
    main({"bigram": PART_II["bigram"]}, __doc__)
