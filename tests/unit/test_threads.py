"""One thread for the book's small models; every core only for work large enough to use them."""

from __future__ import annotations

import subprocess
import sys

import torch

from selfattn.threads import ALL_CORES, SMALL_WORK, threads_for


def test_importing_the_package_sets_one_thread():
    code = "import torch; n = torch.get_num_threads(); import selfattn; print(n, torch.get_num_threads())"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    before, after = shown.split()
    assert int(after) == 1 and int(before) == ALL_CORES


def test_small_work_stays_on_one_thread_and_large_work_gets_every_core():
    torch.set_num_threads(1)
    with threads_for(32, 8, 32):
        assert torch.get_num_threads() == 1
    with threads_for(SMALL_WORK, 2, 1):
        assert torch.get_num_threads() == ALL_CORES
    assert torch.get_num_threads() == 1, "the count is restored afterwards"
