"""From one head to a GPT: every rung of the ladder of the book's last part, one preset each.

python code/03_gpt.py --preset multihead       # four heads of 8 in place of one of 32
python code/03_gpt.py --preset small-gpt       # the largest model the book trains on a CPU
python code/03_gpt.py --preset lecture         # GPU scale: 10.8 M parameters (use --device cuda)
python code/03_gpt.py --preset residual --max-iters 2000 --learning-rate 3e-3
python code/03_gpt.py --preset small-gpt --out runs/gpt      # save a checkpoint at every evaluation
python code/03_gpt.py --preset small-gpt --resume runs/gpt   # go on where it stopped
torchrun --standalone --nproc-per-node 2 code/03_gpt.py --preset layernorm   # two processes share each batch
python code/03_gpt.py --preset lecture --device cuda --dtype bfloat16 --compile --sdpa   # on a GPU
"""

from selfattn.cli import main
from selfattn.runs import LADDER

if __name__ == "__main__":
    main(LADDER, __doc__)
