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

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from fontTools.ttLib import TTFont
from playwright.sync_api import expect

from benchmarks import lighthouse
from bookbuild import EPUB_NAME, ROOT
from tests.helpers import PDF, code_blocks
from tests.site.crawl import BACKGROUND, PHONE, PageReport, failures, is_dark
from tools import page_downloads
from tools.browser import first_visit, offline_context
from tools.serve import serve

pytestmark = pytest.mark.book

# Alt text that is only the image's file name (what a plain cell output gets) describes nothing.
FILE_NAME = re.compile(r"\.(png|jpe?g|gif|svg|webp)$", re.I)


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


def test_figures_stay_accessible_in_every_state_their_controls_reach(crawl):
    """Each group of a figure's controls pressed in turn, axe checks the figures after each group
    (on the crawl's visit, after its other checks); pressing them throws nothing."""
    problems = [f"{name}, {p}" for name, report in crawl.items() for p in dict.fromkeys(report.figure_states)]
    assert any(report.probe["figures"] for report in crawl.values()), "the check saw no figure at all"
    assert not problems, "axe's findings in the figures' states:\n" + "\n".join(problems)


def test_no_figure_scrolls_sideways_on_a_desktop(crawl):
    """At the crawl's desktop width every interactive figure fits the page's column (a quatrain's
    head maps are drawn compact); only on a phone may a wide one scroll."""
    problems = failures(
        crawl, lambda r: {f["kind"]: f["sideways"] for f in r.figure_texts if f["sideways"] > 1} or None
    )
    assert not problems, f"figures wider than the column (px):\n{problems}"


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
