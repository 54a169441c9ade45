"""What a reader downloads: bytes per page of the built site, and the site's total size.

Every page is opened on a first visit (empty cache) in headless Chromium with all outside traffic
blocked, and every file the page fetched is counted at its size on disk: the HTML, its scripts
and style sheets, fonts, images, and data (search index, MathJax's on-demand pieces, ...).

    python benchmarks/page_weight.py [SITE]      # SITE defaults to _build/html

Prints a table and exits 1 when a page or the site is over the budget stated in the README.
The browser and server helpers here are shared with tests/test_site.py.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
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

# The budget (also written in the README): a first visit to any page, everything it downloads,
# and the whole built site on disk.
PAGE_BUDGET = 5_000_000
SITE_BUDGET = 60_000_000

KINDS = {
    "html": {".html"},
    "js": {".js", ".mjs"},
    "css": {".css"},
    "fonts": {".woff", ".woff2", ".ttf", ".otf", ".eot"},
    "images": {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".ico"},
}
COLUMNS = [*KINDS, "data"]


def kind_of(path: str) -> str:
    """The column a file counts in: by extension, anything else is data."""
    suffix = Path(path).suffix.lower()
    return next((kind for kind, suffixes in KINDS.items() if suffix in suffixes), "data")


def site_pages(site: Path) -> list[Path]:
    """Every reader-facing HTML page of a built site (not theme assets, not redirect stubs)."""
    skip = {"_static", "_sources", "_images", "_downloads"}
    pages = []
    for path in sorted(site.rglob("*.html")):
        if skip & set(path.relative_to(site).parts):
            continue
        head = path.read_text(encoding="utf-8", errors="replace")[:2000].lower()
        if 'http-equiv="refresh"' not in head:
            pages.append(path)
    return pages


def chapter_pages(site: Path) -> list[Path]:
    """The book's own pages: everything but Sphinx's generated index and search pages."""
    return [page for page in site_pages(site) if page.name not in {"genindex.html", "search.html"}]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib's name)
        pass


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve a folder on a free loopback port; yields the base URL (ending in '/')."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chromium() -> Iterator[object]:
    """Debian's headless Chromium driven by Playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Visit:
    """What one first visit to a page did: files fetched, requests blocked, errors seen."""

    fetched: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)


def offline_context(browser, visit: Visit, **options):
    """A fresh browser context whose only network is loopback; everything else is aborted."""
    context = browser.new_context(**options)

    def route(route) -> None:
        host = urlsplit(route.request.url).hostname or ""
        if host in LOOPBACK or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            visit.blocked.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    return context


def watch(page, visit: Visit) -> None:
    """Record a page's console errors, uncaught exceptions, fetched files and failed requests."""
    page.on("console", lambda msg: msg.type == "error" and visit.console_errors.append(msg.text))
    page.on("pageerror", lambda exc: visit.page_errors.append(str(exc)))
    page.on("requestfinished", lambda request: visit.fetched.append(request.url))

    def failed(request) -> None:
        if (urlsplit(request.url).hostname or "") in LOOPBACK:
            visit.failed.append(f"{request.url} ({request.failure})")

    page.on("requestfailed", failed)
    page.on("response", lambda r: r.status >= 400 and visit.failed.append(f"{r.url} (HTTP {r.status})"))


def settle(page) -> None:
    """Wait until the page is loaded, its images decoded, its math typeset and its fonts in."""
    page.wait_for_load_state("load")
    page.evaluate(
        """async () => {
            for (const img of document.images) img.loading = "eager";
            await Promise.all([...document.images].map((img) => img.decode().catch(() => null)));
            if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
                await MathJax.startup.promise;
            }
            await document.fonts.ready;
        }"""
    )


def local_file(site: Path, url: str) -> Path:
    """The file a loopback URL of the served site maps to."""
    path = unquote(urlsplit(url).path).lstrip("/")
    target = site / path
    return target / "index.html" if target.is_dir() else target


@contextmanager
def open_page(browser, base: str, site: Path, page_path: Path, visit: Visit, **options) -> Iterator[object]:
    """A first visit to one page in a fresh offline context; yields the settled page."""
    context = offline_context(browser, visit, **options)
    try:
        page = context.new_page()
        watch(page, visit)
        page.goto(base + page_path.relative_to(site).as_posix())
        settle(page)
        yield page
    finally:
        context.close()


def tally(site: Path, visit: Visit) -> dict[str, int]:
    """Bytes per kind that a visit downloaded (each file counted once), total, and gzipped total."""
    weights = dict.fromkeys([*COLUMNS, "total", "gzip"], 0)
    for url in set(visit.fetched):
        if (urlsplit(url).hostname or "") in LOOPBACK:
            file = local_file(site, url)
            if file.is_file():
                weights[kind_of(file.name)] += file.stat().st_size
                weights["gzip"] += gzipped_size(file)
    weights["total"] = sum(weights[kind] for kind in COLUMNS)
    return weights


def weigh(browser, base: str, site: Path, page_path: Path) -> dict[str, int]:
    """What a first visit to one page downloads, per kind."""
    visit = Visit()
    with open_page(browser, base, site, page_path, visit):
        pass
    return tally(site, visit)


@functools.cache
def gzipped_size(file: Path) -> int:
    """Bytes on the wire from a server that compresses (most static hosts do)."""
    return len(gzip.compress(file.read_bytes(), compresslevel=6))


def site_size(site: Path) -> tuple[int, int]:
    """(bytes, files) of everything in the built site."""
    files = [path for path in site.rglob("*") if path.is_file()]
    return sum(path.stat().st_size for path in files), len(files)


def measure(site: Path) -> dict[str, dict[str, int]]:
    """Weights of every page of the site, keyed by its path relative to the site."""
    with serve(site) as base, chromium() as browser:
        return {
            page.relative_to(site).as_posix(): weigh(browser, base, site, page) for page in site_pages(site)
        }


def over_budget(weights: dict[str, dict[str, int]], total: int) -> list[str]:
    """Every way the site breaks the budget, in words."""
    problems = [
        f"{name}: {row['total']:,} bytes > page budget {PAGE_BUDGET:,}"
        for name, row in weights.items()
        if row["total"] > PAGE_BUDGET
    ]
    if total > SITE_BUDGET:
        problems.append(f"whole site: {total:,} bytes > site budget {SITE_BUDGET:,}")
    return problems


def table(weights: dict[str, dict[str, int]]) -> str:
    """A plain-text table, kB per kind, one page a row, heaviest first."""
    header = ["page", *COLUMNS, "total", "gzip"]
    rows = [
        [name, *(f"{row[kind] / 1000:,.1f}" for kind in header[1:])]
        for name, row in sorted(weights.items(), key=lambda item: -item[1]["total"])
    ]
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in [header, *rows]
    ]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "site", nargs="?", type=Path, default=ROOT / "_build" / "html", help="built HTML folder"
    )
    args = parser.parse_args(argv)
    if not (args.site / "search.html").is_file():
        parser.error(f"{args.site} is not a built site (run `make book` first)")
    weights = measure(args.site)
    total, files = site_size(args.site)
    print("kB downloaded on a first visit to each page (all outside requests blocked);")
    print("gzip: the same files as a compressing server sends them\n")
    print(table(weights))
    heaviest = max(weights, key=lambda name: weights[name]["total"])
    print(f"\npages: {len(weights)}; heaviest: {heaviest} at {weights[heaviest]['total'] / 1e6:.2f} MB")
    print(f"whole site: {total / 1e6:.1f} MB in {files:,} files")
    print(f"budget: {PAGE_BUDGET / 1e6:.1f} MB a page, {SITE_BUDGET / 1e6:.0f} MB the site")
    problems = over_budget(weights, total)
    for problem in problems:
        print("OVER BUDGET:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
