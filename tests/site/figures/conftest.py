"""The page of the interactive figures that the figure tests share: the figure cells built by
Jupyter Book (HTML and LaTeX) once a session and served on loopback, and a fresh visit to it."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from _ext.content.live_code import SERVER_INFO_ENV
from bookbuild import ROOT
from tests.helpers import FIGURE_BIGRAM, FIGURE_RUN
from tests.site.figures.helpers import KINDS
from tools.browser import offline_context, settle
from tools.figure_page import notebook
from tools.serve import SERVER_INFO, SiteServer, serve

# The book's own live code (thebe through _ext/content/live_code.py), here pointed at a local server. The
# notebook comes executed (its outputs are the session's figures): Jupyter Book runs nothing.
PAGE_CONFIG = f"""\
title: Figures
execute: {{execute_notebooks: "off"}}
repository: {{url: "https://github.com/selfattn-book/self-attention-from-scratch", branch: main}}
launch_buttons: {{binderhub_url: "https://mybinder.org", thebe: true}}
sphinx:
  local_extensions: {{_ext.content.figure_script: "{ROOT}", _ext.content.live_code: "{ROOT}"}}
  config:
    html_context: {{default_mode: auto}}
"""


@dataclass
class FigurePage:
    url: str
    html: Path  # the built page
    latex: Path  # the LaTeX build's folder
    server: SiteServer  # can point the page's live code at a Jupyter server


@pytest.fixture(scope="session")
def figure_page(tmp_path_factory, figure_cells) -> FigurePage:
    """The figure cells as one page built by Jupyter Book (HTML and LaTeX), served on loopback.

    Its outputs are the figures ``figure_cells`` drew, so the page's numbers are the ones the
    tests compare against and its cells are executed once per session. The page has the book's
    live code, set to ask the site for a local Jupyter server.
    """
    _, figures = figure_cells
    folder = tmp_path_factory.mktemp("figures-page")
    nbformat.write(notebook(FIGURE_RUN, FIGURE_BIGRAM, figures), folder / "figures.ipynb")
    (folder / "_config.yml").write_text(PAGE_CONFIG)
    jb = str(Path(sys.executable).with_name("jupyter-book"))
    common = [
        str(folder / "figures.ipynb"),
        "--path-output",
        str(folder),
        "--config",
        str(folder / "_config.yml"),
    ]
    env = {**os.environ, SERVER_INFO_ENV: SERVER_INFO}
    for builder in ("html", "latex"):
        result = subprocess.run(
            [jb, "build", *common, "--builder", builder], capture_output=True, text=True, env=env
        )
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    built = folder / "_build" / "_page" / "figures"
    with serve(built / "html") as server:
        yield FigurePage(server.url("figures.html"), built / "html" / "figures.html", built / "latex", server)


@pytest.fixture
def page(browser, figure_page):
    """A fresh visit; afterwards, no console error, no page error and no outside request."""
    context, visit = offline_context(browser)
    tab = context.new_page()
    tab.goto(figure_page.url)
    settle(tab)
    assert tab.locator(".sa-fig[data-sa-ready]").count() == len(KINDS), "every figure is drawn"
    yield tab
    context.close()
    assert visit.errors == [], visit.errors
    assert visit.blocked == [], visit.blocked
