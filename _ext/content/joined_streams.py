"""A cell's printed output as one block per stream, exactly as printed.

The kernel sends what a cell prints in pieces, on a timer: a piece ends whenever the timer
fires, which can be between two lines or in the middle of one, and two executions of the same
cell cut it in different places. MyST-NB renders each piece as its own block, so the same
``print("rows sum to 1:", ok)`` could show as one line in one build and as two blocks in the
next. This extension joins consecutive pieces of the same stream (stdout with stdout, stderr with
stderr) back into one block, character for character, as Jupyter itself shows them; output
between them (a figure, a displayed value) keeps them apart. Nothing is stripped or reordered.

``bookbuild/check_determinism.py`` compares executions after the same joining (:func:`joined`,
on a notebook's outputs).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from docutils import nodes
from sphinx.application import Sphinx

STREAMS = ("stream", "stderr")  # the classes MyST-NB gives stdout and stderr blocks
Output = TypeVar("Output")


def joined(
    outputs: list[Output],
    stream: Callable[[Output], Hashable | None],
    join: Callable[[Output, Output], Output],
) -> list[Output]:
    """``outputs`` with each run of neighbours from one stream (``stream``: which, or None for an
    output that is not printed text) joined into one by ``join``, in order."""
    kept: list[Output] = []
    for output in outputs:
        which = stream(output)
        if which is not None and kept and stream(kept[-1]) == which:
            kept[-1] = join(kept[-1], output)
        else:
            kept.append(output)
    return kept


def _stream(node: nodes.Node) -> tuple[str, ...] | None:
    """The classes of a stream block (which stream, which lexer), or None for any other node."""
    if isinstance(node, nodes.literal_block) and any(c in node["classes"] for c in STREAMS):
        return (*node["classes"], node.get("language", ""))
    return None


def join_streams(doctree: nodes.document) -> int:
    """Join consecutive blocks of one stream in every cell's outputs; returns how many were joined."""
    count = 0
    for outputs in list(doctree.findall(nodes.container)):
        if "cell_output" not in outputs["classes"]:
            continue
        kept = joined(outputs.children, _stream, _join_blocks)
        if len(kept) < len(outputs.children):
            count += len(outputs.children) - len(kept)
            outputs[:] = kept
    return count


def _join_blocks(first: nodes.literal_block, second: nodes.literal_block) -> nodes.literal_block:
    text = first.astext() + second.astext()
    first[:] = [nodes.Text(text)]
    first.rawsource = text
    return first


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    join_streams(doctree)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", _doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
