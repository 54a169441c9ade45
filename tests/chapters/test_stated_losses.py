"""Every loss the README, CONTRIBUTING.md and the scripts' docstrings state for the book's runs is
the loss those runs end at, to the digits shown, and the scripts print what the book's runs end at.

The chapters glue their losses from executed cells; these documents type theirs, so they are held
here. The runs come from the build's run cache (the book tier trains them once).
"""

from __future__ import annotations

import re

import pytest

from benchmarks.cpu_kernels import RUNS as BENCHMARKED
from bookbuild import ROOT
from selfattn import ATTENTION, BIGRAM, fit
from selfattn.runs import LADDER
from tests.helpers import script

# What each script trains when it is given no flags, by its name in the documents.
SCRIPTS = {"01_bigram.py": ("bigram", BIGRAM), "02_attention.py": ("attention", ATTENTION)}
# Every run a document may state a loss for: the scripts' and Part IV's ladder below GPU scale.
RUNS = {kind: (kind, config) for kind, config in SCRIPTS.values()} | {
    name: (rung.kind, rung.config) for name, rung in LADDER.items() if name != "lecture"
}
README = (ROOT / "README.md").read_text(encoding="utf-8")
CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
KERNEL_TABLE_HEADER = "| run | the book's (AVX2) |"


def stated() -> list[tuple[str, str, str]]:
    """(where, run, loss as typed) for every loss the documents state for a run of the book."""
    found = []
    for name, (run, _) in SCRIPTS.items():
        command = re.search(rf"code/{re.escape(name)}\s+#[^\n]*val loss about (\d\.\d+)\n", README)
        assert command, f"the README's command for {name} states its val loss"
        found.append((f"README, {name}", run, command.group(1)))
        docstring = (ROOT / "code" / name).read_text(encoding="utf-8").split('"""')[1]
        said = re.search(r"val loss about (\d\.\d+)\.", " ".join(docstring.split()))
        assert said, f"{name}'s docstring states its val loss"
        found.append((f"{name}'s docstring", run, said.group(1)))
    table = CONTRIBUTING.split(KERNEL_TABLE_HEADER, 1)[1].split("\n\n", 1)[0]
    for row in re.finditer(r"^\| ([\w-]+) \| (\d\.\d+) \|", table, flags=re.M):
        found.append(("CONTRIBUTING's kernel table", row.group(1), row.group(2)))
    return found


def final_val(run: str) -> float:
    kind, config = RUNS[run]
    return fit(kind, config)[1].final_val


def test_the_documents_state_losses_for_both_scripts_and_every_rung_of_the_kernel_table():
    runs = [run for _, run, _ in stated()]
    assert runs.count("bigram") == 3 and runs.count("attention") == 3
    assert set(runs) == set(BENCHMARKED) <= set(RUNS), "the kernel table: a row for each run it trains"


@pytest.mark.book
@pytest.mark.parametrize(("where", "run", "loss"), stated(), ids=lambda v: str(v).replace(" ", "-"))
def test_each_stated_loss_is_the_runs_to_the_digits_shown(built_book, where, run, loss):
    digits = len(loss.split(".")[1])
    assert f"{final_val(run):.{digits}f}" == loss, f"{where} says {run} ends at {loss}"


@pytest.mark.book
def test_the_bigram_script_prints_the_books_final_loss(built_book):
    result = script("01_bigram.py", "--sample-tokens", "1")
    assert result.returncode == 0, result.stderr
    printed = re.search(r"final val loss (\d\.\d{4})", result.stdout).group(1)
    assert printed == f"{final_val('bigram'):.4f}"
