"""A cell's printed output as one block per stream, exactly as printed.

The kernel sends what a cell prints in pieces, on a timer: a piece ends whenever the timer
fires, which can be between two lines or in the middle of one, and two executions of the same
cell cut it in different places. MyST-NB renders each piece as its own block, so the same
``print("rows sum to 1:", ok)`` could show as one line in one build and as two blocks in the
next. This extension joins consecutive pieces of the same stream (stdout with stdout, stderr with
stderr) back into one block, character for character, as Jupyter itself shows them; output
between them (a figure, a displayed value) keeps them apart. Nothing is stripped or reordered.

``bookbuild/check_determinism.py`` compares executions after the same joining.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

STREAMS = ("stream", "stderr")  # the classes MyST-NB gives stdout and stderr blocks


def _stream(node: nodes.Node) -> tuple[str, ...] | None:
    """The classes of a stream block (which stream, which lexer), or None for any other node."""
    if isinstance(node, nodes.literal_block) and any(c in node["classes"] for c in STREAMS):
        return (*node["classes"], node.get("language", ""))
    return None


def join_streams(doctree: nodes.document) -> int:
    """Join consecutive blocks of one stream in every cell's outputs; returns how many were joined."""
    joined = 0
    for outputs in list(doctree.findall(nodes.container)):
        if "cell_output" not in outputs["classes"]:
            continue
        kept: list[nodes.Node] = []
        for child in outputs.children:
            kind = _stream(child)
            if kind is not None and kept and _stream(kept[-1]) == kind:
                text = kept[-1].astext() + child.astext()
                kept[-1][:] = [nodes.Text(text)]
                kept[-1].rawsource = text
                joined += 1
            else:
                kept.append(child)
        if len(kept) < len(outputs.children):
            outputs[:] = kept
    return joined


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    join_streams(doctree)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", _doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
