"""The site's downloadable editions, the PDF and the EPUB: each copied into the site and linked.

``make pdf`` leaves each language's PDF at ``_build/pdf-<language>/_build/latex/<name>.pdf``
(``_ext.paths.built_pdf``), ``make epub`` its EPUB at ``_build/epub-<language>/_build/epub/<name>.epub``
(``_ext.paths.built_epub``). A site (the ``html`` builder) offers an edition when it finds its
language's file, or when the environment variable says that one is built after it
(``SELFATTN_PDF_EDITION=1``, ``SELFATTN_EPUB_EDITION=1``): ``make book`` builds the sites first,
so that they need not wait for LaTeX, and copies each file into its site when it is built. For
each edition the site offers, this extension

- sets its tag (``pdf_edition``, ``epub_edition``), which shows ``{only} html and pdf_edition``
  blocks (the intro page's download paragraphs);
- copies the file into the root of the site when the build has finished, if it is there already.

The roles ``{pdf-edition}`text``` and ``{epub-edition}`text``` link to those copies from any page.
Without an edition its tag stays unset: the site builds as before and never links to a file it
does not contain. The PDF and the EPUB themselves offer no download.

The tags are set when Sphinx looks for outdated pages; pages that use a role are read again
whenever a file appears or disappears, so their HTML follows.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from _ext.paths import built_epub, built_pdf


@dataclass(frozen=True)
class Download:
    """One downloadable edition: its format's name and where ``make`` leaves it in a language."""

    format: str  # "pdf", "epub"
    built: Callable[[str], Path]

    @property
    def tag(self) -> str:
        return f"{self.format}_edition"

    @property
    def role(self) -> str:
        return f"{self.format}-edition"

    @property
    def built_after(self) -> str:
        """The variable whose "1" says the file is built after the site and copied into it."""
        return f"SELFATTN_{self.format.upper()}_EDITION"

    def file(self, app: Sphinx) -> Path:
        """Where ``make`` leaves this edition in the build's language."""
        return self.built(app.config.language or "en")


DOWNLOADS = (Download("pdf", built_pdf), Download("epub", built_epub))
SITE_BUILDER = "html"  # the builder of the sites that offer the downloads


def _offered(app: Sphinx) -> tuple[str, ...]:
    """The formats this build's site offers: none unless it is a site."""
    if app.builder.name != SITE_BUILDER:
        return ()
    return tuple(d.format for d in DOWNLOADS if d.file(app).is_file() or os.environ.get(d.built_after) == "1")


def _set_tags(app: Sphinx, env: BuildEnvironment, added: set, changed: set, removed: set) -> list[str]:
    """Set the tag of each edition the site offers; re-read the pages that link to one when that
    has changed."""
    offered = _offered(app)
    for download in DOWNLOADS:
        if download.format in offered:
            app.tags.add(download.tag)
    if getattr(env, "downloads_offered", None) == offered:
        return []
    env.downloads_offered = offered
    return sorted(getattr(env, "download_docs", set()) - removed)


def _link_role(download: Download) -> Callable[..., tuple[list[nodes.Node], list]]:
    def role(name, rawtext, text, lineno, inliner, options=None, content=None):
        """A link from the current page to the edition's file in the site's root."""
        env = inliner.document.settings.env
        if not hasattr(env, "download_docs"):
            env.download_docs = set()
        env.download_docs.add(env.docname)
        uri = "../" * env.docname.count("/") + download.file(env.app).name
        return [nodes.reference(rawtext, text, refuri=uri)], []

    return role


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    getattr(env, "download_docs", set()).discard(docname)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set, other: BuildEnvironment) -> None:
    env.download_docs = getattr(env, "download_docs", set()) | getattr(other, "download_docs", set())


def _copy_files(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.name != SITE_BUILDER:
        return
    for download in DOWNLOADS:
        if download.file(app).is_file():
            shutil.copy2(download.file(app), Path(app.outdir) / download.file(app).name)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("env-get-outdated", _set_tags)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    for download in DOWNLOADS:
        app.add_role(download.role, _link_role(download))
    app.connect("build-finished", _copy_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
