"""Which edition a reader holds: the book's version, the day it was built and its commit.

The site's footer and the PDF's title page both say it, e.g. "Version 0.2.0, built 30 November
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
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

from _ext.editions.translation import say
from _ext.paths import ROOT


@dataclass(frozen=True)
class Edition:
    version: str
    built: datetime
    commit: str  # full hash, or "" outside a git checkout

    @property
    def short(self) -> str:
        return self.commit[:7]

    def date(self, language: str | None) -> str:
        """The day it was built, as the edition in ``language`` writes a date."""
        day, year = self.built.day, self.built.year
        month, number = f"{self.built:%B}", self.built.month
        return say(language, "{day} {month} {year}", day=day, month=month, month_number=number, year=year)


def this_edition() -> Edition:
    """The edition the current checkout builds."""
    stamp = os.environ.get("SOURCE_DATE_EPOCH")
    built = datetime.fromtimestamp(int(stamp), timezone.utc) if stamp else datetime.now(timezone.utc)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    commit = head.stdout.strip() if head.returncode == 0 else ""
    return Edition(version("selfattn"), built, commit)


def _configure(app: Sphinx, config: Config) -> None:
    edition, language = this_edition(), config.language
    config.version = config.release = edition.version
    repository = config.html_theme_options.get("repository_url", "")
    link = f'<a href="{repository}/commit/{edition.commit}">{edition.short}</a>'
    commit_html = say(language, " from commit {commit}", commit=link) if edition.commit else ""
    line = say(
        language,
        "Version {version}, built {date}{commit}.",
        version=edition.version,
        date=edition.date(language),
        commit=commit_html,
    )
    config.html_theme_options["extra_footer"] = f'<p class="edition">{line}</p>'
    # The title page's date line (LaTeX's \\date takes Sphinx's ``today``).
    commit = say(language, " from commit {commit}", commit=edition.short) if edition.commit else ""
    config.today = say(language, "Built {date}{commit}", date=edition.date(language), commit=commit)
    config.latex_elements = {**config.latex_elements, "releasename": say(language, "Version")}


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
