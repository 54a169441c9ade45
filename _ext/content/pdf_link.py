"""The PDF edition on the site: copy the built PDF into the HTML output and link to it.

``make pdf`` leaves each edition's PDF at ``_build/pdf-<language>/_build/latex/<targetname>.pdf``
(``bookbuild.built_pdf``). An HTML build has a PDF edition when it finds its language's file, or when
``SELFATTN_PDF_EDITION=1`` says that one is built after it: ``make book`` builds the sites first,
so that they need not wait for LaTeX, and copies each PDF into its site when it is built. Then
this extension

- sets the tag ``pdf_edition``, which shows ``{only} html and pdf_edition`` blocks (the intro
  page's download paragraph);
- copies the PDF into the root of the site when the build has finished, if it is there already.

The role ``{pdf-edition}`text``` links to that copy from any page. Without a PDF edition the tag
stays unset: the site builds as before and never links to a file it does not contain.

The tag is set when Sphinx looks for outdated pages; pages that use the role are read again
whenever the PDF appears or disappears, so their HTML follows.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from bookbuild import built_pdf as edition

TAG = "pdf_edition"
BUILT_AFTER = "SELFATTN_PDF_EDITION"  # "1": the PDF is built after this site and copied into it


def built_pdf(app: Sphinx) -> Path:
    """Where ``make pdf`` leaves the PDF edition in this build's language."""
    return edition(app.config.language or "en")


def _set_tag(app: Sphinx, env: BuildEnvironment, added: set, changed: set, removed: set) -> list[str]:
    """Set the tag if the book has a PDF edition; re-read the pages that link to it when that has
    changed."""
    present = built_pdf(app).is_file() or os.environ.get(BUILT_AFTER) == "1"
    if present:
        app.tags.add(TAG)
    if getattr(env, "pdf_edition_present", None) == present:
        return []
    env.pdf_edition_present = present
    return sorted(getattr(env, "pdf_edition_docs", set()) - removed)


def _pdf_edition_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """A link from the current page to the PDF in the site's root."""
    env = inliner.document.settings.env
    if not hasattr(env, "pdf_edition_docs"):
        env.pdf_edition_docs = set()
    env.pdf_edition_docs.add(env.docname)
    uri = "../" * env.docname.count("/") + built_pdf(env.app).name
    return [nodes.reference(rawtext, text, refuri=uri)], []


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    getattr(env, "pdf_edition_docs", set()).discard(docname)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set, other: BuildEnvironment) -> None:
    env.pdf_edition_docs = getattr(env, "pdf_edition_docs", set()) | getattr(other, "pdf_edition_docs", set())


def _copy_pdf(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html" and built_pdf(app).is_file():
        shutil.copy2(built_pdf(app), Path(app.outdir) / built_pdf(app).name)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("env-get-outdated", _set_tag)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.add_role("pdf-edition", _pdf_edition_role)
    app.connect("build-finished", _copy_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
