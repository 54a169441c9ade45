"""The CPU arithmetic the book's numbers are computed with, the same on every x86 machine.

PyTorch picks its CPU kernels by the processor it runs on: ATen's vectorised kernels use the
widest instructions the CPU has (AVX2, or AVX-512 where there is one), and MKL's matrix
products choose their own code path. Each choice sums in its own order, so the same training
run ends a few hundredths of a loss apart on two machines. The book pins both to AVX2, which
every x86 CPU of the last decade has, and which costs nothing measurable on an AVX-512 one.

:func:`pin` runs when this module is imported, which ``selfattn`` does before it imports torch.
Both settings are environment variables read once, at torch's first operation and MKL's first
call, so a variable the reader set already wins, and a program that computes with torch before
importing ``selfattn`` keeps the CPU's own choice (:func:`check` warns about that).
"""

from __future__ import annotations

import os
import platform
import warnings

# ATen's kernels (default, avx2 or avx512) and MKL's conditional numerical reproducibility branch
# (Intel's documentation: a branch other than AUTO or COMPATIBLE applies to Intel processors; on
# others MKL takes its AUTO branch, still in reproducible mode).
PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"}


def pin() -> None:
    """Ask torch for the book's kernels, unless the environment already names others."""
    for name, value in PINNED.items():
        os.environ.setdefault(name, value)


def check(running: str | None = None) -> None:
    """Warn when torch on an x86 CPU computes with other kernels (``running``, by default the
    ones torch chose) than the book's."""
    import torch

    wanted = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    running = running or torch.backends.cpu.get_cpu_capability()
    if platform.machine().lower() in ("x86_64", "amd64") and wanted == "AVX2" and running != wanted:
        warnings.warn(
            f"PyTorch computes with its {running} kernels, not the AVX2 ones the book's numbers come "
            "from (torch ran before selfattn was imported, or this CPU has no AVX2), so losses may "
            "differ from the book's in the second decimal. Import selfattn before using torch.",
            stacklevel=2,
        )


pin()
