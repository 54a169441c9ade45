"""Live code in a real browser, with no internet.

Debian's headless Chromium (never a downloaded browser) opens the bigram chapter. Every request
that is not to loopback is recorded and aborted, with no exception: thebe comes from the site
itself (``_thebe/``, which the build copies in from thebe's npm package). Two builds of the chapter:

- local mode, served by what ``make live`` runs (``python -m tools.live``, run as a reader runs
  it, here with ``--no-build``: the chapter's live build stands for the whole book's): Live Code
  connects to its Jupyter server on 127.0.0.1, with the network cut; the reader edits the
  hyperparameter cell, runs it and the plot cell after it, sees a new loss and a new figure, then
  types a bad value and sees the package's one-line message, and an undefined name and sees
  Python's traceback; axe then finds nothing serious on the live page, in light or dark mode; the
  kernel runs torch on one thread; Ctrl+C stops the site and the server;
- production mode (Binder): with the network blocked, the button retries once by itself, then
  says in plain words what went wrong and offers to try again, and the page throws no JavaScript
  exception.

With live code running, thebe is fetched from the site and nothing outside loopback is asked for
but Binder (in production mode): no live-code file reaches a CDN (every page of both editions is
checked in a browser the same way, in ``test_site.py``).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote

import pytest
import torch
import yaml

from bookbuild import ROOT
from bookbuild.catalogs import CATALOGS, read
from selfattn import BIGRAM, ConfigError, get_batch, load_corpus
from selfattn.language import LANGUAGE_ENV
from tests.helpers import reader_environment
from tests.site.live_page import (
    ERROR,
    IMAGE,
    LAUNCH_TIMEOUT_MS,
    RUN_TIMEOUT_MS,
    STDOUT,
    edit,
    open_chapter,
    run,
    wait_for_state,
)
from tools import live
from tools.browser import accessibility_problems, offline_context, switch
from tools.serve import SERVER_INFO, serve

pytestmark = pytest.mark.browser

# The chapter alone (with the landing page): enough for live code, quick to build.
TOC = "format: jb-book\nroot: book/intro\nchapters:\n  - file: book/bigram\n"
HYPERPARAMETERS = "# Hyperparameters"
# Records each state the live-code button shows, with its words, in window.liveCodeStates.
WATCH_BUTTON = """() => {
  const button = document.querySelector(".live-code-button");
  window.liveCodeStates = [];
  new MutationObserver(() => {
    const entry = `${button.dataset.state}: ${button.querySelector(".live-code-text").textContent}`;
    if (window.liveCodeStates.at(-1) !== entry) window.liveCodeStates.push(entry);
  }).observe(button, { attributes: true, childList: true, subtree: true, characterData: true });
}"""
CHINESE = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def sites() -> dict[str, Path]:
    """The chapter built for Binder and for a local server, and its Chinese edition for a local
    server, in one folder one after the other.

    The folder is kept between runs so the chapter's cells execute only once; the second build
    only rewrites the pages.
    """
    out = Path(tempfile.gettempdir()) / "selfattn-live-test"
    out.mkdir(exist_ok=True)
    toc = out / "_toc.yml"
    toc.write_text(TOC)
    production = out / "production"
    try:
        html = live.build_site(out, toc=toc, local_server=False, quiet=True)
        shutil.rmtree(production, ignore_errors=True)
        shutil.copytree(html, production)
        local = live.build_site(out, toc=toc, quiet=True)
        chinese = live.build_site(out / "zh", toc=toc, quiet=True, language="zh_CN")
    except subprocess.CalledProcessError as err:
        pytest.fail(f"the chapter did not build:\n{err.stdout[-4000:]}\n{err.stderr[-4000:]}")
    return {"production": production, "local": local, "chinese": chinese}


def hyperparameter_cell(page, marker: str = HYPERPARAMETERS):
    """The cell that starts with the hyperparameters (its first comment, ``marker``), found once: it
    stays that cell when edited."""
    index = page.locator("div.cell").evaluate_all(
        "(cells, text) => cells.findIndex((cell) => cell.textContent.includes(text))", marker
    )
    assert index >= 0
    return page.locator("div.cell").nth(index)


def ran_cells(page) -> list[bool]:
    """Which of the page's cells have run in the live kernel, in page order."""
    return page.evaluate("() => window.thebe.notebook.cells.map((cell) => cell.executionCount !== null)")


def hyper_index(page) -> int:
    sources = page.evaluate("() => window.thebe.notebook.cells.map((cell) => cell.source)")
    return next(i for i, source in enumerate(sources) if source.startswith(HYPERPARAMETERS))


def image_bytes(cell) -> bytes:
    """The first figure of ``cell``'s output, as the file Jupyter put in its ``src``."""
    src = cell.locator(IMAGE).first.get_attribute("src")
    head, data = src.split(",", 1)
    assert head in ("data:image/svg+xml", "data:image/png;base64"), head
    return base64.b64decode(data) if head.endswith(";base64") else unquote(data).encode()


def reader_mistakes() -> list[tuple[str, str]]:
    """Cell sources a reader might type in the bigram chapter, with the one line each must show
    (in the language ``SELFATTN_LANGUAGE`` names)."""
    cells = {
        "config = replace(BIGRAM, learning_rate=5)": lambda: replace(BIGRAM, learning_rate=5),
        "config = replace(BIGRAM, learnig_rate=1e-3)": lambda: replace(BIGRAM, learnig_rate=1e-3),
        "config = replace(BIGRAM, seed=-1)": lambda: replace(BIGRAM, seed=-1),
        "get_batch(corpus.val[:8], 4, 8, torch.Generator())": lambda: get_batch(
            load_corpus().val[:8], 4, 8, torch.Generator()
        ),
    }
    mistakes = []
    for source, make in cells.items():
        with pytest.raises(ConfigError) as error:
            make()
        mistakes.append((source, str(error.value)))
    return mistakes


def test_the_build_copies_only_what_the_browser_loads_of_thebe(sites):
    for site in sites.values():
        assert (site / "_thebe" / "index.js").is_file(), "the build copies thebe into the site"
        assert not list((site / "_thebe").glob("*.map")), "only what the browser loads"


def test_the_headers_binder_button_opens_the_chapter_in_jupyterlab(sites):
    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    repo = repository["url"].removeprefix("https://github.com/")
    page = (sites["production"] / "book" / "bigram.html").read_text(encoding="utf-8")
    launch = f"https://mybinder.org/v2/gh/{repo}/{repository['branch']}?urlpath=lab/tree/book/bigram.md"
    assert launch in page


def test_live_kernels_import_the_package_first():
    """The setup code run in every live kernel imports selfattn, which sets torch to one thread."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    setup = config["sphinx"]["config"]["live_code_setup"]
    assert re.search(r"^import selfattn\b", setup, flags=re.M), setup


@pytest.mark.parametrize(
    ("serve_thebe", "message"),
    [
        (True, "Could not reach Binder (mybinder.org). Check your internet connection"),
        (False, "Could not load the live-code library from this site. Check your internet connection"),
    ],
    ids=["binder-unreachable", "thebe-unreachable"],
)
def test_production_page_offline_says_what_went_wrong(sites, browser, serve_thebe, message):
    with serve(sites["production"]) as site:
        context, visit = offline_context(browser)
        thebe_refused = []
        if not serve_thebe:  # as if the site's copy of thebe could not be fetched

            def refuse(route) -> None:
                thebe_refused.append(route.request.url)
                route.abort()

            context.route("**/_thebe/**", refuse)
        page = open_chapter(context, site.url())
        config = json.loads(page.locator("#live-code-config").text_content())
        repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
        assert config["serverInfo"] == "", "the production build uses Binder"
        assert repository["url"].endswith("/" + config["binder"]["repo"])
        assert config["binder"]["ref"] == repository["branch"]
        button = page.locator(".live-code-button")
        assert button.get_attribute("data-state") == "idle"

        # The theme's own "Live Code" entry (launch menu in the header) starts it too.
        page.locator(".dropdown-launch-buttons button").first.click()
        page.locator(".btn-launch-thebe").click()
        assert wait_for_state(page, {"failed", "ready"}, LAUNCH_TIMEOUT_MS) == "failed"
        assert message in button.inner_text()
        assert "click to try again" in button.inner_text()
        assert button.is_enabled()
        # A failed connection is retried once by itself before the reader is told; a missing
        # library is not (it is the site's own file).
        assert button.get_attribute("data-retried") == ("true" if serve_thebe else None)

        assert button.get_attribute("data-attempt") == "1"
        button.click()  # try again: it launches afresh and fails the same readable way
        page.wait_for_function(
            "() => { const b = document.querySelector('.live-code-button');"
            " return b.dataset.attempt === '2' && b.dataset.state === 'failed'; }",
            timeout=LAUNCH_TIMEOUT_MS,
        )
        assert message in button.inner_text()

        if serve_thebe:
            assert any(url.endswith("/_thebe/index.js") for url in visit.fetched), "thebe came from the site"
            assert any("mybinder.org" in url for url in visit.blocked), visit.blocked
            assert not [url for url in visit.blocked if "mybinder.org" not in url], visit.blocked
        else:
            assert thebe_refused and all("/_thebe/" in url for url in thebe_refused), thebe_refused
            assert visit.blocked == [], visit.blocked
        assert visit.page_errors == [], f"JavaScript exceptions: {visit.page_errors}"
        context.close()


@contextlib.contextmanager
def make_live(output: Path) -> Iterator[tuple[str, subprocess.Popen, list[str]]]:
    """What ``make live`` runs, ``python -m tools.live``, started from the repository's root as a
    reader's terminal starts it, serving the live build in ``output`` as it is (``--no-build``):
    its URL, its process, and the lines it prints (the Jupyter server's log among them). Leaving
    the block presses Ctrl+C."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tools.live", "--output", str(output), "--no-build"],
        cwd=ROOT,
        env=reader_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's job
        # and, as a terminal's foreground job, Ctrl+C not ignored, even where this test's own
        # runner was started in the background (which ignores SIGINT, and children inherit it)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    lines: list[str] = []
    try:
        found = None
        for line in process.stdout:
            lines.append(line)
            found = re.search(r"The book with live code: (http://127\.0\.0\.1:\d+/)", line)
            if found:
                break
        assert found, "tools.live ended without serving:\n" + "".join(lines[-60:])
        # A terminal reads all it prints: so does this test, or the Jupyter server's log, which
        # goes to the same pipe, could fill it and stop the server mid-write, Ctrl+C or not.
        threading.Thread(target=lines.extend, args=(process.stdout,), daemon=True).start()
        yield found.group(1), process, lines
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)  # Ctrl+C in the reader's terminal
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise


def edit_run_and_redraw(page, hyper, plot, source: str, built_val: float) -> None:
    """Twice, with another ``max_iters``: the reader edits the hyperparameter cell, runs it (the
    cells above it run first, the button says models are loading) and its plot cell, and sees a
    new loss and a new figure."""
    # every state the button shows from here on, with its words
    page.evaluate(WATCH_BUTTON)
    images = []
    for max_iters in (300, 600):
        edit(hyper, page, source.replace("= BIGRAM\n", f"= replace(BIGRAM, max_iters={max_iters})\n"))
        run(hyper, f"{STDOUT}:has-text('step {max_iters}:')")
        live_val = float(re.search(r"val loss (\d+\.\d+)", hyper.locator(STDOUT).inner_text()).group(1))
        if not images:  # the cells above it ran first; the ones below have not run yet
            ran, at = ran_cells(page), hyper_index(page)
            assert all(ran[: at + 1]) and not any(ran[at + 1 :]), ran
            # the cell calls fit: while it ran, the button said the page was loading models
            states = page.evaluate("window.liveCodeStates")
            assert any(s.startswith("models: Loading the book's trained models") for s in states), states
            assert states[-1].startswith("ready: Live"), states
        assert 2.0 < live_val < 4.5 and live_val != built_val
        previous = plot.locator(IMAGE).first.get_attribute("src") if images else None
        plot.locator(".thebe-run-button").click()
        page.wait_for_function(
            "([cell, previous]) => { const img = cell.querySelector('.jp-OutputArea-output img');"
            " return img !== null && img.getAttribute('src') !== previous; }",
            arg=[plot.element_handle(), previous],
            timeout=RUN_TIMEOUT_MS,
        )
        images.append(image_bytes(plot))
    assert all(b"<svg" in image or image[:8] == b"\x89PNG\r\n\x1a\n" for image in images), images[0][:80]
    assert images[0] != images[1], "each run draws a new figure"


def mistakes_show_one_line(page, hyper) -> None:
    """Each of a reader's mistakes shows the package's one-line message; a name that is not a
    variable shows Python's own traceback."""
    # a bad value, a misspelled field, an unusable seed, a context longer than the data
    for mistake, expected in reader_mistakes():
        edit(hyper, page, mistake)
        hyper.locator(".thebe-run-button").click()  # wait for this mistake's message, not the last one's
        hyper.locator(ERROR, has_text=expected).first.wait_for(timeout=RUN_TIMEOUT_MS)
        shown = hyper.locator(".jp-OutputArea").inner_text().strip()
        assert shown == f"ConfigError: {expected}", shown

    # a name that is a field of config, not a variable: Python's own traceback, in colour
    edit(hyper, page, "print(learning_rate)")
    hyper.locator(".thebe-run-button").click()
    hyper.locator(ERROR, has_text="NameError").first.wait_for(timeout=RUN_TIMEOUT_MS)


def live_mode_serves_every_reader(page, hyper, plot) -> None:
    """Named editors, re-drawn figures with their alt text, nothing serious for axe in light and
    dark (an error's colours in AA contrast), and torch on one thread as on Binder."""
    assert page.locator(".CodeMirror textarea").count() > 0
    assert page.locator(".CodeMirror textarea:not([aria-label])").count() == 0
    assert plot.locator(IMAGE).first.get_attribute("alt"), "a re-drawn figure keeps an alt text"
    for scheme in ("light", "dark"):
        switch(page, scheme)
        problems = accessibility_problems(page)
        assert not problems, f"axe's findings in live mode, {scheme}:\n" + "\n".join(problems)

    # Binder gives a pod one CPU while torch sees every host core: the kernel uses one thread.
    edit(hyper, page, "import torch\nprint('torch threads:', torch.get_num_threads())")
    run(hyper, f"{STDOUT}:has-text('torch threads:')")
    assert hyper.locator(STDOUT).inner_text().strip() == "torch threads: 1"


def test_make_live_serves_the_chapter_the_reader_edits_and_ctrl_c_stops_it(sites, browser):
    """``make live``'s command serves the chapter's live build (``sites``, made by the same
    ``live.build_site`` that ``make live`` builds the whole book with) with a local kernel and the
    network cut. The reader presses Live Code, edits the hyperparameter cell, runs it and the plot
    cell after it, sees a new loss and a new figure, types mistakes and sees the package's
    one-line messages, and an undefined name's traceback; axe finds nothing serious on the page in
    light or dark mode; the kernel runs torch on one thread. Ctrl+C then stops the site and the
    Jupyter server, and the token was never printed."""
    assert "`make live`" in (ROOT / "README.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^live:[^\n]*\n\t\$\(BIN\)/python -m tools\.live\n", makefile, re.M), (
        "make live runs tools.live, which builds the whole book, with no options"
    )
    started = time.monotonic()
    with make_live(sites["local"].parent.parent) as (url, process, lines):
        with urllib.request.urlopen(url + SERVER_INFO, timeout=10) as answer:  # as the pages ask
            token = json.load(answer)["token"]
        context, visit = offline_context(browser)
        page = open_chapter(context, url)
        hyper = hyperparameter_cell(page)
        built_output = page.locator("div.cell", has_text=HYPERPARAMETERS).locator(".cell_output").inner_text()
        built_val = float(re.search(r"val loss (\d+\.\d+)", built_output).group(1))

        page.locator(".live-code-button").click()
        state = wait_for_state(page, {"ready", "failed"}, LAUNCH_TIMEOUT_MS)
        assert state == "ready", page.locator(".live-code-button").inner_text()
        launched = time.monotonic()
        init = page.locator("div.cell.tag_thebe-init")
        assert "65 distinct symbols" in init.locator(STDOUT).inner_text(), "the thebe-init cell ran live"

        source = hyper.locator(".CodeMirror").evaluate("(el) => el.CodeMirror.getValue()")
        assert "config = BIGRAM\n" in source
        plot = hyper.locator("xpath=following-sibling::div[contains(@class, 'cell')][1]")

        edit_run_and_redraw(page, hyper, plot, source, built_val)
        mistakes_show_one_line(page, hyper)
        live_mode_serves_every_reader(page, hyper, plot)
        assert visit.page_errors == [], f"JavaScript exceptions: {visit.page_errors}"
        assert visit.blocked == [], f"live code asked for outside files: {visit.blocked}"
        assert any(file.endswith("/_thebe/index.js") for file in visit.fetched), "thebe came from the site"
        context.close()
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)  # nothing of its own process group is left
    with pytest.raises(OSError):
        urllib.request.urlopen(url, timeout=5)
    origin = f"--ServerApp.allow_origin={url.rstrip('/')}"
    assert not [p for p in Path("/proc").glob("[0-9]*/cmdline") if origin in _read(p)], "the Jupyter server"
    log = "".join(lines)
    assert "Kernel started" in log
    assert f"Trained models: the build's, in {live.local_runs()}" in log, "the kernel reads the build's runs"
    assert token not in log, "the token is never printed, nor in the server's log"
    for page_file in sites["local"].rglob("*.html"):
        assert token not in page_file.read_text(encoding="utf-8")
    total = time.monotonic() - started
    print(f"\nlive code ready {launched - started:.1f} s after make live started; whole test {total:.1f} s")


def test_a_live_chinese_page_prints_and_draws_in_chinese(sites, browser, monkeypatch):
    """The Chinese edition's live kernels speak Chinese (``SELFATTN_LANGUAGE``, set by the setup
    every kernel runs): a cell prints its Chinese words, as the built page shows them; a figure a
    cell draws again has the built figure's Chinese words, with the new run's numbers; and a
    reader's mistake gets the package's one-line message in Chinese."""
    hyperparameters = (
        "# " + read(CATALOGS / "bigram.po")[HYPERPARAMETERS[2:] + ": to change them, write e.g."].string
    )
    with make_live(sites["chinese"].parent.parent) as (url, _, lines):
        context, visit = offline_context(browser)
        page = open_chapter(context, url)
        init = page.locator("div.cell.tag_thebe-init")
        built = init.locator(".cell_output").inner_text().strip()
        assert CHINESE.search(built), built
        page.locator(".live-code-button").click()
        assert wait_for_state(page, {"ready", "failed"}, LAUNCH_TIMEOUT_MS) == "ready", "".join(lines[-40:])
        assert init.locator(STDOUT).inner_text().strip() == built, "the cell prints live what the page shows"

        hyper = hyperparameter_cell(page, hyperparameters)
        source = hyper.locator(".CodeMirror").evaluate("(el) => el.CodeMirror.getValue()")
        edit(hyper, page, source.replace("= BIGRAM\n", "= replace(BIGRAM, max_iters=300)\n"))
        run(hyper, f"{STDOUT}:has-text('max_iters = 300')")
        plot = hyper.locator("xpath=following-sibling::div[contains(@class, 'cell')][1]")
        plot.locator(".thebe-run-button").click()
        plot.locator(IMAGE).first.wait_for(timeout=RUN_TIMEOUT_MS)
        drawn = image_bytes(plot).decode()
        assert drawn.startswith("<") and "训练步" in drawn and "training step" not in drawn, drawn[:300]

        monkeypatch.setenv(LANGUAGE_ENV, "zh_CN")
        for mistake, expected in reader_mistakes()[:2]:
            assert CHINESE.search(expected), expected
            edit(hyper, page, mistake)
            hyper.locator(".thebe-run-button").click()
            hyper.locator(ERROR, has_text=expected).first.wait_for(timeout=RUN_TIMEOUT_MS)
            assert hyper.locator(".jp-OutputArea").inner_text().strip() == f"ConfigError: {expected}"
        assert visit.page_errors == [], f"JavaScript exceptions: {visit.page_errors}"
        context.close()


def _read(cmdline: Path) -> str:
    try:
        return cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:  # the process ended meanwhile
        return ""
