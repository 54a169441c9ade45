"""One visit to every page of a built site in Debian's headless Chromium, and what it found
(``crawl_site``; the ``crawl`` fixture in this folder's conftest.py holds it for the session): the
probes a visit runs, the figures' controls pressed, the light and dark looks, and the helpers that
read the reports."""

from __future__ import annotations

import contextlib
import copy
import io
import re
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tools import page_downloads
from tools.browser import Visit, accessibility_problems, first_visit, switch
from tools.serve import SiteServer

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


def crawl_site(site: Path, server: SiteServer, browser) -> dict[str, PageReport]:
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


# Each interactive figure's visible text, and the text each of its elements holds itself.
FIGURE_TEXTS = """() => [...document.querySelectorAll('.sa-fig[data-sa-ready]')].map((fig) => ({
    kind: fig.dataset.kind,
    title: fig.querySelector('.sa-title').innerText,
    description: fig.querySelector('.sa-sr').textContent,
    body: fig.querySelector('.sa-body').innerText,
    own: [...fig.querySelectorAll('*')].map((n) => [...n.childNodes].filter((c) => c.nodeType === 3)
        .map((c) => c.textContent).join('').trim()).filter(Boolean),
    sideways: fig.scrollWidth - fig.clientWidth,
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
