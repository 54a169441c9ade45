"""Each part of another package that the book uses without its documentation promising it (the
table "Other packages' private parts" in CONTRIBUTING.md) is still there, in the version checked.

A failure names the package and the table: check the use against the new version, change the
code if it moved, and update the row's version.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import ipykernel.zmqshell
import IPython.core.interactiveshell
import myst_nb.core.render
import myst_nb.core.variables
import myst_nb.sphinx_
import pydata_sphinx_theme
import pytest
import sphinx
import sphinx.builders.html
import sphinx.environment
import sphinx.events
import sphinx.locale
import sphinx_book_theme.header_buttons
import sphinx_book_theme.header_buttons.launch
import sphinx_book_theme.header_buttons.source
import sphinx_exercise
import sphinx_thebe
import torch
from pydata_sphinx_theme.pygments import get_pygments_stylesheet
from torch.profiler import record_function

from _ext.content import live_code
from bookbuild import ROOT
from bookbuild.optimize import TOKEN_RULE
from selfattn.attention_cost import peak_memory

CONTRIBUTING = ROOT / "CONTRIBUTING.md"
TABLE = 'the table "Other packages\' private parts" in CONTRIBUTING.md'
COLUMNS = ("use", "package", "version", "what", "where", "why")


def private_parts() -> dict[str, dict[str, str]]:
    """The table's rows, by their first column."""
    section = CONTRIBUTING.read_text(encoding="utf-8").split("## Other packages' private parts")[1]
    section = section.split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| ---")]
    parsed = [
        dict(zip(COLUMNS, (cell.strip() for cell in row.strip("|").split(" | ")), strict=True))
        for row in rows
    ]
    return {row["use"]: row for row in parsed[1:]}  # the first row is the header


def theme_template(name: str) -> str:
    folder = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
    return (folder / name).read_text(encoding="utf-8")


def code_styles() -> tuple[str, str]:
    """The theme's default code colours, light and dark, as its theme.conf names them."""
    conf = theme_template("theme.conf")
    return tuple(re.search(rf"^pygments_{mode}_style = (\S+)", conf, re.M)[1] for mode in ("light", "dark"))


def memory_records_held() -> bool:
    """Whether the profiler's trace still holds one record of an allocation made and released
    inside an operation (the peak ``attention_cost.peak_memory`` reads from it)."""

    def one_operation() -> torch.Tensor:
        with record_function("one operation"):
            buffer = torch.ones(1000, 250)  # (1000, 250): a million bytes
            return buffer.sum()  # (): the buffer is released before the operation ends

    return peak_memory(one_operation) >= 1000 * 250 * 4


def in_source(module, *parts: str) -> bool:
    """Whether the source of ``module`` holds every one of ``parts``."""
    source = inspect.getsource(module)
    return all(part in source for part in parts)


def searchtools() -> str:
    """Sphinx's search script, as the site ships it."""
    return (Path(sphinx.__file__).parent / "themes" / "basic" / "static" / "searchtools.js").read_text(
        "utf-8"
    )


def thebe_handlers() -> set[str]:
    """The names of the sphinx-thebe handlers the book disconnects."""
    return {handler.__name__ for handler in live_code.SPHINX_THEBE_HANDLERS}


# What each use needs of its package, as a check on the installed version.
STILL_THERE: dict[str, Callable[[], bool]] = {
    "glue renderer": lambda: 'self.document["nb_renderer"]' in inspect.getsource(myst_nb.core.render),
    "exercise registry": lambda: (
        'self.env.sphinx_exercise_registry[label]["node"]'
        in inspect.getsource(sphinx_exercise.post_transforms)
    ),
    "event listeners": lambda: (
        {"id", "handler"} <= set(sphinx.events.EventListener._fields)
        and "self.listeners[name].append(EventListener(" in inspect.getsource(sphinx.events.EventManager)
    ),
    "thebe handlers": lambda: all(
        f", {name})" in inspect.getsource(sphinx_thebe.setup) for name in thebe_handlers()
    ),
    "code colours": lambda: (
        {"n", "p"} <= {token for _, token, _ in TOKEN_RULE.findall(get_pygments_stylesheet(*code_styles()))}
    ),
    "profiler memory records": memory_records_held,
    "search index": lambda: all(
        part in searchtools()
        for part in ('if (typeof splitQuery === "undefined")', "Search._index = index", "titleterms")
    ),
    "kernel traceback": lambda: (
        in_source(
            IPython.core.interactiveshell.InteractiveShell.showtraceback,
            "self._showtraceback(etype, value, stb)",
        )
        and "_showtraceback" in vars(ipykernel.zmqshell.ZMQInteractiveShell)
    ),
    "theme head": lambda: (
        "_static/scripts/fontawesome.js" in theme_template("static/webpack-macros.html")
        and "document.documentElement.dataset.theme = " in theme_template("layout.html")
    ),
    "header buttons": lambda: (
        in_source(sphinx_book_theme.header_buttons, 'context["header_buttons"]')
        and in_source(sphinx_book_theme.header_buttons, '"label": "download-buttons"')
        and in_source(sphinx_book_theme.header_buttons, '"label": "download-notebook-button"')
        and in_source(sphinx_book_theme.header_buttons.launch, '"label": "launch-buttons"')
        and in_source(sphinx_book_theme.header_buttons.source, '"label": "source-issues-button"')
    ),
    "notebook nodes": lambda: (
        in_source(myst_nb.core.render, 'nb_element="cell_code"', "cell_index=cell_index")
        and in_source(myst_nb.core.render, 'nb_element="cell_code_source"', 'nb_element="cell_code_output"')
        and in_source(myst_nb.sphinx_, 'nb_element="mime_bundle"', "mime_type=mime_type")
        and in_source(myst_nb.core.variables, 'nb_element="mime_bundle"', "mime_type=mime_type")
    ),
    "numbers and titles": lambda: (
        in_source(sphinx.environment.BuildEnvironment.__init__, "self.toc_fignumbers: dict[str, dict[")
        and in_source(sphinx.builders.html, "self.env.toc_fignumbers.get(docname")
        and {"note", "warning", "tip"} <= set(sphinx.locale.admonitionlabels)
    ),
}


def test_the_table_lists_each_use_the_tests_hold():
    assert set(private_parts()) == set(STILL_THERE), f"{TABLE} and this test list different uses"


@pytest.mark.parametrize("use", sorted(STILL_THERE))
def test_each_private_part_is_still_there_in_the_version_checked(use):
    row = private_parts()[use]
    installed = version(row["package"])
    assert installed == row["version"], (
        f"{row['package']} is {installed}, and {TABLE} checked {row['version']} for '{use}': check that "
        f"it still holds ({row['what']}), then update the row"
    )
    assert STILL_THERE[use](), (
        f"{row['package']} {installed} changed what '{use}' uses ({row['what']}, in {row['where']}): "
        f"change the code, and {TABLE}"
    )


@pytest.mark.parametrize("use", sorted(STILL_THERE))
def test_each_row_names_files_that_exist(use):
    for where in re.findall(r"`([^`]+)`", private_parts()[use]["where"]):
        assert (ROOT / where).is_file(), f"{TABLE}: '{use}' names {where}, which does not exist"
