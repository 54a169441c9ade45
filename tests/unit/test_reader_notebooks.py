"""The reader's notebook's parts (``_ext/content/reader_notebooks.py``): the build's statements
left out, the hidden setup kept where later cells need it, prose as plain Markdown, the install
cell, and the addresses Colab and Kaggle open."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.locale import admonitionlabels

from _ext.content.reader_notebooks import (
    Markdown,
    colab_url,
    install_source,
    kaggle_url,
    locked,
    needed_hidden,
    published_notebook,
    reader_code,
)
from selfattn.language import translations
from tests.helpers import locked_versions
from tools.notebook_run import LOADED, TRAINED, in_any_language

REPOSITORY = "https://github.com/owner/book"


def test_the_builds_own_statements_are_left_out_and_the_rest_kept():
    source = 'from myst_nb import glue\n\nx = 2  # kept\nassert x == 2\nglue("x", x, display=False)\n'
    assert reader_code(source) == "x = 2  # kept"
    assert reader_code('glue("a", 1)\nfor n in range(3):\n    glue(f"n{n}", n)\nassert True\n') == ""
    assert reader_code("%timeit x = 1") == "%timeit x = 1", "IPython's magics stay as written"


def test_a_hidden_cell_is_kept_only_where_a_later_cell_reads_what_it_binds():
    cells = [
        ("import torch\nHIGHLIGHT = 1", False),  # read below: kept
        ('glue("n", 3)', False),  # binds nothing read: left out
        ("total = HIGHLIGHT + 1", True),
        ("unused = 5", False),
        ("HIGHLIGHT = 2", False),  # rebound by a hidden cell read by nobody: left out
        ("print(total)", True),
    ]
    assert needed_hidden(cells) == [True, False, True, False, False, True]
    assert needed_hidden([("x = 1", False), ("x = 2", True), ("print(x)", True)]) == [False, True, True]


def markdown(*blocks: nodes.Node) -> str:
    writer = Markdown("https://site.example/book/page.html", Path("."))
    return "\n\n".join(writer.blocks(list(blocks)))


def table(*rows: tuple[str, ...]) -> nodes.table:
    """A table of text, its first row the head, as docutils' parsers make one."""

    def row(cells: tuple[str, ...]) -> nodes.row:
        return nodes.row("", *(nodes.entry("", nodes.paragraph(text=cell)) for cell in cells))

    group = nodes.tgroup("", *(nodes.colspec() for _ in rows[0]), cols=len(rows[0]))
    group += [nodes.thead("", row(rows[0])), nodes.tbody("", *(row(r) for r in rows[1:]))]
    return nodes.table("", group)


def test_prose_is_plain_markdown_with_math_links_lists_boxes_and_tables():
    paragraph = nodes.paragraph(
        "",
        "",
        nodes.Text("Some "),
        nodes.emphasis(text="words"),
        nodes.Text(", "),
        nodes.strong(text="bold"),
        nodes.Text(", "),
        nodes.literal(text="code"),
        nodes.Text(" and "),
        nodes.math(text="x^2"),
        nodes.Text("; see "),
        nodes.reference("", "the intro", refuri="intro.html#top"),
        nodes.Text("."),
    )
    items = nodes.bullet_list("", *(nodes.list_item("", nodes.paragraph(text=t)) for t in ("one", "two")))
    note = nodes.note("", nodes.paragraph(text="Keep this."))
    text = markdown(paragraph, items, note, nodes.math_block(text="a = b"), table(("A", "B"), ("1", "2")))
    assert "Some *words*, **bold**, `code` and $x^2$" in text
    assert "[the intro](https://site.example/book/intro.html#top)" in text
    assert "- one\n- two" in text
    assert f"> **{admonitionlabels['note']}**\n>\n> Keep this." in text, (
        "labelled as the edition labels a note"
    )
    assert "$$\na = b\n$$" in text
    assert "| A | B |\n|---|---|\n| 1 | 2 |" in text
    assert markdown(nodes.paragraph(text="2 * 3 = 6")) == "2 \\* 3 = 6", "markup characters are escaped"


def test_the_install_cell_installs_the_commit_and_the_locked_needs_and_says_what_it_did():
    for language in ("en", "zh_CN"):
        source = install_source(REPOSITORY, "0" * 40, "import selfattn", language)
        assert f'"selfattn @ git+{REPOSITORY}@{"0" * 40}"' in source
        python = "\n".join(line for line in source.splitlines() if not line.startswith("%"))
        compile(python, "install", "exec")  # Python 3.10's f-strings: no nested quotes
        assert "print(f" in source
    versions = locked_versions()
    assert locked() == [f"{name}=={versions[name]}" for name in ("tiktoken", "matplotlib", "tqdm")]
    assert "torch" not in " ".join(locked()), "torch stays as the reader's machine has it"


def test_colab_and_kaggle_open_the_notebook_published_for_the_sites_commit():
    file = published_notebook(REPOSITORY, "a" * 40, "zh_CN", "book/bigram")
    assert file == f"{REPOSITORY}/blob/notebooks-{'a' * 40}/zh_CN/book/bigram.ipynb"
    colab = "https://colab.research.google.com/github/owner/book/blob/"
    assert colab_url(file) == f"{colab}notebooks-{'a' * 40}/zh_CN/book/bigram.ipynb"
    assert kaggle_url(file) == f"https://www.kaggle.com/kernels/welcome?src={file}"


def test_a_notebooks_run_counts_the_runs_it_loaded_and_trained_in_either_language():
    zh = translations("zh_CN")
    printed = "\n".join(
        [
            LOADED[0].format(url="http://127.0.0.1:8000/runs/a.pt", folder="/c"),
            zh[LOADED[1]].format(url="u", theirs="2.9.0", ours="2.13.0", folder="/c"),
            zh[TRAINED[0]].format(why="没有网络"),
            "step 300: train loss 2.4512, val loss 2.4899",
        ]
    )
    assert len(in_any_language(LOADED).findall(printed)) == 2
    assert len(in_any_language(TRAINED).findall(printed)) == 1
