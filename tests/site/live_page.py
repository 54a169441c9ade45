"""A live page in the browser, as a reader drives it: open a chapter, press Live Code, edit a cell,
run it and wait for what it prints."""

from __future__ import annotations

from tools.browser import settle

LAUNCH_TIMEOUT_MS = 120_000
RUN_TIMEOUT_MS = 120_000
STDOUT = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stdout']"
ERROR = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
# A figure re-drawn live: Jupyter shows the SVG a notebook's figure comes with (its words as text),
# or the PNG when there is no SVG.
IMAGE = ".jp-OutputArea-output[data-mime-type^='image/'] img"


def open_chapter(context, site_url: str, chapter: str = "bigram"):
    """A new tab on the chapter ``chapter`` of the site at ``site_url``, settled."""
    page = context.new_page()
    page.goto(site_url + f"book/{chapter}.html")
    settle(page)
    return page


def wait_for_state(page, states: set[str], timeout: float) -> str:
    """Wait until the Live Code button is in one of ``states``; return the one it is in."""
    page.wait_for_function(
        "(states) => states.includes(document.querySelector('.live-code-button').dataset.state)",
        arg=sorted(states),
        timeout=timeout,
    )
    return page.locator(".live-code-button").get_attribute("data-state")


def edit(cell, page, source: str) -> None:
    """Type a new source into a live cell, as a reader would: select all, type."""
    cell.locator(".CodeMirror").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(source)
    typed = cell.locator(".CodeMirror").evaluate("(el) => el.CodeMirror.getValue()")
    assert typed == source


def run(cell, expect_selector: str, timeout: float = RUN_TIMEOUT_MS) -> None:
    """Press the cell's run button and wait until its output shows ``expect_selector``."""
    cell.locator(".thebe-run-button").click()
    cell.locator(expect_selector).first.wait_for(timeout=timeout)
