"""From one head to a GPT: every rung of Part IV's ladder, one preset each.

python code/03_gpt.py --preset multihead       # four heads of 8 in place of one of 32
python code/03_gpt.py --preset small-gpt       # the largest model the book trains on a CPU
python code/03_gpt.py --preset lecture         # GPU scale: 10.8 M parameters (use --device cuda)
python code/03_gpt.py --preset residual --max-iters 2000 --learning-rate 3e-3
python code/03_gpt.py --preset small-gpt --out runs/gpt      # save a checkpoint at every evaluation
python code/03_gpt.py --preset small-gpt --resume runs/gpt   # go on where it stopped
torchrun --standalone --nproc-per-node 2 code/03_gpt.py --preset layernorm   # two processes share each batch
python code/03_gpt.py --preset lecture --device cuda --dtype bfloat16 --compile --sdpa   # on a GPU

Where the repository is not at hand (the package installed with pip, a notebook), the package runs
the same: ``python -m selfattn.ladder`` in place of ``python code/03_gpt.py``, and
``torchrun ... -m selfattn.ladder`` in place of ``torchrun ... code/03_gpt.py``.
"""

from selfattn import cli
from selfattn.runs import LADDER


def main(argv: list[str] | None = None) -> None:
    """Train the rung the flags in ``argv`` (by default the command line's) name."""
    cli.main(LADDER, __doc__, argv)


if __name__ == "__main__":
    main()
