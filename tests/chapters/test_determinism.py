"""The same text in every printing: executions of a chapter print the same words and numbers.

Without executing anything: the comparison of ``bookbuild/check_determinism.py`` finds a changed
number and names the cell, ignores only the declared timings and the places where the kernel
happened to cut a stream, and reads hidden glued values too. On a page built by Jupyter Book,
pieces of one printed line show as one line (``_ext/content/joined_streams.py``).

Executing: one more execution of every chapter prints the text of the book build (its cached
outputs), the build's execution standing for the first of two.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from bookbuild import ROOT
from bookbuild import check_determinism as determinism
from tests.helpers import code_blocks


def stdout(*pieces: str) -> list:
    return [new_output("stream", name="stdout", text=piece) for piece in pieces]


def glued(name: str, value: str, display: bool = False):
    prefix = "" if display else determinism.GLUE
    metadata = {"scrapbook": {"name": name, "mime_prefix": prefix}}
    return new_output("display_data", data={prefix + "text/plain": value}, metadata=metadata)


def notebook(*cells: list) -> nbformat.NotebookNode:
    return new_notebook(cells=[new_code_cell("x = 1\nprint(x)", outputs=outputs) for outputs in cells])


def test_a_changed_number_is_reported_with_its_cell():
    first = notebook(stdout("rank 6\n"), stdout("error 1.3e-13\n"))
    second = notebook(stdout("rank 6\n"), stdout("error 1.5e-13\n"))
    (difference,) = determinism.compare("book/x.md", first, second, ("run 1", "run 2"), [12, 40])
    assert difference.startswith("book/x.md, line 40, code cell 2 ('x = 1'):")
    assert "-error 1.3e-13" in difference and "+error 1.5e-13" in difference
    assert determinism.compare("book/x.md", first, first, ("a", "b")) == []
    fewer = notebook(stdout("rank 6\n"))
    assert determinism.compare("book/x.md", first, fewer, ("a", "b")) == [
        "book/x.md: 2 code cells in a, 1 in b"
    ]


def test_where_the_kernel_cut_a_stream_does_not_count():
    """The kernel sends printed text in pieces on a timer: the same line may arrive cut in two."""
    whole = notebook(stdout("rows sum to 1: True\nabove the diagonal: 0.0\n"))
    cut = notebook(stdout("rows sum to 1:", " True\nabove the diagonal: 0.0", "\n"))
    assert determinism.compare("book/x.md", whole, cut, ("a", "b")) == []
    across_hidden_glue = notebook(stdout("a: 1\n") + [glued("a", "1")] + stdout("b: 2\n"))
    joined = notebook(stdout("a: 1\nb: 2\n") + [glued("a", "1")])
    assert determinism.compare("book/x.md", across_hidden_glue, joined, ("a", "b")) == []
    # a shown value between two prints keeps them apart, as on the page
    shown = new_output("display_data", data={"text/plain": "<figure>"})
    apart = notebook(stdout("a\n") + [shown] + stdout("b\n"))
    together = notebook(stdout("a\nb\n") + [shown])
    assert determinism.compare("book/x.md", apart, together, ("a", "b")) != []


def test_glued_values_and_displayed_text_are_compared():
    first = notebook([glued("toy_error", "2.6e-13")], [glued("shown", "0.15", display=True)])
    for changed in (
        notebook([glued("toy_error", "4.5e-13")], [glued("shown", "0.15", display=True)]),
        notebook([glued("toy_error", "2.6e-13")], [glued("shown", "0.16", display=True)]),
    ):
        (difference,) = determinism.compare("book/x.md", first, changed, ("a", "b"))
        assert "[glue " in difference


def test_glued_values_are_compared_as_the_pages_show_them():
    """bigram.md shows counted_train as {glue:text}`counted_train:.3f`: digits past the third decimal
    (which one torch thread and two compute differently) are on no page; the third is."""
    assert determinism.glue_uses()[("bigram", "counted_train")] == {".3f"}
    one_thread, two_threads = "2.45457124710083", "2.454571485519409"
    assert determinism.glued_text("book/bigram.md", "counted_train", one_thread) == "{glue:text} .3f: 2.455"

    def run(value: str) -> nbformat.NotebookNode:
        return notebook([glued("counted_train", value)])

    assert determinism.compare("book/bigram.md", run(one_thread), run(two_threads), ("a", "b")) == []
    (difference,) = determinism.compare("book/bigram.md", run(one_thread), run("2.4541"), ("a", "b"))
    assert "-{glue:text} .3f: 2.455" in difference and "+{glue:text} .3f: 2.454" in difference
    # used from another page too (six-steps.md: bigram.md::bigram_val:.2f): every page's format counts
    assert determinism.glue_uses()[("bigram", "bigram_val")] >= {".2f", ".3f"}
    # a value no page shows is compared in full
    assert determinism.glued_text("book/bigram.md", "not_on_any_page", one_thread) == one_thread


def test_only_the_declared_timings_may_differ():
    assert len(determinism.TIMINGS) == 7, "declare each timing once, with the cell that prints it"
    first = notebook(
        stdout(
            "the attention run: trained for 12.3 s\n500 steps in 1.2 s\n"
            "generate: 256 tokens in 10.31 s\nwith the cache: 256 tokens in 0.52 s, 19.8x faster\n"
            "SDPA: 0.052 ms per forward\nfloat32: 9.1 ms a step\nbfloat16 autocast: 31.2 ms a step\n"
            "the tiled loop took 0.32 times the book's time, 0.09 with the mask\n"
            "the plain way: 0.61 s a merge, about 3 min for 256\nthe book's way: 256 merges in 0.9 s\n"
        )
    )
    second = notebook(
        stdout(
            "the attention run: trained for 31.0 s\n500 steps in 10.9 s\n"
            "generate: 256 tokens in 9.02 s\nwith the cache: 256 tokens in 0.61 s, 14.8x faster\n"
            "SDPA: 0.170 ms per forward\nfloat32: 12.7 ms a step\nbfloat16 autocast: 43.9 ms a step\n"
            "the tiled loop took 0.47 times the book's time, 0.18 with the mask\n"
            "the plain way: 1.20 s a merge, about 5 min for 256\nthe book's way: 256 merges in 1.6 s\n"
        )
    )
    assert determinism.compare("book/x.md", first, second, ("a", "b")) == []
    assert [cell.timings for cell in determinism.cells(first)] == [10]
    for line in (
        "val loss 2.4123 after 5000 steps",  # a number that must not change
        "the attention run: trained for 12.3 s, val loss 2.41",  # more than the timing
        "4 heads: trained for 12.3 s",  # a number in the label
        "500 steps in 1.2 s (val loss 2.50)",
        "generate: 256 tokens in 10.31 s, same ids: True",
        "2 layers: 256 tokens in 10.31 s",
        "tiled, tile 64: 1.23 ms per forward",  # a number in the label
        "SDPA: 1.23 ms per forward, 2.10 MB",
        "float16: 9.1 ms a step",  # not a label the chapter prints
        "float32: 9.1 ms a step, val loss 2.41",
        "the tiled loop took 0.32 times the book's time, 0.09 with the mask at T = 4096",
        "the plain way: 0.61 s a merge, about 3 min for 512",  # not the count the chapter prints
        "the book's way: 256 merges in 0.9 s, the same merges",
    ):
        assert determinism.untimed(line) == (line, 0), line
    sources = {path.name: path.read_text("utf-8") for path in (ROOT / "book").glob("*.md")}
    assert (
        'print(f"the attention run: trained for {attention_history.seconds:.1f} s")'
        in (sources["attention-model.md"])
    )
    assert (
        'print(f"{try_config.max_iters} steps in {try_history.seconds:.1f} s")'
        in sources["attention-model.md"]
    )
    assert "tokens in {" in sources["kv-cache.md"]
    assert "print(f\"SDPA: {ms['SDPA']:.2f} ms per forward\")" in sources["attention-cost.md"]
    assert 'print(f"float32: {1000 * float32:.1f} ms a step")' in sources["beyond-one-machine.md"]
    assert 'print(f"bfloat16 autocast: {1000 * bfloat16:.1f} ms a step")' in sources["beyond-one-machine.md"]
    assert "the plain way: {naive_each:.2f} s a merge, about {" in sources["byte-pairs.md"]
    assert "the book's way: 256 merges in {fast_seconds:.1f} s" in sources["byte-pairs.md"]


def test_glued_timings_may_differ_but_must_be_there():
    """kv-cache.md reports its measured times in its prose: glued as timed_..., only their presence counts."""
    first = notebook([glued("timed_speedup", "19.8"), glued("same_ids", "True")])
    assert (
        determinism.compare(
            "book/x.md",
            first,
            notebook([glued("timed_speedup", "14.2"), glued("same_ids", "True")]),
            ("a", "b"),
        )
        == []
    )
    for changed in (
        notebook([glued("same_ids", "True")]),  # the timing is missing
        notebook([glued("timed_speedup", "19.8"), glued("same_ids", "False")]),  # an untimed value changed
    ):
        assert determinism.compare("book/x.md", first, changed, ("a", "b")) != []


def test_every_chapter_with_code_is_checked():
    """By default the check runs the notebooks of the table of contents, as the build does."""
    names = [path.stem for path in determinism.notebooks_in_toc()]
    assert "watching-attention-learn" in names and "exercises" in names
    assert "glossary" not in names and "references" not in names, "no code cells"
    assert determinism.chapter_path("exercises") == determinism.chapter_path("book/exercises.md")


def test_pieces_of_a_printed_line_show_as_one_line(tmp_path):
    """A notebook stored with one line cut in three pieces, built by Jupyter Book with the book's
    extension: the page shows one block with the whole line, and prints after a figure stay after it."""
    cut = stdout("rows sum to 1:", " True\n", "above the diagonal: 0.0\n")
    glue = [glued("hidden", "1")]
    figure = new_output("display_data", data={"text/plain": "a figure", "text/html": "<b>a figure</b>"})
    nb = notebook(cut, stdout("a: 1\n") + glue + stdout("b: 2\n") + [figure] + stdout("c: 3\n"))
    nb.cells.insert(0, new_markdown_cell("# Streams"))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "page.ipynb")
    (tmp_path / "_config.yml").write_text(
        "title: Streams\n"
        "execute: {execute_notebooks: 'off'}\n"
        f'sphinx:\n  local_extensions: {{_ext.content.joined_streams: "{ROOT}"}}\n'
        "  config: {nb_merge_streams: false}\n"
    )
    jb = str(Path(sys.executable).with_name("jupyter-book"))
    config = ["--config", str(tmp_path / "_config.yml")]
    result = subprocess.run(
        [jb, "build", str(tmp_path / "page.ipynb"), "--path-output", str(tmp_path), *config, "-W"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    page = tmp_path / "_build" / "_page" / "page" / "html" / "page.html"
    outputs = [block.strip() for block in code_blocks(page) if not block.startswith(("x = 1", "print"))]
    assert outputs == ["rows sum to 1: True\nabove the diagonal: 0.0", "a: 1\nb: 2", "c: 3"], outputs
    assert re.search(r"<b>a figure</b>.*c: 3", page.read_text("utf-8"), re.S), "the figure stays in between"


@pytest.mark.reexecute
def test_every_chapter_executed_again_prints_the_text_of_the_build(built_book):
    """One more execution of each chapter, compared with the outputs the build just cached:
    the full double-execution check, reusing the build's execution as the first one."""
    reports = determinism.check(determinism.notebooks_in_toc(), against_build=True)
    assert {report.chapter for report in reports} >= {"book/attention-model.md", "book/exercises.md"}
    for report in reports:
        assert not report.problem, f"{report.chapter}: {report.problem}"
        assert report.differences == [], "\n".join(report.differences)
    timed = {report.chapter: report.timings for report in reports if report.timings}
    # each chapter prints its training times once per execution, as "<run>: trained for {...} s"
    # or "{steps} steps in {...} s", kv-cache.md its generation times as "<how>: {n} tokens in
    # {...} s", attention-cost.md its attention timings as "<label>: {...} ms per forward" and its
    # tiled loop's ratios as "... {...} with the mask", beyond-one-machine.md its step times as
    # "<precision>: {...} ms a step", and byte-pairs.md its merges' times as "... {...} s a merge,
    # about {...} min for 256" and "... 256 merges in {...} s"; exactly those lines, and no others,
    # were ignored
    sources = {f"book/{path.name}": path.read_text("utf-8") for path in (ROOT / "book").glob("*.md")}
    printed = {
        name: text.count(": trained for {")
        + text.count(" steps in {")
        + text.count(" tokens in {")
        + text.count(' ms per forward")')
        + text.count(' ms a step")')
        + text.count(' with the mask")')
        + text.count(" s a merge, about {")
        + text.count(" merges in {")
        for name, text in sources.items()
    }
    assert timed == {name: n for name, n in printed.items() if n}, "the declared timings, and no others"
