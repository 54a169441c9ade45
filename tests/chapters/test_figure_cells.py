"""One rule for the code that draws a figure: it sits behind "show code" (``hide-input``), as the
build's bookkeeping sits out of sight, so that the visible cells are the ones that teach. The one
exception is the plot after a cell a reader edits in live mode (a "# Hyperparameters" cell): the
reader runs that plot again, so its run button stays in view."""

from __future__ import annotations

import re

import pytest

from bookbuild import ROOT

CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.S | re.M)
DRAWS = re.compile(r"\bplt\.subplots\(|\bplt\.figure\(")


def tags(cell: str) -> set[str]:
    """The cell's tags, from its ``:tags: [...]`` line."""
    found = re.search(r"^:tags: \[(.*?)\]", cell, re.M)
    return {tag.strip() for tag in found.group(1).split(",")} if found else set()


def figure_cell_problems(source: str) -> list[str]:
    """Each cell that draws a figure but shows its code, or hides the plot a live reader re-runs
    (the first visible cell after a "# Hyperparameters" cell), by the line it starts on."""
    problems, rerun = [], False
    for cell in CELL.finditer(source):
        body, line = cell.group(1), source[: cell.start()].count("\n") + 1
        if "remove-cell" in tags(body):
            continue
        hidden = "hide-input" in tags(body)
        if DRAWS.search(body) and rerun and hidden:
            problems.append(f"line {line}: the plot after a live cell hides its run button")
        if DRAWS.search(body) and not rerun and not hidden:
            problems.append(f"line {line}: a figure's code is shown")
        rerun = re.sub(r"^:tags:.*\n\n?", "", body, flags=re.M).startswith("# Hyperparameters")
    return problems


@pytest.mark.parametrize("page", sorted(path.stem for path in (ROOT / "book").glob("*.md")))
def test_a_figure_s_code_is_behind_show_code(page):
    problems = figure_cell_problems((ROOT / "book" / f"{page}.md").read_text(encoding="utf-8"))
    assert not problems, f"book/{page}.md: " + "; ".join(problems)


def test_the_check_sees_shown_figure_code_and_a_hidden_rerun_plot():
    figure = "```{code-cell} ipython3\n:tags: [remove-output]\n\nfig, ax = plt.subplots()\n```\n"
    hidden = figure.replace("[remove-output]", "[hide-input, remove-output]")
    live = "```{code-cell} ipython3\n# Hyperparameters: change them\nconfig = BIGRAM\n```\n"
    assert figure_cell_problems(hidden) == []
    assert figure_cell_problems(live + figure) == []
    assert "is shown" in figure_cell_problems(figure)[0]
    assert "run button" in figure_cell_problems(live + hidden)[0]
    glued = "```{code-cell} ipython3\n:tags: [remove-cell]\n\nfig = plt.figure()\n```\n"
    assert figure_cell_problems(glued) == []
