"""The package's errors show as one clear line in IPython; other errors keep their traceback."""

from __future__ import annotations

import re

import pytest
from IPython.core.interactiveshell import InteractiveShell

from selfattn import ConfigError, TrainConfig


def plain(text: str) -> str:
    """Terminal text without its colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


@pytest.fixture
def shell():
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "selfattn.notebook_errors")
    yield ip
    ip.run_line_magic("unload_ext", "selfattn.notebook_errors")


def test_a_bad_hyperparameter_prints_one_line(shell, capsys):
    with pytest.raises(ConfigError) as expected:
        TrainConfig(max_iters=-5)
    result = shell.run_cell("from selfattn import TrainConfig\nTrainConfig(max_iters=-5)")
    assert isinstance(result.error_in_exec, ConfigError), "the cell still fails"
    shown = plain(capsys.readouterr().out).strip()
    assert shown.endswith(f"ConfigError: {expected.value}")
    assert len(shown.splitlines()) == 1 and "Traceback" not in shown


@pytest.mark.parametrize(
    "cell",
    [
        "from selfattn import TrainConfig\nTrainConfig(learnig_rate=1e-3)",
        "from selfattn import TrainConfig\nTrainConfig(seed=2**64)",
        "import torch\nfrom selfattn import get_batch\nget_batch(torch.arange(5), 4, 8, torch.Generator())",
        "from selfattn import CharTokenizer\nCharTokenizer('abc').encode('abz')",
    ],
    ids=["misspelled field", "unusable seed", "context longer than the data", "unknown character"],
)
def test_reader_mistakes_print_one_line(shell, capsys, cell):
    result = shell.run_cell(cell)
    assert isinstance(result.error_in_exec, ConfigError)
    shown = plain(capsys.readouterr().out).strip()
    assert shown == f"ConfigError: {result.error_in_exec}"


def test_a_data_error_prints_one_line(shell, capsys):
    result = shell.run_cell("from selfattn import DataError\nraise DataError('set SELFATTN_DATA_MIRROR')")
    assert result.error_in_exec is not None
    shown = plain(capsys.readouterr().out).strip()
    assert shown.endswith("DataError: set SELFATTN_DATA_MIRROR") and len(shown.splitlines()) == 1


def test_other_errors_keep_their_traceback(shell, capsys):
    shell.run_cell("def f():\n    return 1 / 0\nf()")
    shown = plain(capsys.readouterr().out)
    assert "ZeroDivisionError" in shown and "return 1 / 0" in shown


def test_unloading_restores_tracebacks(shell, capsys):
    shell.run_line_magic("unload_ext", "selfattn.notebook_errors")
    try:
        shell.run_cell("from selfattn import TrainConfig\nTrainConfig(max_iters=-5)")
        shown = plain(capsys.readouterr().out)
        assert "Traceback" in shown and len(shown.splitlines()) > 3
    finally:
        shell.run_line_magic("load_ext", "selfattn.notebook_errors")
