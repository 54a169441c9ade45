"""Let Sphinx read, and so execute, the chapters in parallel processes (``tools/build.py``).

Sphinx reads in parallel only when every extension declares that it is safe.
These two declare nothing, which Sphinx takes as unsafe, yet what each does
while documents are read touches only the document being read:

- ``sphinx_multitoc_numbering`` numbers sections after all documents are read;
- ``sphinx_jupyterbook_latex``'s read-time transforms change the document being
  read; the rest of its work happens when the PDF is written, in one process.
"""

from __future__ import annotations

from sphinx.application import Sphinx

SAFE_TO_READ_IN_PARALLEL = ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex")


def declare_safe(app: Sphinx) -> None:
    for name in SAFE_TO_READ_IN_PARALLEL:
        if name in app.extensions:
            app.extensions[name].parallel_read_safe = True


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", declare_safe)  # every extension is loaded by then
    return {"parallel_read_safe": True, "parallel_write_safe": True}
