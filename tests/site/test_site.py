"""The built site as a reader meets it: every page opened in a real browser with no internet.

Each page gets one visit, a first visit (fresh browser context, empty storage) in Debian's
headless Chromium, with every request that is not to loopback aborted and recorded; the checks of
a page in the browser read that one visit (``crawl``). Loaded in the reader's light scheme, then
switched to dark and back, then with its figures' controls pressed, a page must show: no console
errors or uncaught exceptions, no outside requests (math, fonts and icons come from the site, and
its live code loads thebe from the site), every image loaded and described, every formula
typeset, figures legible in light and dark mode, nothing serious for axe in any state of its
figures, and a weight within the budget. Search works, and every link within the site resolves
(file and anchor).

While iterating, point the tests at a site built elsewhere instead of building _build/html:
    SELFATTN_SITE=/tmp/build-x/_build/html pytest tests/site/test_site.py
"""

from __future__ import annotations

import contextlib
import copy
import html
import io
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, fields
from functools import partial
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import numpy as np
import pytest
from fontTools.ttLib import TTFont
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from _ext.editions.translation.figure_words import DATA, FIGURE, TEMPLATE, TEMPLATES, WORDS, map_texts
from benchmarks import lighthouse
from bookbuild import EPUB_NAME, ROOT
from bookbuild.catalogs import CATALOGS, package_texts, read
from selfattn.figures import FIGURES as INTERACTIVE_FIGURES
from selfattn.figures.output import embedded_json
from tests.helpers import PDF, code_blocks, figure_messages
from tools import page_downloads
from tools.browser import Visit, accessibility_problems, first_visit, offline_context, switch
from tools.serve import serve

pytestmark = pytest.mark.book

# What the page shows a reader: every image's state, every formula as typeset, every icon.
PROBE = r"""() => {
    const images = [...document.images].map((img) => ({
        src: img.getAttribute("src"),
        alt: (img.getAttribute("alt") || "").trim(),
        loaded: img.complete && img.naturalWidth > 0,
    }));
    const math = [...document.querySelectorAll("span.math, div.math")];
    const untypeset = math
        .filter((el) => !el.querySelector("math"))
        .map((el) => el.textContent.trim().slice(0, 80));
    // A typeset formula's text: what it draws and its MathML (both renderers give screen readers
    // MathML), without the TeX source the MathML carries as an annotation.
    const typesetText = (el) => {
        const copy = el.cloneNode(true);
        copy.querySelectorAll("annotation").forEach((a) => a.remove());
        return copy.textContent.replace(/\s+/g, " ").trim();
    };
    const backslashes = math
        .filter((el) => el.querySelector("math") && typesetText(el).includes("\\"))
        .map((el) => typesetText(el).slice(0, 80));
    const mathErrors = [...document.querySelectorAll(".katex-error, merror, mjx-merror")].map((el) =>
        (el.getAttribute("title") || el.getAttribute("data-mjx-error") || el.textContent).slice(0, 80));
    const skip = "pre, code, script, style, textarea, .katex, mjx-container, .highlight";
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const rawTex = [];
    const pattern = /\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{|\\(frac|sqrt|sum|mathbf|mathrm|cdot|times)\b/;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.parentElement.closest(skip) && pattern.test(node.textContent)) {
            rawTex.push(node.textContent.trim().slice(0, 80));
        }
    }
    // Icons on screen, drawn by the theme's CSS (a ::before glyph) in a Font Awesome web font.
    const loadedFonts = [...document.fonts].filter((f) => f.status === "loaded").map((f) => f.family);
    const icons = [...document.querySelectorAll(".fa, .fas, .far, .fab, .fa-solid, .fa-regular, .fa-brands")]
        .filter((el) => el.getClientRects().length > 0)
        .map((el) => {
            const glyph = getComputedStyle(el, "::before");
            const family = glyph.fontFamily.split(",")[0].replace(/["']/g, "").trim();
            return {
                name: el.className,
                drawn: !["none", "normal", '""'].includes(glyph.content) && el.offsetWidth > 0,
                fontLoaded: loadedFonts.some((f) => f.replace(/["']/g, "") === family),
                glyph: glyph.content.replace(/^["']|["']$/g, ""),
                font: [family, glyph.fontWeight],
            };
        });
    const figures = document.querySelectorAll(".sa-fig").length;
    // Where the page's live code loads thebe from once pressed, resolved as live-code.js does.
    const liveCode = document.getElementById("live-code-config");
    const root = new URL(document.documentElement.dataset.content_root || "", document.baseURI);
    const thebe = liveCode && new URL(JSON.parse(liveCode.textContent).thebeUrl, root).href;
    return {
        images, mathCount: math.length, untypeset, backslashes, mathErrors, rawTex, icons, figures, thebe,
    };
}"""

# The content figures of a page: images in the article body (not logos or icons).
FIGURES = ".bd-article img"
# An image's own pixels on screen: its box without the padding and border the theme may add.
CONTENT_BOX = """(el) => {
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    const inset = (side) => parseFloat(s[`padding${side}`]) + parseFloat(s[`border${side}Width`]);
    const x = r.left + inset("Left"), y = r.top + inset("Top");
    return {x, y, width: r.right - inset("Right") - x, height: r.bottom - inset("Bottom") - y};
}"""
# Alt text that is only the image's file name (what a plain cell output gets) describes nothing.
FILE_NAME = re.compile(r"\.(png|jpe?g|gif|svg|webp)$", re.I)


# A phone held upright: the narrowest width the site is laid out for (phones are 360 to 414 px).
PHONE = {"width": 360, "height": 780}
# On a phone: how far the page scrolls sideways, and the header's controls it cuts off.
PHONE_PROBE = """() => ({
    sideways: document.scrollingElement.scrollWidth - window.innerWidth,
    cutOff: [...document.querySelectorAll(".header-article-items a, .header-article-items button")]
        .filter((el) => el.getClientRects().length && el.getBoundingClientRect().right > window.innerWidth)
        .map((el) => el.getAttribute("aria-label") || el.title || el.textContent.trim()),
})"""


@dataclass
class SchemeLook:
    """A page on its visit, once switched to the reader's light or dark colour scheme."""

    theme: str  # the theme the page then shows
    background: str  # the body's background colour
    figures: list[tuple[float, float]]  # figure_legibility of each content figure, on screen
    errors: list[str]  # browser errors that came while it was switched, not on loading


@dataclass
class PageReport:
    visit: Visit  # what the first visit did, until the page was drawn, probed and seen on a phone
    probe: dict
    weights: dict[str, int]
    accessibility: list[str]  # axe's serious and critical findings, and breaks of LIGHTHOUSE_RULES
    phone: dict  # PHONE_PROBE at PHONE's width
    figure_texts: list[dict]  # FIGURE_TEXTS: each drawn interactive figure's text
    live_code_button: str  # the Live Code button's label ("" on a page without it)
    schemes: dict[str, SchemeLook]  # the page switched to "light", then to "dark"
    figure_states: list[str]  # axe's findings in the figures as their controls are pressed, errors
    later: Visit  # what the page did after the first visit: switched to dark and back, controls pressed


@pytest.fixture(scope="module")
def site(request) -> Path:
    """The built site: SELFATTN_SITE if set, else a fresh strict build of the book."""
    override = os.environ.get("SELFATTN_SITE")
    if override:
        return Path(override)
    return request.getfixturevalue("built_book")


@pytest.fixture(scope="module")
def server(site):
    with serve(site) as site_server:
        yield site_server


@pytest.fixture(scope="module")
def crawl(site, server, browser) -> dict[str, PageReport]:
    """One visit to every page of the site, each page loaded once: what its first visit showed
    and fetched, on a desktop and on a phone; then, on the same visit, the page switched to the
    reader's light and dark schemes (and back to light), and its figures' controls pressed."""
    reports = {}
    for path in page_downloads.site_pages(site):
        name = path.relative_to(site).as_posix()
        with first_visit(browser, server.url(name)) as (page, visit):
            probe, accessibility = page.evaluate(PROBE), accessibility_problems(page)
            texts = figure_texts(page) if probe["figures"] else []
            button = page.locator(".live-code-button")
            label = button.inner_text() if button.count() else ""
            desktop = page.viewport_size
            page.set_viewport_size(PHONE)
            phone = page.evaluate(PHONE_PROBE)
            page.set_viewport_size(desktop)
            first = copy.deepcopy(visit)
            schemes = {scheme: switched(page, visit, scheme) for scheme in ("light", "dark")}
            switch(page, "light")  # the colours it was loaded in, for pressing its controls
            states = figure_states(page, visit) if probe["figures"] else []
        later = Visit(
            **{f.name: getattr(visit, f.name)[len(getattr(first, f.name)) :] for f in fields(Visit)}
        )
        weights = page_downloads.tally(site, first)
        reports[name] = PageReport(
            first, probe, weights, accessibility, phone, texts, label, schemes, states, later
        )
    return reports


def failures(crawl: dict[str, PageReport], what) -> str:
    """One line per page where `what(report)` found something, for an assertion message."""
    lines = [f"{name}: {found}" for name, report in crawl.items() if (found := what(report))]
    return "\n".join(lines)


def test_the_crawl_covers_every_chapter_in_the_table_of_contents(site, crawl):
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    files = re.findall(r"(?:root|file):\s*(\S+)", toc)
    assert files, "no chapters found in _toc.yml"
    missing = [f for f in files if f"{f}.html" not in crawl]
    assert not missing, f"chapters in _toc.yml with no page in the site: {missing}"
    assert {"search.html", "genindex.html"} <= crawl.keys()


def test_no_page_logs_a_console_error_or_throws(crawl):
    problems = failures(crawl, lambda r: r.visit.errors)
    assert not problems, f"browser errors on first visit:\n{problems}"


def test_no_page_needs_the_internet(crawl):
    """Nothing outside the site is asked for, on loading or later: fonts, math, icons, styles and
    scripts are the site's own (no CDN), in either colour scheme and in every state of a figure."""
    problems = failures(crawl, lambda r: r.visit.blocked + r.later.blocked)
    assert not problems, f"pages asked for outside resources (blocked here, so broken offline):\n{problems}"


def test_every_page_s_live_code_loads_thebe_from_the_site(site, server, crawl):
    """Pressed, a page's live code loads thebe (script and styles) from the site's own ``_thebe/``,
    not from a CDN, on every page of both editions; that it then fetches nothing outside the site
    but Binder, a chapter's live build shows in a browser (test_live.py)."""
    loads = {name: report.probe["thebe"] for name, report in crawl.items() if report.probe["thebe"]}
    elsewhere = [
        f"{name}: {url}"
        for name, url in loads.items()
        for file in (url, url.replace("/index.js", "/thebe.css"))
        if not file.startswith(f"{server.origin}/") or not page_downloads.local_file(site, file).is_file()
    ]
    assert not elsewhere, "live code that would load thebe from elsewhere:\n" + "\n".join(elsewhere)
    editions = {
        name.split("/")[0] if name.split("/")[0] in page_downloads.EDITION_FOLDERS else "" for name in loads
    }
    assert editions == {"", *page_downloads.EDITION_FOLDERS}, (
        f"pages with live code in {editions or 'no edition'}"
    )


def test_every_requested_file_exists_on_the_site(crawl):
    problems = failures(crawl, lambda r: r.visit.failed + r.later.failed)
    assert not problems, f"requests to the site that failed:\n{problems}"


def test_every_image_loads_and_has_alt_text(crawl):
    def bad_images(report: PageReport) -> list[str]:
        images = report.probe["images"]
        return [f"{i['src']} not loaded" for i in images if not i["loaded"]] + [
            f"{i['src']} has no alt text (alt: {i['alt']!r})"
            for i in images
            if not i["alt"] or FILE_NAME.search(i["alt"])
        ]

    problems = failures(crawl, bad_images)
    assert not problems, f"broken or undescribed images:\n{problems}"


def test_every_formula_is_typeset(crawl):
    """Typeset, with no math error and no backslash left in what it shows (``\\text{a\\_b}``)."""

    def raw_math(report: PageReport) -> list[str]:
        probe = report.probe
        return (
            [f"not typeset: {t}" for t in probe["untypeset"]]
            + [f"math error: {t}" for t in probe["mathErrors"]]
            + [f"shows a backslash: {t}" for t in probe["backslashes"]]
            + [f"raw TeX in text: {t}" for t in probe["rawTex"]]
        )

    problems = failures(crawl, raw_math)
    assert not problems, f"math the reader sees as TeX:\n{problems}"
    assert any(report.probe["mathCount"] for report in crawl.values()), "the check saw no math at all"


def platform_fonts(page, selector: str) -> set[str]:
    """The system and web fonts the browser drew the text of ``selector``'s elements in."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    document = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    nodes = cdp.send("DOM.querySelectorAll", {"nodeId": document, "selector": selector})["nodeIds"]
    return {
        font["familyName"]
        for node in nodes
        for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    }


def test_math_waiting_for_its_fonts_borrows_the_page_s_text_font(server, browser):
    """Until KaTeX's fonts arrive (held back here), a Chinese page lays its math out in the fonts
    its text has open already: not in a CJK serif font, opened before the first paint for math
    that no one sees until KaTeX's fonts come (katex-math.css)."""
    context, _ = offline_context(browser)
    try:
        page = context.new_page()
        page.route("**/katex/fonts/*", lambda route: route.abort())
        page.goto(server.url("zh/book/six-steps.html"))
        page.locator("p:has(.katex)").first.scroll_into_view_if_needed()
        page.evaluate("() => document.fonts.ready.then(() => true)")
        text, math = platform_fonts(page, "article p"), platform_fonts(page, "p .katex-html *")
    finally:
        context.close()
    if "Times New Roman" in math:
        pytest.skip("this system has Times New Roman, which KaTeX's list names first")
    assert math and text, f"no fonts seen: text {text}, math {math}"
    assert math <= text, f"the math waiting for KaTeX's fonts opens {math - text} (the text uses {text})"


def test_every_icon_is_drawn_in_its_web_font(crawl):
    """The theme's icons show with no icon script: a glyph from its CSS, in a loaded web font."""

    def blank_icons(report: PageReport) -> list[str]:
        return [
            f"{icon['name']}: " + ("no glyph" if not icon["drawn"] else "its font did not load")
            for icon in report.probe["icons"]
            if not (icon["drawn"] and icon["fontLoaded"])
        ]

    problems = failures(crawl, blank_icons)
    assert not problems, f"icons a reader does not see:\n{problems}"
    assert all(report.probe["icons"] for report in crawl.values()), "a page shows no icon at all"


# An @font-face rule of a style sheet: its family, weight and WOFF2 file.
FONT_FACE = re.compile(
    r"@font-face\{(?=[^}]*font-family:\s*([^;}]+))(?=[^}]*font-weight:\s*(\d+))(?=[^}]*url\(([^)]+\.woff2)\))"
)


def test_every_icon_s_glyph_is_in_the_font_the_site_serves(site, crawl):
    """The site's icon fonts are cut to the icons it shows (bookbuild/optimize.py): none is cut away."""
    served: dict[tuple[str, str], set[int]] = {}
    for sheet in (site / "_static").rglob("*.css"):
        for family, weight, url in FONT_FACE.findall(sheet.read_text(encoding="utf-8")):
            font = TTFont((sheet.parent / url.strip("'\"")).resolve())
            served[(family.replace("\\", "").strip("'\" "), weight)] = set(font.getBestCmap())

    def missing(report: PageReport) -> list[str]:
        return [
            f"{icon['name']}: U+{ord(c):04X} not in {icon['font']}"
            for icon in report.probe["icons"]
            for c in icon["glyph"]
            if ord(c) not in served.get(tuple(icon["font"]), set())
        ]

    problems = failures(crawl, missing)
    assert not problems, f"icons whose glyph the served font lacks:\n{problems}"
    icons = [points for (family, _), points in served.items() if family.startswith("Font Awesome")]
    assert icons and sum(map(len, icons)) < 100, "the icon fonts are not cut"


def test_no_page_has_a_serious_accessibility_problem(crawl):
    """axe-core (WCAG 2.2 A and AA, and its best practices) finds nothing serious or critical, nor
    any break of the rules Lighthouse's accessibility score weighs (tools/browser.py)."""
    problems = failures(crawl, lambda r: r.accessibility)
    assert not problems, f"axe's serious and critical findings:\n{problems}"


# A figure's controls, in groups: the buttons of one row (a role="group" names it) or the controls
# of one kind. PRESS presses every control of a group in turn, and moves each slider to both ends.
FIGURE_CONTROLS = """
    const figure = document.querySelectorAll(".sa-fig")[index];
    const group = (el) =>
        el.closest("[role=group]")?.getAttribute("aria-label") || `${el.type} ${el.className}`;
    const controls = () => [...figure.querySelectorAll("button, input[type=range]")];
"""
CONTROL_GROUPS = "(index) => {" + FIGURE_CONTROLS + "return [...new Set(controls().map(group))]; }"
PRESS = (
    "([index, name]) => {"
    + FIGURE_CONTROLS
    + """
    const members = () => controls().filter((el) => group(el) === name);
    for (let i = 0; i < members().length; i++) {
        const control = members()[i];
        if (control.type !== "range") { control.click(); continue; }
        for (const end of [control.max, control.min]) {
            control.value = end;
            control.dispatchEvent(new Event("input", {bubbles: true}));
        }
    }
}"""
)


def figure_states(page, visit: Visit) -> list[str]:
    """Each group of each figure's controls pressed in turn on ``page``: axe's findings in the
    figures after each group, and the browser errors that pressing them brought."""
    before, problems = list(visit.errors), []
    for index in range(page.locator(".sa-fig").count()):
        pressed: set[str] = set()
        while todo := [g for g in page.evaluate(CONTROL_GROUPS, index) if g not in pressed]:
            pressed.add(todo[0])  # pressing one group can show another
            page.evaluate(PRESS, [index, todo[0]])
            found = accessibility_problems(page, ".sa-fig")
            problems += [f"figure {index}, after {todo[0]!r}: {p}" for p in found]
    return problems + [f"browser error: {error}" for error in visit.errors if error not in before]


def test_figures_stay_accessible_in_every_state_their_controls_reach(crawl):
    """Each group of a figure's controls pressed in turn, axe checks the figures after each group
    (on the crawl's visit, after its other checks); pressing them throws nothing."""
    problems = [f"{name}, {p}" for name, report in crawl.items() for p in dict.fromkeys(report.figure_states)]
    assert any(report.probe["figures"] for report in crawl.values()), "the check saw no figure at all"
    assert not problems, "axe's findings in the figures' states:\n" + "\n".join(problems)


def test_every_page_fits_a_phone(crawl):
    """At 360 px no page scrolls sideways, and the header shows every control it keeps."""
    problems = failures(crawl, lambda r: {k: v for k, v in r.phone.items() if v} or None)
    assert not problems, f"pages wider than a phone (px too wide, controls cut off):\n{problems}"


LANDED = """(id) => {
    const top = document.getElementById(id).getBoundingClientRect().top;
    const header = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
    const atEnd = scrollY >= document.scrollingElement.scrollHeight - innerHeight - 1;
    const landed = atEnd ? top >= header - 1 && top < innerHeight : Math.abs(top - header) <= 2;
    return landed ? null : Math.round(top);
}"""


def landing(page, target: str, how: str) -> list[str]:
    """A second after following a link to ``target``: nothing, or where its heading is instead."""
    page.wait_for_timeout(1000)
    top = page.evaluate(LANDED, target)
    return [] if top is None else [f"{how}: heading at {top} px"]


SOLUTION_CODE = """() => [...document.querySelectorAll(".solution.toggle pre")].map((pre) => ({
    laidOut: pre.getClientRects().length > 0,
    scrolls: pre.scrollWidth > pre.clientWidth,
    tabIndex: pre.tabIndex,
}))"""


def test_a_solution_is_laid_out_when_opened_and_its_wide_code_scrolls_by_keyboard(server, browser):
    """A collapsed solution is not laid out while the page loads (lazy-sections.css). Opened on a
    phone, each code block in it wider than the screen is a tab stop, as the theme makes every
    other one, so a keyboard can scroll it (lazy-sections.js)."""
    context, _ = offline_context(browser, viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(server.url("book/exercises.html"))
        collapsed = page.evaluate(SOLUTION_CODE)
        titles = page.locator(".solution.toggle > .admonition-title")
        for index in range(titles.count()):
            titles.nth(index).dispatch_event("click")  # where a tap lands is not this test's
        opened = page.evaluate(SOLUTION_CODE)
    finally:
        context.close()
    assert collapsed and not any(code["laidOut"] for code in collapsed), collapsed
    assert all(code["laidOut"] for code in opened), opened
    wide = [code for code in opened if code["scrolls"]]
    assert wide, "no solution's code is wider than a phone: this check would see nothing"
    assert all(code["tabIndex"] == 0 for code in wide), f"wide code a keyboard cannot reach: {wide}"


def test_a_quick_question_s_answer_shows_on_a_click_even_with_scripts_off(server, browser):
    """Each quick question's answer is closed until the reader clicks "Answer", in both editions,
    and needs no script: it is a ``<details>`` element."""
    for edition, words in (("", "Answer"), ("zh/", "答案")):
        context, _ = offline_context(browser, java_script_enabled=False)
        try:
            page = context.new_page()
            page.goto(server.url(f"{edition}book/bigram.html"))
            answers = page.locator("details.quick-answer")
            assert answers.count() >= 3, f"{edition}bigram: fewer than three quick questions"
            first = answers.first
            first.scroll_into_view_if_needed()  # laid out when near the screen (lazy-sections.css)
            expect(first.locator("summary")).to_have_text(words)
            expect(first.locator("p").first).to_be_hidden()  # not shown before it is asked for
            first.locator("summary").click()
            expect(first.locator("p").first).to_be_visible()
        finally:
            context.close()


TOOLTIP = """(button) => {
    const tip = getComputedStyle(button, "::after");
    return {display: tip.display, opacity: tip.opacity, content: tip.content};
}"""
FADES = """() => {
    window.fades = [];
    document.addEventListener("transitionrun", (e) => fades.push(`${e.pseudoElement} ${e.propertyName}`));
}"""


def test_a_copy_button_s_tooltip_is_drawn_only_under_a_pointer(server, browser):
    """Resting, a copy button's tooltip is not drawn at all, so a page does not lay out one per code
    block as it loads (lazy-sections.css); under a pointer it reads "复制" and still fades in."""
    context, _ = offline_context(browser)
    try:
        page = context.new_page()
        page.goto(server.url("zh/book/prerequisites.html"))
        buttons = page.locator(".bd-article button.copybtn")
        resting = buttons.evaluate_all(f"(buttons) => buttons.map({TOOLTIP})")
        page.evaluate(FADES)
        buttons.first.hover()
        faded_in = f"(button) => ({TOOLTIP})(button).opacity === '1'"
        page.wait_for_function(faded_in, arg=buttons.first.element_handle(), timeout=10_000)
        hovered = buttons.first.evaluate(TOOLTIP)
        fades = page.evaluate("fades")
    finally:
        context.close()
    assert resting and all(tip["display"] == "none" for tip in resting), resting
    assert hovered == {"display": "block", "opacity": "1", "content": '"复制"'}, hovered
    assert "::after opacity" in fades, f"the tooltip appeared without fading in: {fades}"


def test_a_link_to_a_section_lands_on_its_heading(server, browser, crawl):
    """A link to a section of the heaviest chapter shows its heading under the header (or on
    screen, where the page ends first), on a phone and on a desktop, followed from another page
    or within the chapter, though the page draws its blocks only as they come near."""
    heaviest = max(crawl, key=lambda name: crawl[name].weights["total"])
    missed = []
    for width in (412, 1280):
        context, _ = offline_context(browser, viewport={"width": width, "height": 823})
        try:
            page = context.new_page()
            page.goto(server.url(heaviest))
            ids = page.eval_on_selector_all(".bd-article > section section[id]", "els => els.map(e => e.id)")
            for target in [ids[0], ids[len(ids) // 2], ids[-1]]:
                page.goto(server.url("index.html"))
                page.goto(server.url(f"{heaviest}#{target}"))
                missed += landing(page, target, f"{width} px, #{target} from another page")
                page.goto(server.url(heaviest))
                page.evaluate("(id) => { location.hash = id; }", target)
                missed += landing(page, target, f"{width} px, #{target} within the chapter")
        finally:
            context.close()
    assert not missed, f"{heaviest}: links that land elsewhere:\n" + "\n".join(missed)


# The Lighthouse categories the heaviest page is held to here. Accessibility is axe's, which the
# crawl runs on every page and every figure state (test_no_page_has_a_serious_accessibility_problem);
# performance (budget 90) is a timing. benchmarks/lighthouse.py measures both, next to their budgets.
HELD = ("best-practices", "seo")


def test_the_heaviest_page_meets_its_lighthouse_budget(site, crawl):
    """Lighthouse's mobile audit of the page a first visit downloads most for, served with gzip."""
    heaviest = max(crawl, key=lambda name: crawl[name].weights["total"])
    with serve(site, gzip=True) as server:
        scores = lighthouse.scores(lighthouse.audit(server.url(heaviest), HELD))
    under = {name: scores[name] for name in HELD if scores[name] < lighthouse.BUDGETS[name]}
    assert not under, f"{heaviest}: {under} against {lighthouse.BUDGETS}"


def search(browser, server, term: str, edition: str = "") -> list[str]:
    """The result links an edition's search page (``""`` English, ``"zh/"`` Chinese) lists for a term,
    opened as the header's search box opens it (the page with the crawl's checks, with a query)."""
    with first_visit(browser, server.url(f"{edition}search.html?q={term}")) as (page, _):
        page.wait_for_function(
            "() => document.querySelector('#search-results .search-summary')?.textContent.trim()",
            timeout=15_000,
        )
        return page.eval_on_selector_all("#search-results ul.search li a", "els => els.map(e => e.href)")


def test_search_finds_a_term_and_only_pages_that_exist(site, server, browser):
    links = search(browser, server, "attention")
    assert links, "searching for 'attention' found nothing"
    for link in links:
        path = page_downloads.local_file(site, link)
        assert path.is_file(), f"search result points to a missing page: {link}"
    assert search(browser, server, "qzxwvjkk") == [], "a nonsense word should match nothing"


def test_only_the_search_pages_load_the_search_index(site):
    loading = [
        str(path.relative_to(site))
        for path in site.rglob("*.html")
        if re.search(r"<script[^>]*searchindex\.js", path.read_text(encoding="utf-8"))
    ]
    assert sorted(loading) == ["search.html", "zh/search.html"]


def test_the_chinese_edition_finds_a_chinese_term(site, server, browser):
    links = search(browser, server, "注意力权重", edition="zh/")
    assert links, "searching the Chinese edition for 注意力权重 found nothing"
    assert all("/zh/book/" in link for link in links), links


# Each interactive figure's visible text, and the text each of its elements holds itself.
FIGURE_TEXTS = """() => [...document.querySelectorAll('.sa-fig[data-sa-ready]')].map((fig) => ({
    kind: fig.dataset.kind,
    title: fig.querySelector('.sa-title').innerText,
    description: fig.querySelector('.sa-sr').textContent,
    body: fig.querySelector('.sa-body').innerText,
    own: [...fig.querySelectorAll('*')].map((n) => [...n.childNodes].filter((c) => c.nodeType === 3)
        .map((c) => c.textContent).join('').trim()).filter(Boolean),
}))"""
CHINESE = re.compile(r"[\u4e00-\u9fff]")
# Every interactive figure of a page drawn (the crawl's settle scrolls to each in turn).
ALL_DRAWN = (
    "() => [...document.querySelectorAll('.sa-fig')].every((fig) => fig.hasAttribute('data-sa-ready'))"
)


def figure_texts(page) -> list[dict]:
    """FIGURE_TEXTS of ``page`` once every figure is drawn (or, if one never is, those drawn)."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(ALL_DRAWN)
    return page.evaluate(FIGURE_TEXTS)


def english_in(texts: dict, english: list[str]) -> list[str]:
    """What the scripts write in English that shows in a figure's ``texts`` (FIGURE_TEXTS): a
    label that is all of an element's text, or a longer piece of a sentence around its values."""
    labels = {text for text in english if "{" not in text}
    pieces = {
        piece.strip()
        for text in english
        for piece in re.split(r"\{\w+\}", text)
        if len(piece.strip()) >= 12 and re.search("[A-Za-z]{3}", piece)
    }
    return sorted({t for t in texts["own"] if t in labels} | {p for p in pieces if p in texts["body"]})


def test_the_chinese_edition_s_figures_and_live_code_read_in_chinese(site, crawl):
    """On the crawl's visit to each Chinese page with figures, every figure is drawn and reads in
    Chinese, and so does the Live Code button (the visit's errors are checked with every page's)."""
    pages = sorted(p for p in (site / "zh" / "book").glob("*.html") if 'class="sa-fig"' in p.read_text())
    assert len(pages) >= 5, pages
    english, problems, kinds = package_texts(), [], set()
    for path in pages:
        name = path.relative_to(site).as_posix()
        figures, button = crawl[name].figure_texts, crawl[name].live_code_button
        count = path.read_text().count('class="sa-fig"')
        if len(figures) != count:
            problems.append(f"{name}: {len(figures)} of its {count} figures drawn")
        kinds |= {figure["kind"] for figure in figures}
        if not CHINESE.search(button):
            problems.append(f"{name}: the live code button reads {button!r}")
        for figure in figures:
            where = f"{name} {figure['kind']}"
            problems += [
                f"{where}: no Chinese in its {part}"
                for part in ("title", "description", "body")
                if not CHINESE.search(figure[part])
            ]
            problems += [f"{where}: English {text!r}" for text in english_in(figure, english)]
    assert len(kinds) == len(INTERACTIVE_FIGURES), sorted(kinds)
    assert not problems, "\n".join(problems)


def shifted(value):
    """A figure's words (their JSON) with every computed number changed, as on another machine."""
    if isinstance(value, dict):
        return {"words": value["words"], "values": {k: shifted(v) for k, v in value["values"].items()}}
    if isinstance(value, list):
        return [shifted(item) for item in value]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return value + 1 if isinstance(value, int) else value + 0.0123


def with_other_numbers(page: str) -> str:
    """``page`` as if its figures had been computed elsewhere: each Words value changed."""

    def attribute(match: re.Match) -> str:
        words = json.dumps(shifted(json.loads(html.unescape(match.group(1)))), ensure_ascii=False)
        return f'data-words="{html.escape(words)}"'

    def block(match: re.Match) -> str:
        placed = [[path, shifted(words)] for path, words in json.loads(match.group(2))]
        return match.group(1) + embedded_json(placed) + match.group(3)

    return TEMPLATES.sub(block, TEMPLATE.sub(attribute, page))


def figure_words(page: str) -> list[str]:
    """What a reader reads of each figure in ``page``: titles, descriptions, the data's Words."""
    texts = [
        html.unescape(match.group(3)) for match in WORDS.finditer(page) if "sa-fallback" not in match.group(1)
    ]
    for figure in FIGURE.findall(page):
        data, placed = DATA.search(figure), TEMPLATES.search(figure)
        for path, _ in json.loads(placed.group(2)) if placed else []:
            value = json.loads(data.group(2).replace("<\\/", "</"))
            for step in path:
                value = value[step]
            texts.append(value)
    return texts


def translated(catalog: dict[str, str], text: str) -> str:
    return catalog.get(text) or text


def test_figures_computed_with_other_numbers_still_read_in_chinese(site):
    """The Chinese build translates a figure's words from its chapter's catalog; here the English
    pages' figures, every computed value changed, are translated the same way: each text reads in
    Chinese and shows the changed numbers, so no catalog entry holds one build's digits."""
    pages = sorted(p for p in (site / "book").glob("*.html") if 'class="sa-fig"' in p.read_text())
    assert len(pages) >= 5, pages
    problems, changed = [], 0
    for path in pages:
        catalog = {m.id: m.string for m in read(CATALOGS / f"{path.stem}.po") if m.id and not m.fuzzy}
        page = path.read_text(encoding="utf-8")
        pieces = {
            piece.strip()
            for text in figure_messages(page)
            for piece in re.split(r"\{[^{}]*\}", text)
            if len(piece.strip()) >= 12 and re.search("[A-Za-z]{3}", piece)
        }
        ours = figure_words(map_texts(page, partial(translated, catalog)))
        theirs = figure_words(map_texts(with_other_numbers(page), partial(translated, catalog)))
        for text in theirs:
            left = [piece for piece in pieces if piece in text]
            if left or not CHINESE.search(text):
                problems.append(f"{path.name}: English {left or text[:90]!r}")
        changed += sum(a != b for a, b in zip(ours, theirs, strict=True))
    assert not problems, "\n".join(problems)
    assert changed >= 10, "the changed numbers are filled into the translations"


IMAGE = re.compile(r'<img [^>]*src="[^"]*_images/([^"/]+)"')


def test_the_chinese_edition_draws_its_figures_words_in_chinese(site):
    """The images the chapters draw show their words in Chinese on the Chinese site: each is
    another file than the English one (redrawn from the figure's SVG with the chapter's
    translations, _ext/editions/translation/figure_text.py), of the same pixel size, so the page keeps its
    layout. Only a drawing whose words are all code, numbers or names stays as it is (two:
    prerequisites' matrix product and embedding lookup)."""
    redrawn, kept, resized = 0, [], []
    for page in sorted((site / "book").glob("*.html")):
        english = IMAGE.findall(page.read_text(encoding="utf-8"))
        chinese = IMAGE.findall((site / "zh" / "book" / page.name).read_text(encoding="utf-8"))
        assert len(english) == len(chinese), f"{page.name}: {len(english)} images, {len(chinese)} in Chinese"
        for ours, theirs in zip(english, chinese, strict=True):
            if ours == theirs:
                kept.append(page.name)
                continue
            redrawn += 1
            with Image.open(site / "_images" / ours) as a, Image.open(site / "zh" / "_images" / theirs) as b:
                if a.size != b.size:
                    resized.append(f"{page.name}: {a.size} in English, {b.size} in Chinese")
    assert kept == ["prerequisites.html"] * 2, f"drawn in English on the Chinese site: {kept}"
    assert not resized, "\n".join(resized)
    assert redrawn >= 40, redrawn


def glued(page: Path) -> Counter:
    """The values glued into a page's text (MyST-NB's pasted-text spans)."""
    return Counter(re.findall(r'<span class="pasted-text">([^<]*)</span>', page.read_text(encoding="utf-8")))


def test_both_editions_show_the_same_glued_values_on_every_page(site):
    pages = sorted((site / "book").glob("*.html"))
    assert pages and all((site / "zh" / "book" / page.name).is_file() for page in pages)
    differ = [page.name for page in pages if glued(page) != glued(site / "zh" / "book" / page.name)]
    assert not differ, f"the editions show different numbers on {differ}"


# What the book's extensions and the theme write around the chapters, found in a page's HTML.
CHROME = {
    "the sidebar's title": r'logo__title">([^<]*)<',
    "a part's caption": r'role="heading"><span class="caption-text">([^<]*)<',
    "an exercise's title": r'<span class="caption-number">[^<]*</span>\s*\((.*?)\)</p>',
    "the edition line": r'class="edition">(.*?)</p>',
    "the author": r'component-author">(.*?)</p>',
}


def test_the_chinese_edition_reads_in_chinese_around_its_chapters(site):
    pages = sorted((site / "zh" / "book").glob("*.html"))
    found = {what: [] for what in CHROME}
    for page in pages:
        html = page.read_text(encoding="utf-8")
        for what, pattern in CHROME.items():
            found[what] += [(page.name, text.strip()) for text in re.findall(pattern, html, re.S)]
    assert all(found.values()), f"not on any page: {[what for what, texts in found.items() if not texts]}"
    english = {
        what: sorted({text for _, text in texts if not CHINESE.search(text)}) for what, texts in found.items()
    }
    assert not any(english.values()), f"still in English: {english}"


def figure_legibility(png: bytes) -> tuple[float, float]:
    """Relative luminance (0 black .. 1 white) of a figure's outer ring, and of its darkest 0.5% of pixels."""
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float) / 255  # (H, W, 3)
    lum = rgb @ np.array([0.2126, 0.7152, 0.0722])  # (H, W)
    ring = np.concatenate([lum[1], lum[-2], lum[:, 1], lum[:, -2]])
    return float(ring.mean()), float(np.quantile(lum, 0.005))


BACKGROUND = "() => getComputedStyle(document.body).backgroundColor"
THEME = "() => document.documentElement.dataset.theme"


def is_dark(color: str) -> bool:
    """Whether a CSS ``rgb(...)`` colour is dark (relative luminance below 0.3)."""
    r, g, b = (int(v) for v in re.findall(r"\d+", color)[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.3 * 255


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_first_visit_is_painted_in_the_reader_s_colours_at_once(server, browser, scheme):
    """Before the theme's script runs (held back here), a first-time reader's page already has
    its colours and borders: nothing flashes white in dark mode, nothing moves when they come."""
    context, _ = offline_context(browser, color_scheme=scheme)
    try:
        page = context.new_page()
        page.route("**/pydata-sphinx-theme.js*", lambda route: route.abort())
        page.goto(server.url("book/gpt-recap.html"))
        painted = page.evaluate("""() => ({
            theme: document.documentElement.dataset.theme,
            stored: localStorage.getItem("theme"),
            border: getComputedStyle(document.querySelector("code.literal")).borderTopWidth,
        })""")
        painted["background"] = page.evaluate(BACKGROUND)
    finally:
        context.close()
    assert painted["stored"] is None, "the theme's script ran: it stores the theme it picks"
    assert painted["theme"] == scheme, painted
    assert painted["background"] != "rgba(0, 0, 0, 0)" and is_dark(painted["background"]) == (
        scheme == "dark"
    ), painted
    assert painted["border"] == "1px", (
        f"inline code is drawn without its border until the theme's script runs: {painted}"
    )


def switched(page, visit: Visit, scheme: str) -> SchemeLook:
    """``page`` switched to the reader's colour ``scheme``: the theme and background it then shows,
    each content figure's legibility on screen, and the browser errors that came meanwhile."""
    before = list(visit.errors)
    switch(page, scheme)
    figures = []
    for figure in page.query_selector_all(FIGURES):
        figure.scroll_into_view_if_needed()
        figures.append(figure_legibility(page.screenshot(clip=figure.evaluate(CONTENT_BOX))))
    page.evaluate("() => window.scrollTo(0, 0)")
    errors = [error for error in visit.errors if error not in before]
    return SchemeLook(page.evaluate(THEME), page.evaluate(BACKGROUND), figures, errors)


def test_figures_are_legible_in_light_and_dark_mode(crawl):
    """Every page, on its one visit, switched to the reader's light and then dark scheme: the page
    takes the scheme's theme and background, and every figure keeps a light card and dark ink."""
    checked, problems = 0, []
    for name, report in crawl.items():
        for scheme, look in report.schemes.items():
            if look.theme != scheme:
                problems.append(f"{name}: the reader's {scheme} preference gave theme {look.theme!r}")
            if is_dark(look.background) != (scheme == "dark"):
                problems.append(f"{name}: a {scheme} page has background {look.background}")
            for index, (card, ink) in enumerate(look.figures):
                checked += 1
                if card < 0.75 or ink > 0.35:
                    problems.append(
                        f"{name} figure {index + 1} in {scheme} mode: "
                        f"background {card:.2f}, darkest ink {ink:.2f}"
                    )
            problems += [
                f"{name}: browser error in {scheme} mode only: {error}" for error in sorted(set(look.errors))
            ]
    assert checked, "no figures found to check"
    assert not problems, (
        "a figure needs a light card >= 0.75 and dark ink <= 0.35 in both modes "
        "(selfattn.plotting.use_book_style() gives both):\n" + "\n".join(problems)
    )


class _Links(HTMLParser):
    """Every id on a page, and every link or resource it refers to."""

    ATTRIBUTES = {
        "a": "href",
        "link": "href",
        "script": "src",
        "img": "src",
        "source": "src",
        "iframe": "src",
    }
    LOADING_RELS = {"stylesheet", "preload", "modulepreload", "prefetch", "icon", "manifest", "preconnect"}

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.refs: list[tuple[str, str]] = []  # ("link" | "resource", URL)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name"):
            if values.get(key) and (key == "id" or tag == "a"):
                self.ids.add(values[key])
        wanted = self.ATTRIBUTES.get(tag)
        if wanted and values.get(wanted):
            # A <link> that only names a page (canonical, next, ...) is navigation, like <a>.
            loads = tag != "a" and (
                tag != "link" or bool(self.LOADING_RELS & set((values.get("rel") or "").split()))
            )
            self.refs.append(("resource" if loads else "link", values[wanted]))
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "refresh":
            self.refs.append(("link", (values.get("content") or "").partition("url=")[2]))


def parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_link_within_the_site_resolves_to_a_file_and_anchor(site):
    pages = sorted(
        p for p in site.rglob("*.html") if not {"_static", "_sources"} & set(p.relative_to(site).parts)
    )
    parsed = {path: parse(path) for path in pages}
    problems = []
    for path, links in parsed.items():
        page_url = "file:///" + path.relative_to(site).as_posix()
        for kind, ref in links.refs:
            url = urlsplit(urljoin(page_url, ref))
            if url.scheme in {"mailto", "javascript", "data", "tel"}:
                continue
            where = f"{path.relative_to(site)}: {kind} {ref}"
            if url.scheme != "file":
                if kind == "resource":
                    problems.append(f"{where} loads an outside resource")
                continue
            target = site / unquote(url.path).lstrip("/")
            target = target / "index.html" if target.is_dir() else target
            if not target.is_file():
                if target.name in (PDF.name, EPUB_NAME.name) and target.parent in (site, site / "zh"):
                    continue  # the PDF and EPUB editions come after the sites: tests/pdf holds these links
                problems.append(f"{where} -> missing file")
            elif url.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else parse(target).ids
                if unquote(url.fragment) not in ids:
                    problems.append(f"{where} -> no anchor #{url.fragment}")
    assert len(parsed) >= 3, f"too few pages found in {site}"
    assert not problems, "broken links within the site:\n" + "\n".join(problems)


def test_pages_stay_within_the_weight_budget(site, crawl):
    weights = {name: report.weights for name, report in crawl.items()}
    total = max(
        page_downloads.site_size(site, edition)[0] for edition in ("", *page_downloads.EDITION_FOLDERS)
    )
    problems = page_downloads.over_budget(weights, total)
    assert not problems, (
        "over the page-weight budget:\n" + "\n".join(problems) + "\n" + page_downloads.table(weights)
    )
    assert all(w["html"] and w["js"] and w["css"] for w in weights.values()), "the weights missed files"


def test_each_edition_s_style_sheet_leaves_out_the_rules_no_page_uses(site):
    for edition in ("", *page_downloads.EDITION_FOLDERS):
        static = site / edition / "_static"
        (bundle,) = static.glob("styles-*.css")
        css = bundle.read_text(encoding="utf-8")
        pages = [p.read_text(encoding="utf-8") for p in (site / edition).glob("**/*.html")]
        # sphinx-design (which Jupyter Book adds) styles cards, grids and tabs no page has
        assert not any('class="sd-' in page or " sd-" in page for page in pages), "a page uses sphinx-design"
        assert ".sd-card" not in css and ".sd-tab-set" not in css, f"{bundle} keeps rules no page uses"
        for kept in ('html[data-theme="dark"]', ".toggle-hidden", ".dropdown-menu", ".katex .sqrt"):
            assert kept in css, f"{bundle} lost {kept}, which a page or a script uses"


def test_every_image_of_a_chapter_loads_lazily(site):
    """docutils.conf's image_loading: each of the book's images is fetched as a reader nears it."""
    tags = [
        (page, tag)
        for page in page_downloads.site_pages(site)
        for tag in re.findall(r"<img [^>]*_images/[^>]*>", page.read_text(encoding="utf-8"))
    ]
    assert len(tags) > 50, "the chapters' images were not found"
    eager = [f"{page.relative_to(site)}: {tag[:160]}" for page, tag in tags if 'loading="lazy"' not in tag]
    assert not eager, "images fetched while the page first loads:\n" + "\n".join(eager[:10])


def test_code_blocks_hold_no_span_that_looks_like_plain_text(site):
    """bookbuild/optimize.py's quiet_tokens: a name or a punctuation mark is the block's own text."""
    blocks = [
        block
        for page in page_downloads.site_pages(site)
        for block in re.findall(
            r'<div class="highlight"><pre>.*?</pre>', page.read_text(encoding="utf-8"), re.S
        )
    ]
    assert len(blocks) > 100 and any('<span class="k">' in block for block in blocks), (
        "no highlighted code found"
    )
    plain = [block[:200] for block in blocks if re.search(r'<span class="[np]">', block)]
    assert not plain, f"{len(plain)} code blocks keep spans drawn like plain text, such as:\n{plain[0]}"


def test_the_readme_states_the_budget_the_tests_enforce():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for limit in (page_downloads.PAGE_BUDGET, page_downloads.GZIP_BUDGET, page_downloads.SITE_BUDGET):
        assert f"{limit / 1e6:g} MB" in readme, f"README does not state the {limit / 1e6:g} MB budget"


def test_visible_code_teaches_and_the_builds_bookkeeping_stays_hidden(site):
    """glue() calls record numbers for the prose; they run in hidden cells, never in the code shown."""
    shown = {
        page.stem: [block for block in code_blocks(page) if "glue(" in block or "myst_nb" in block]
        for page in sorted((site / "book").glob("*.html"))
    }
    assert {name: blocks for name, blocks in shown.items() if blocks} == {}
