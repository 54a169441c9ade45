"""The README and CONTRIBUTING.md render as written: every link within the repository reaches a
file and a heading, every table row has its header's cells, and the README's time budgets are the
ones ``python -m benchmarks.build_time`` holds the build to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.build_time import BUDGETS_S
from bookbuild import ROOT

DOCS = ["README.md", "CONTRIBUTING.md"]


def prose_lines(path: Path) -> list[str]:
    """The file's lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the file's headings: lower case, punctuation dropped, spaces as
    hyphens, a repeated one numbered."""
    seen: dict[str, int] = {}
    for line in prose_lines(path):
        heading = re.match(r"#{1,6} (.+)", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            seen[slug] = seen.get(slug, -1) + 1
    return {f"{slug}-{n}" if n else slug for slug, count in seen.items() for n in range(count + 1)}


def cells(row: str) -> list[str]:
    """A table row's cells (inline code may hold a bar)."""
    row = re.sub(r"`[^`]*`", "code", row.strip())
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]]


def tables(path: Path) -> list[list[str]]:
    """Each table of the file, as its rows."""
    found: list[list[str]] = []
    previous = ""
    for line in prose_lines(path):
        if line.startswith("|"):
            if not previous.startswith("|"):
                found.append([])
            found[-1].append(line)
        previous = line
    return found


@pytest.mark.parametrize("name", DOCS)
def test_every_link_within_the_repository_reaches_a_file_and_its_heading(name):
    links = [
        target
        for line in prose_lines(ROOT / name)
        for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line))
        if not re.match(r"[a-z]+:", target)
    ]
    for target in links:
        file, _, anchor = target.partition("#")
        path = (ROOT / name).parent / file if file else ROOT / name
        assert path.is_file(), f"{name} links to {target}, which is not in the repository"
        assert not anchor or anchor in anchors(path), f"{name}: {target} names no heading of {path.name}"
    if name == "README.md":
        assert "CONTRIBUTING.md" in links, "the README links CONTRIBUTING.md"


@pytest.mark.parametrize("name", DOCS)
def test_every_table_row_has_its_header_s_cells(name):
    found = tables(ROOT / name)
    assert found
    for rows in found:
        header, rule, *body = rows
        assert set(rule.replace("|", "").split()) <= {"---", ":---", "---:", ":---:"}, rule
        widths = {len(cells(row)) for row in [rule, *body]}
        assert widths == {len(cells(header))}, f"{name}: a table under {header!r} has rows of {widths} cells"


def test_the_readme_budgets_are_the_ones_build_time_holds():
    """One row per step that ``benchmarks.build_time`` times, its budget as the script has it, and a
    column for the last measured figure."""
    (budgets,) = [rows for rows in tables(ROOT / "README.md") if "budget" in cells(rows[0])]
    assert cells(budgets[0]) == ["what", "budget", "last measured"]
    rows = [cells(row.replace("`", "")) for row in budgets[2:]]
    assert len(rows) == len(BUDGETS_S), [row[0] for row in rows]
    for step, seconds in BUDGETS_S.items():
        (row,) = [row for row in rows if row[0].startswith(step)]
        stated = {f"{seconds:g} s", f"{seconds / 60:g} min"}
        assert row[1] in stated, f"README: {step} within {row[1]}, build_time: within {seconds:g} s"
        assert row[2], f"README: {step} has no last measured figure"


def test_the_readme_names_every_module_of_the_package():
    """The list of the package's modules in the README leaves none out, and names none that is gone."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = text.split("The package's modules (`code/selfattn/`)", 1)[1].split("\n\n", 2)[1]
    package = ROOT / "code" / "selfattn"
    modules = {path.stem for path in package.glob("*.py") if not path.stem.startswith("__")}
    named = set(re.findall(r"`(\w+)`", listed))
    described = set(re.findall(r"`(\w+)`\s+\(", listed))  # a module's name, then what it holds
    assert sorted(modules - named) == [], "modules the README's list leaves out"
    assert sorted(described - modules) == [], "names in the README's list that are no module"
    assert (package / "figures").is_dir() and "`figures/`" in listed
