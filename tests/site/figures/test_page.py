"""The figure page as a whole in Debian's headless Chromium: figures drawn as the reader nears them
and all of them when printed, a figure output inserted the way live code inserts it (scripts re-run,
or not run at all), live code re-running a figure cell on a local Jupyter server, the page's
weight, and the same page built for LaTeX with each figure as a PNG.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from _ext.content.figure_script import SCRIPT
from bookbuild import BUILD_RUNS
from selfattn.figures import context_window, output
from tests.site.figures.helpers import KINDS, classes, fig, status
from tools import live
from tools.browser import offline_context, settle
from tools.page_downloads import figure_weight

pytestmark = pytest.mark.browser


def test_a_figure_is_drawn_as_the_reader_nears_it(browser, figure_page):
    """A phone opens the page without drawing the figures far below; scrolled to, each is drawn."""
    context, visit = offline_context(browser, viewport={"width": 412, "height": 823}, is_mobile=True)
    tab = context.new_page()
    tab.goto(figure_page.url)
    tab.wait_for_load_state("load")
    tab.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    drawn = tab.locator(".sa-fig[data-sa-ready]").count()
    assert 0 < drawn < len(KINDS), f"{drawn} of {len(KINDS)} figures drawn at first"
    last = tab.locator(".sa-fig").last
    assert last.locator(".sa-fallback").count() == 1, "the last one shows its fallback until then"
    last.scroll_into_view_if_needed()
    tab.wait_for_function("[...document.querySelectorAll('.sa-fig')].pop().hasAttribute('data-sa-ready')")
    assert last.locator(".sa-fallback").count() == 0
    assert last.locator("button, input").count() > 0, "and it has its controls"
    context.close()
    assert visit.errors == [], visit.errors


def test_a_printed_page_shows_every_figure_drawn(browser, figure_page):
    """The browser announces printing (``beforeprint``); every figure not yet drawn is drawn."""
    context, visit = offline_context(browser, viewport={"width": 412, "height": 823}, is_mobile=True)
    tab = context.new_page()
    tab.goto(figure_page.url)
    tab.wait_for_load_state("load")
    assert tab.locator(".sa-fig[data-sa-ready]").count() < len(KINDS)
    tab.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")  # as the browser does
    assert tab.locator(".sa-fig[data-sa-ready]").count() == len(KINDS)
    assert tab.locator(".sa-fallback").count() == 0
    context.close()
    assert visit.errors == [], visit.errors


# JupyterLab's HTML renderer (used by thebe, with trusted outputs) sets innerHTML and then replaces
# each <script> by a fresh copy so that it runs; other hosts may leave the scripts inert.
INSERT = """([html, runScripts]) => {
  const old = document.querySelector('.sa-fig[data-kind="context-window"]').closest('.cell_output');
  const host = document.createElement('div');
  host.className = 'rerun-output';
  host.innerHTML = html;
  old.replaceChildren(host);
  if (runScripts) for (const s of [...host.querySelectorAll('script')]) {
    const copy = document.createElement('script');
    for (const a of s.attributes) copy.setAttribute(a.name, a.value);
    copy.textContent = s.textContent;
    s.replaceWith(copy);
  }
}"""


@pytest.mark.parametrize("run_scripts", [True, False], ids=["scripts-run", "scripts-inert"])
def test_a_re_run_output_gives_a_new_working_figure(page, corpus, run_scripts):
    library = page.evaluate_handle("window.selfattnFigures")
    new = context_window(corpus.text[100:109], selected=0)
    page.evaluate(INSERT, [new.to_html(), run_scripts])
    figure = page.locator(".rerun-output .sa-fig")
    figure.scroll_into_view_if_needed()  # where the reader who re-ran it is
    page.wait_for_function("document.querySelector('.rerun-output .sa-fig').hasAttribute('data-sa-ready')")
    assert page.locator('.sa-fig[data-kind="context-window"]').count() == 1, "the old output is gone"
    buttons = figure.locator("button.sa-pos")
    assert buttons.nth(0).inner_text().split() == ["0", new.data["tokens"][0]]
    buttons.nth(2).click()
    assert [i for i, c in enumerate(classes(buttons)) if "sa-lit" in c] == [0, 1, 2]
    assert page.evaluate("(lib) => lib === window.selfattnFigures", library), "the script was not redefined"
    assert page.locator("style#selfattn-figures-css").count() == 1
    fig(page, "score-table").get_by_role("button", name="4. softmax").click()
    assert fig(page, "score-table").locator("td.sa-sum").count() == 8, "the other figures still work"


def test_latex_build_includes_each_figure_as_a_png(figure_page):
    latex = figure_page.latex
    tex = next(latex.glob("*.tex")).read_text(encoding="utf-8")
    images = re.findall(r"\\sphinxincludegraphics(?:\[[^\]]*\])?\{\{?([^}]+?)\}?\}", tex)
    pngs = [name for name in images if name.endswith(".png") or (latex / f"{name}.png").is_file()]
    assert len(pngs) == len(KINDS), images
    for name in pngs:
        path = latex / (name if name.endswith(".png") else f"{name}.png")
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "sa-fig" not in tex, "no HTML in the LaTeX"


def test_the_figures_add_one_shared_script_file_and_little_data_to_the_page(figure_page):
    page = figure_page.html.read_text(encoding="utf-8")
    weight = figure_weight(page)
    assert weight.figures == len(KINDS)
    assert weight.code == 0, "no copy of the script in the page"
    (name,) = SCRIPT.findall(page)
    script = figure_page.html.parent / "_static" / name
    # thirteen views and their styles, about 14 kB gzipped (the page budget counts it too): the
    # package's script with its stylesheet inside, once
    assert script.read_text(encoding="utf-8") == output.script(), "one copy of the script and its stylesheet"
    assert weight.data < 100_000, "the figures' data together"


def test_the_live_code_button_appears_where_the_page_held_its_place(browser, figure_page):
    """Nothing under the title moves when the loader makes the page's place the button."""
    below = "document.querySelector('.thebe-launch-button').nextElementSibling.getBoundingClientRect().top"
    tops = []
    for scripts in (False, True):
        context, visit = offline_context(browser, java_script_enabled=scripts)
        tab = context.new_page()
        tab.goto(figure_page.url)
        if scripts:
            expect(tab.locator(".live-code-button")).to_be_visible()
        else:
            expect(tab.locator(".thebe-launch-button")).to_be_hidden()
        tops.append(tab.evaluate(below))
        context.close()
        assert visit.errors == [], visit.errors
    assert tops[0] == tops[1]


def test_outputs_work_side_by_side_each_with_its_own_script(browser, figure_cells):
    """As in Jupyter: every output brings its script; the first defines it, the others only mount."""
    _, figures = figure_cells
    context, visit = offline_context(browser)
    tab = context.new_page()
    tab.set_content("<!doctype html><meta charset='utf-8'>" + "".join(f.to_html() for f in figures.values()))
    assert tab.locator("script[data-selfattn-figures]").count() == len(KINDS)
    settle(tab)
    assert tab.locator(".sa-fig[data-sa-ready]").count() == len(KINDS)
    assert tab.locator(".sa-fallback").count() == 0
    tab.locator('.sa-fig[data-kind="score-table"]').get_by_role("button", name="3. masked").click()
    assert tab.locator("td.sa-masked").count() == 28
    context.close()
    assert visit.errors == [], visit.errors
    assert visit.blocked == [], visit.blocked


def test_live_code_re_runs_a_figure_cell_into_a_new_working_figure(browser, figure_page, tmp_path):
    """Thebe on a local Jupyter server: running the score-table cell, twice, gives a working figure."""
    with (
        open(tmp_path / "jupyter.log", "w") as log,
        live.jupyter_server(figure_page.server.origin, log=log, runs=BUILD_RUNS) as jupyter,
    ):
        figure_page.server.point_at(jupyter.base_url, jupyter.token)
        context, visit = offline_context(browser)
        tab = context.new_page()
        tab.goto(figure_page.url)
        settle(tab)
        cell = tab.locator("div.cell", has=tab.locator('.sa-fig[data-kind="score-table"]'))
        tab.locator(".live-code-button").click()
        tab.wait_for_function(
            "['ready', 'failed'].includes(document.querySelector('.live-code-button').dataset.state)",
            timeout=120_000,
        )
        assert tab.locator(".live-code-button").get_attribute("data-state") == "ready"
        before = cell.locator(".sa-fig").get_attribute("id")
        for _ in range(2):
            cell.locator(".thebe-run-button").click()
            tab.wait_for_function(
                """(old) => {
                  const figs = [...document.querySelectorAll('.sa-fig[data-kind="score-table"]')];
                  return figs.length === 1 && figs[0].id !== old && figs[0].hasAttribute('data-sa-ready')
                    && figs[0].closest('.jp-OutputArea-output') !== null;
                }""",
                arg=before,
                timeout=180_000,
            )
            figure = cell.locator(".sa-fig")
            figure.get_by_role("button", name="3. masked").click()
            assert figure.locator("td.sa-masked").count() == 28
            before = figure.get_attribute("id")
        fig(tab, "context-window").scroll_into_view_if_needed()  # drawn as the reader comes to it
        fig(tab, "context-window").locator("button.sa-pos").nth(2).click()
        assert "Position 2 sees" in status(fig(tab, "context-window")), "the built figures still work"
        context.close()
    assert visit.errors == [], visit.errors
    assert visit.blocked == [], visit.blocked
