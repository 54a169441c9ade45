"""Debian's headless Chromium, driven by Playwright, with no internet.

Pages are opened in a fresh browser context whose only network is loopback: every other request
is recorded and aborted (the site serves everything it needs itself, thebe included). The
context's ``Visit`` records what its pages did: the files fetched, the requests blocked or
failed, console errors and uncaught exceptions.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from bookbuild import ROOT

CHROMIUM = os.environ.get("SELFATTN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # axe-core, as package-lock.json pins it
# What axe checks: WCAG 2.2 levels A and AA (with 2.0's and 2.1's), and its best practices.
AXE_RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
SERIOUS = ("serious", "critical")  # the impacts a page may not have
# The rules Lighthouse's accessibility score weighs that axe rates moderate or minor: a page may
# not break these either, so the crawl holds every page to what Lighthouse holds one page to.
LIGHTHOUSE_RULES = (
    "heading-order",
    "skip-link",
    "image-redundant-alt",
    "aria-allowed-role",
    "aria-deprecated-role",
    "table-duplicate-name",
    "form-field-multiple-labels",
    "html-xml-lang-mismatch",
)
AXE_RUN = """async ([selector, tags, impacts, rules]) => {
    const elements = selector ? [...document.querySelectorAll(selector)].map((el) => [el]) : [];
    if (selector && !elements.length) return [];
    const options = {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]};
    const result = await axe.run(selector ? {include: elements} : document, options);
    const where = (v) => v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join("; ");
    return result.violations.filter((v) => impacts.includes(v.impact) || rules.includes(v.id))
        .map((v) => `${v.id} (${v.impact}, ${v.nodes.length}): ${where(v)}`);
}"""
THEMED = "(scheme) => document.documentElement.dataset.theme === scheme"
# Colours that change with the theme fade (the header's buttons): each fade taken to its end, the
# colours a reader sees a moment later.
FADES_ENDED = """() => document.getAnimations()
    .filter((a) => a instanceof CSSTransition).forEach((a) => a.finish())"""


@contextmanager
def chromium() -> Iterator[object]:
    """Debian's headless Chromium driven by Playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        raise FileNotFoundError(
            f"no browser at {CHROMIUM} (apt-get install chromium, or set SELFATTN_CHROMIUM)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Visit:
    """What the pages of one browser context did."""

    fetched: list[str] = field(default_factory=list)  # every request that finished
    blocked: list[str] = field(default_factory=list)  # requests for anything outside loopback
    failed: list[str] = field(default_factory=list)  # loopback requests that failed or got HTTP >= 400
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)  # uncaught exceptions

    @property
    def errors(self) -> list[str]:
        """Console errors and uncaught exceptions together."""
        return self.console_errors + [f"uncaught: {error}" for error in self.page_errors]


def is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in LOOPBACK


def offline_context(browser, **options) -> tuple[object, Visit]:
    """A fresh browser context (``options`` as for ``new_context``) whose only network is loopback."""
    context = browser.new_context(**options)
    visit = Visit()

    def route(request_route) -> None:
        url = request_route.request.url
        if is_loopback(url) or url.startswith(("data:", "blob:")):
            return request_route.continue_()
        visit.blocked.append(url)
        return request_route.abort()

    def failed(request) -> None:
        if is_loopback(request.url):
            visit.failed.append(f"{request.url} ({request.failure})")

    context.route("**/*", route)
    context.on(
        "console", lambda message: message.type == "error" and visit.console_errors.append(message.text)
    )
    context.on("weberror", lambda error: visit.page_errors.append(str(error.error)))
    context.on("requestfinished", lambda request: visit.fetched.append(request.url))
    context.on("requestfailed", failed)
    context.on("response", lambda r: r.status >= 400 and visit.failed.append(f"{r.url} (HTTP {r.status})"))
    return context, visit


def accessibility_problems(page, within: str | None = None) -> list[str]:
    """axe-core's serious and critical findings on ``page``, and those of ``LIGHTHOUSE_RULES``, or
    only inside the elements that the CSS selector ``within`` matches: one line per rule, naming
    its first few elements."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_RUN, [within, AXE_RULES, list(SERIOUS), list(LIGHTHOUSE_RULES)])


def switch(page, scheme: str) -> None:
    """Switch the reader's colour scheme (``prefers-color-scheme``) to ``scheme`` on ``page``, and
    wait until the page has taken it; its colours' fades are taken to their end."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.emulate_media(color_scheme=scheme)
    with suppress(PlaywrightTimeout):  # a page that does not follow is reported, not stuck
        page.wait_for_function(THEMED, arg=scheme, timeout=5_000)
    page.evaluate(FADES_ENDED)


def settle(page) -> None:
    """Wait until the page is loaded, every section and figure drawn, its images decoded, its math
    typeset and its fonts in: the whole page, as a reader sees it who has scrolled through it.

    A chapter draws its sections and their blocks of prose as a reader nears them
    (``_static/lazy-sections.css``); until then each has a guessed height and clips what is wider than
    the column. Drawn, a block too wide scrolls the page sideways, where a check sees it, and every
    element is where it will show. An interactive figure is drawn when it comes near the screen
    (``figures.js``), so each is scrolled to in turn (a second at most each), then the page is
    scrolled back to its top.
    """
    page.wait_for_load_state("load")
    page.evaluate(
        """async () => {
            const drawn = "* { content-visibility: visible !important; }";
            document.head.append(Object.assign(document.createElement("style"), {textContent: drawn}));
            const frame = () => new Promise((done) => requestAnimationFrame(done));
            for (const figure of document.querySelectorAll(".sa-fig:not([data-sa-ready])")) {
                figure.scrollIntoView({block: "center"});
                for (let i = 0; i < 60 && !figure.hasAttribute("data-sa-ready"); i++) await frame();
            }
            window.scrollTo(0, 0);
            for (const img of document.images) img.loading = "eager";
            await Promise.all([...document.images].map((img) => img.decode().catch(() => null)));
            if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
                await MathJax.startup.promise;
            }
            await document.fonts.ready;
        }"""
    )


@contextmanager
def first_visit(browser, url: str, **options) -> Iterator[tuple[object, Visit]]:
    """One page opened as a first-time reader opens it (fresh offline context), settled."""
    context, visit = offline_context(browser, **options)
    try:
        page = context.new_page()
        page.goto(url)
        settle(page)
        yield page, visit
    finally:
        context.close()
