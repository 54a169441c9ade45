"""Which edition a reader holds: the book's version, the day it was built and its commit.

The site's footer and the PDF's title page both say it, e.g. "Version 0.1.0, built 30 November
2026 from commit 3f2a9c1". The version is the ``selfattn`` package's (``pyproject.toml``); the day
is ``SOURCE_DATE_EPOCH`` when set (reproducible builds), else today (UTC); the commit is the
checkout's ``HEAD``, linked to the repository named in ``_config.yml``.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Edition:
    version: str
    date: str  # e.g. "30 November 2026"
    commit: str  # full hash, or "" outside a git checkout

    @property
    def short(self) -> str:
        return self.commit[:7]


def this_edition() -> Edition:
    """The edition the current checkout builds."""
    stamp = os.environ.get("SOURCE_DATE_EPOCH")
    built = datetime.fromtimestamp(int(stamp), timezone.utc) if stamp else datetime.now(timezone.utc)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    commit = head.stdout.strip() if head.returncode == 0 else ""
    return Edition(version("selfattn"), f"{built.day} {built:%B %Y}", commit)


def _configure(app: Sphinx, config: Config) -> None:
    edition = this_edition()
    config.version = config.release = edition.version
    repository = config.html_theme_options.get("repository_url", "")
    commit_html = f' from commit <a href="{repository}/commit/{edition.commit}">{edition.short}</a>'
    config.html_theme_options["extra_footer"] = (
        f'<p class="edition">Version {edition.version}, built {edition.date}'
        f"{commit_html if edition.commit else ''}.</p>"
    )
    # The title page's date line (LaTeX's \\date takes Sphinx's ``today``).
    config.today = f"Built {edition.date}" + (f" from commit {edition.short}" if edition.commit else "")
    config.latex_elements = {**config.latex_elements, "releasename": "Version"}


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
