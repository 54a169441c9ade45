"""Execute the book's chapters again and check that they print the same text every time.

A reader who compares the PDF with the site, or two printings of the book, should find the same
words and numbers. This script executes each chapter in a fresh kernel (one torch thread per
kernel, ``OMP_NUM_THREADS=1``) and compares the text of every code cell's outputs between two
executions: the printed streams (consecutive pieces of one stream joined, as the page shows them),
``text/plain`` of displayed values, error messages, and glued values as the pages show them
(through each ``{glue:text}`` format that uses them; in full if used otherwise or not at all).
Only lines that match one of the timing patterns declared in ``TIMINGS``, and glued values named
``timed_...`` (``TIMED_GLUE``), may differ.

    .venv/bin/python -m bookbuild.check_determinism                  # every chapter, executed twice
    .venv/bin/python -m bookbuild.check_determinism exercises        # one chapter (or book/exercises.md)
    .venv/bin/python -m bookbuild.check_determinism --against-build  # once, against the build's cache

``--against-build`` reuses work: each chapter is executed once and compared with the outputs the
last ``jupyter-book build`` stored in ``_build/.jupyter_cache`` (a chapter changed since then is
reported as not built). Chapters run in parallel, ``--jobs`` at a time (default: the CPU count).
The exit status is 1 if any chapter's text differs, 2 if a chapter could not be compared.
"""

from __future__ import annotations

import argparse
import difflib
import multiprocessing
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from _ext.content.joined_streams import joined
from bookbuild import BUILD_RUNS, EXECUTION_CACHE, ROOT
from bookbuild.execute import notebooks_in_toc, run_notebook
from selfattn.run_cache import RUN_CACHE_ENV

BOOK = ROOT / "book"
NOT_BUILT = "no cached execution of this source: build the book first (jupyter-book build .)"

# The only output lines allowed to differ between two executions: wall-clock timings, each
# declared once with the cell that prints it. A line that matches one in full is compared as
# "<timing: name>", so it must still be there, in the same place.
# Training times come from a run's History (selfattn.training); with the run cache (make test sets
# it, and so does this tool) a cached run reports the time it trained in, so they differ only
# between two fresh trainings.
TIMINGS = {
    # "<which run>: trained for 12.3 s" on a line of its own: attention-model.md's run, the Part IV
    # chapters' runs and their "Try it" cells (the label holds no digits, so no number hides in it)
    "training time": re.compile(r"[A-Za-z][A-Za-z ,+-]*: trained for \d+\.\d s"),
    # attention-model.md, "Try it": the reader's own run's wall time
    "try-it run": re.compile(r"\d+ steps in \d+\.\d s"),
    # kv-cache.md: how long writing took, "<how>: 256 tokens in 0.52 s" and, for the cached run,
    # ", 19.8x faster" after it (the label holds no digits)
    "generation time": re.compile(r"[A-Za-z][A-Za-z_ ,()-]*: \d+ tokens in \d+\.\d+ s(, \d+\.\dx faster)?"),
    # attention-cost.md: "<what ran>: 1.234 ms per forward" on a line of its own, one attention
    # forward's median wall time (the label holds no digits, so no number hides in it)
    "forward time": re.compile(r"[A-Za-z][A-Za-z' ,-]*: \d+\.\d+ ms per forward"),
    # attention-cost.md, "Two reasons, apart": the tiled loop's time over the book's, with and
    # without the mask ("the tiled loop took 0.47 times the book's time, 0.18 with the mask")
    "tiled ratio": re.compile(r"the tiled loop took \d+\.\d+ times the book's time, \d+\.\d+ with the mask"),
    # beyond-one-machine.md: one training step's median wall time in each precision
    "step time": re.compile(r"(float32|bfloat16 autocast): \d+\.\d ms a step"),
    # byte-pairs.md: learning merges, the plain way ("the plain way: 0.61 s a merge, about 3 min
    # for 256") and the book's ("the book's way: 256 merges in 0.9 s")
    "merge time": re.compile(
        r"the plain way: \d+\.\d+ s a merge, about \d+ min for 256|the book's way: 256 merges in \d+\.\d s"
    ),
}
# Glued values that are wall-clock measurements (the times and ratios of them that kv-cache.md,
# attention-cost.md and beyond-one-machine.md report in their prose) are named with this prefix:
# each must be glued in both executions, its value may differ.
TIMED_GLUE = "timed_"


@dataclass
class Cell:
    """One code cell's outputs as text, ready to compare."""

    index: int  # position among the chapter's code cells, from 0
    first_line: str  # the first line of its source, to find it in the chapter
    text: list[str]
    timings: int = 0  # lines that matched a declared timing pattern


@dataclass
class Report:
    chapter: str
    seconds: list[float] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    problem: str = ""  # why the chapter could not be compared
    timings: int = 0


def chapter_path(name: str) -> Path:
    path = Path(name)
    for candidate in (path, ROOT / path, BOOK / path, BOOK / f"{name}.md"):
        if candidate.is_file():
            return candidate.resolve()
    raise SystemExit(f"no chapter {name!r}: give a name (exercises) or a path (book/exercises.md)")


def shown_path(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def read(path: Path):
    import jupytext

    return jupytext.read(path, fmt="md:myst")


def execute(path: Path):
    """The chapter executed in a fresh kernel, as the book build runs it (``bookbuild.execute``)."""
    nb = read(path)
    run_notebook(nb, path.parent)
    return nb


def cached(path: Path):
    """The outputs the last book build stored for the chapter's current source, or None."""
    from jupyter_cache import get_cache

    if not EXECUTION_CACHE.is_dir():
        return None
    cache = get_cache(EXECUTION_CACHE)
    try:
        record = cache.match_cache_notebook(read(path))
    except KeyError:
        return None
    return cache.get_cache_bundle(record.pk).nb


def expected_seconds(path: Path) -> float:
    """How long the last book build took to execute the chapter (0 if unknown): longest first."""
    from jupyter_cache import get_cache

    if not EXECUTION_CACHE.is_dir():
        return 0.0
    records = [r for r in get_cache(EXECUTION_CACHE).list_cache_records() if Path(r.uri) == path]
    return max((r.data.get("execution_seconds", 0.0) for r in records), default=0.0)


def cell_lines(path: Path) -> list[int]:
    """The line of each code cell in the chapter's source, from 1."""
    lines = path.read_text("utf-8").splitlines()
    return [n for n, line in enumerate(lines, 1) if line.startswith("```{code-cell}")]


GLUE = "application/papermill.record/"  # the data of a value glued with display=False


def hidden(output) -> bool:
    """A glued value with display=False: kept for {glue} in the prose, not shown by its cell."""
    data = output.get("data", {})
    return bool(data) and all(mime.startswith(GLUE) for mime in data)


def join_streams(outputs: list) -> list:
    """The outputs a cell shows, with consecutive pieces of one stream joined into one, as the
    page shows them (_ext/content/joined_streams.py); hidden glued values neither show nor separate."""
    return joined(
        [output for output in outputs if not hidden(output)],
        lambda output: output["name"] if output["output_type"] == "stream" else None,
        lambda first, second: {**first, "text": first["text"] + second["text"]},
    )


GLUE_TEXT = re.compile(r"\{glue:text\}`([^`]+)`")
GLUE_OTHER = re.compile(r"\{glue(?::(?!text\})\w*)?\}`([^`]+)`|^\s*[`:]{3,}\{glue(?::\w+)?\}\s+(\S+)", re.M)


@cache
def glue_uses() -> dict[tuple[str, str], frozenset]:
    """How the book shows each glued value: (chapter, name) -> the format specs of its
    ``{glue:text}`` roles, with None for any other use (shown as stored)."""
    uses: dict[tuple[str, str], set] = {}

    def use(page: str, key: str, fmt: str | None) -> None:
        doc, _, name = key.rpartition("::")
        uses.setdefault((Path(doc).stem if doc else page, name), set()).add(fmt)

    for path in BOOK.glob("*.md"):
        text = path.read_text("utf-8")
        for match in GLUE_TEXT.finditer(text):  # key:format, as MyST-NB splits it
            key, fmt = match.group(1).rsplit(":", 1) if ":" in match.group(1) else (match.group(1), "s")
            use(path.stem, key, fmt)
        for match in GLUE_OTHER.finditer(text):
            use(path.stem, match.group(1) or match.group(2), None)
    return {key: frozenset(formats) for key, formats in uses.items()}


def glued_text(chapter: str, name: str, plain: str) -> str:
    """A hidden glued value as the book's pages show it: formatted by each ``{glue:text}`` that
    uses it (the digits a format drops are not on any page), or as stored if used otherwise or
    not at all."""
    from myst_nb.core.variables import format_plain_text

    formats = glue_uses().get((Path(chapter).stem, name), frozenset({None}))
    return "\n".join(
        plain if fmt is None else f"{{glue:text}} {fmt}: {format_plain_text(plain, fmt)}"
        for fmt in sorted(formats, key=str)
    )


def output_text(output, chapter: str = "") -> str:
    kind = output["output_type"]
    if kind == "stream":
        return f"[{output['name']}]\n{output['text']}"
    if kind == "error":
        return f"[error] {output['ename']}: {output['evalue']}"
    data = output.get("data", {})
    glued = output.get("metadata", {}).get("scrapbook", {}).get("name")
    if hidden(output) and (glued or "").startswith(TIMED_GLUE):
        return f"[glue {glued}]\n<timing: glued>"
    if hidden(output):
        return f"[glue {glued}]\n{glued_text(chapter, glued, data.get(GLUE + 'text/plain', ''))}"
    text = data.get("text/plain", "(no text/plain)")
    return f"[glue {glued}]\n{text}" if glued else f"[{kind}]\n{text}"


def untimed(text: str) -> tuple[str, int]:
    """``text`` with each line that matches a declared timing replaced by the timing's name."""
    lines, count = [], 0
    for line in text.split("\n"):
        name = next((name for name, pattern in TIMINGS.items() if pattern.fullmatch(line)), None)
        count += name is not None
        lines.append(f"<timing: {name}>" if name else line)
    return "\n".join(lines), count


def cells(nb, chapter: str = "") -> list[Cell]:
    """The text of each code cell's outputs in ``chapter`` (its path: which glued values it shows)."""
    found = []
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    for index, cell in enumerate(code):
        texts, timings = [], 0
        outputs = cell.get("outputs", [])
        for output in join_streams(outputs) + [output for output in outputs if hidden(output)]:
            text, count = untimed(output_text(output, chapter))
            texts.append(text)
            timings += count
        source = cell.source.strip().splitlines()
        first = source[0] if source else ""
        found.append(Cell(index, first, texts, timings))
    return found


def compare(chapter: str, first, second, labels: tuple[str, str], lines: list[int] = ()) -> list[str]:
    """A description of every code cell whose outputs' text differs between two executions
    (``lines``: where each code cell starts in the chapter's source)."""
    a, b = cells(first, chapter), cells(second, chapter)
    if len(a) != len(b):
        return [f"{chapter}: {len(a)} code cells in {labels[0]}, {len(b)} in {labels[1]}"]
    differences = []
    for x, y in zip(a, b, strict=True):
        if x.text != y.text:
            diff = difflib.unified_diff(
                "\n".join(x.text).splitlines(),
                "\n".join(y.text).splitlines(),
                labels[0],
                labels[1],
                lineterm="",
                n=1,
            )
            shown = list(diff)
            if len(shown) > 40:
                shown = [*shown[:40], f"... ({len(shown) - 40} more diff lines)"]
            where = f"line {lines[x.index]}, " if x.index < len(lines) else ""
            differences.append(
                f"{chapter}, {where}code cell {x.index + 1} ({x.first_line!r}):\n    " + "\n    ".join(shown)
            )
    return differences


def run_once(path: str) -> tuple[str, float, str, str]:
    """Worker: execute one chapter; returns (chapter, seconds, notebook as JSON, error text)."""
    import nbformat

    os.environ["OMP_NUM_THREADS"] = "1"  # this worker's kernel: one torch thread
    os.environ.setdefault(RUN_CACHE_ENV, str(BUILD_RUNS))  # as the build trained
    start = time.perf_counter()
    try:
        nb = execute(Path(path))
    except Exception as error:  # a cell failed or timed out: report it, go on with the others
        return path, time.perf_counter() - start, "", f"{type(error).__name__}: {str(error)[-2000:]}"
    return path, time.perf_counter() - start, nbformat.writes(nb), ""


def check(
    paths: list[Path], runs: int = 2, against_build: bool = False, jobs: int | None = None
) -> list[Report]:
    """Execute every chapter ``runs`` times (once with ``against_build``) and compare the texts."""
    import nbformat

    reports = {str(path): Report(shown_path(path)) for path in paths}
    executions: dict[str, list] = {str(path): [] for path in paths}
    references: dict[str, object] = {}
    if against_build:
        runs = 1
        for path in paths:
            reference = cached(path)
            if reference is None:
                reports[str(path)].problem = NOT_BUILT
            else:
                references[str(path)] = reference
    ready = [path for path in paths if not reports[str(path)].problem]
    tasks = [str(path) for path in sorted(ready, key=expected_seconds, reverse=True) for _ in range(runs)]
    spawn = multiprocessing.get_context("spawn")  # fresh workers, whatever threads the caller runs
    workers = ProcessPoolExecutor(jobs or os.cpu_count() or 1, mp_context=spawn)
    with workers as pool:
        futures = [pool.submit(run_once, task) for task in tasks]
        for future in as_completed(futures):
            path, seconds, notebook, error = future.result()
            report = reports[path]
            report.seconds.append(seconds)
            if error:
                report.problem = error
            else:
                executions[path].append(nbformat.reads(notebook, as_version=4))
    for path, report in reports.items():
        if report.problem:
            continue
        if against_build:
            pair, labels = (references[path], executions[path][0]), ("build", "re-run")
        else:
            pair, labels = executions[path][:2], ("run 1", "run 2")
        report.differences = compare(report.chapter, *pair, labels, cell_lines(Path(path)))
        report.timings = sum(cell.timings for cell in cells(pair[1], report.chapter))
    return list(reports.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapter names or paths (default: every chapter)")
    parser.add_argument(
        "--against-build",
        action="store_true",
        help="execute once and compare with the last book build's cached outputs",
    )
    parser.add_argument("--jobs", type=int, default=None, help="kernels at a time (default: CPU count)")
    args = parser.parse_args(argv)
    paths = [chapter_path(name) for name in args.chapters] or notebooks_in_toc()
    start = time.perf_counter()
    reports = check(paths, against_build=args.against_build, jobs=args.jobs)
    status = 0
    for report in reports:
        times = ", ".join(f"{s:.0f} s" for s in report.seconds)
        if report.problem:
            print(f"NOT COMPARED  {report.chapter}: {report.problem}")
            status = max(status, 2)
        elif report.differences:
            print(f"DIFFERS       {report.chapter} ({times})")
            for difference in report.differences:
                print("  " + difference.replace("\n", "\n  "))
            status = max(status, 1)
        else:
            ignored = f", {report.timings} timing line(s) ignored" if report.timings else ""
            print(f"same          {report.chapter} ({times}{ignored})")
    print(f"{len(reports)} chapter(s) in {time.perf_counter() - start:.0f} s wall time")
    return status


if __name__ == "__main__":
    sys.exit(main())
