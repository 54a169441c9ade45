"""The CPU kernels the book computes with: pinned when selfattn is imported, a reader's choice kept."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from selfattn.arithmetic import PINNED, check

X86_AVX2 = platform.machine().lower() in ("x86_64", "amd64") and " avx2" in (
    Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
)
# A sum whose order of additions depends on the vector width of ATen's kernels (and on the number
# of threads, so one, as the package sets).
SUM = (
    "import torch; torch.set_num_threads(1); "
    "print(torch.randn(100_003, generator=torch.Generator().manual_seed(0)).sum().item())"
)
KERNELS = "import os, selfattn, torch; print(os.environ['MKL_CBWR'], torch.backends.cpu.get_cpu_capability())"


def run(code: str, **env: str) -> str:
    """``code`` in a fresh interpreter, with the kernel settings taken out of its environment."""
    clean = {name: value for name, value in os.environ.items() if name not in PINNED}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.skipif(not X86_AVX2, reason="the book pins AVX2 kernels, which this CPU does not have")
def test_importing_the_package_pins_the_books_kernels():
    shown = run(
        "import os, selfattn, torch; print(os.environ['MKL_CBWR'], torch.backends.cpu.get_cpu_capability())"
    )
    assert shown == "AVX2 AVX2"
    pinned = run("import selfattn\n" + SUM)
    assert pinned == run(SUM, ATEN_CPU_CAPABILITY="avx2"), "the same sum as with AVX2 kernels asked for"
    assert pinned != run(SUM, ATEN_CPU_CAPABILITY="default"), "other kernels sum in another order"


def test_a_readers_own_setting_wins_and_is_not_warned_about():
    code = "import selfattn, torch; print(torch.backends.cpu.get_cpu_capability())"
    assert (
        run("import warnings; warnings.simplefilter('error')\n" + code, ATEN_CPU_CAPABILITY="default")
        == "DEFAULT"
    )


def test_other_kernels_than_the_books_are_warned_about(monkeypatch):
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
    if platform.machine().lower() in ("x86_64", "amd64"):
        with pytest.warns(UserWarning, match="AVX512 kernels, not the AVX2 ones"):
            check(running="AVX512")
