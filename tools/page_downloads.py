"""What a reader downloads: bytes per page of a built site, and what its figures add.

A page's weight is what a first visit to it downloads (fresh browser context, nothing cached,
no internet): every file fetched from the site, counted at its size on disk, by kind (HTML,
scripts, style sheets, fonts, images, data), and the same files gzipped, as most static hosts
send them. ``tests/site/test_site.py`` holds every page to the budget below;
``benchmarks/page_weight.py`` prints the table.

``figure_weight`` counts the bytes the interactive figures put in one page's HTML: their
script, their data and their markup.
"""

from __future__ import annotations

import functools
import gzip
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from _ext.content.reader_notebooks import FOLDER as NOTEBOOKS
from selfattn import published
from tools.browser import Visit, chromium, first_visit, is_loopback
from tools.serve import GZIP_LEVEL, serve

# The budget, also written in the README: a first visit to any page (as stored, and gzipped),
# and the whole built site of one edition without its PDF and EPUB, its chapters' notebooks and the
# published runs (a reader reads one edition; the others are downloads to read offline or to run,
# and no page loads them).
PAGE_BUDGET = 1_800_000
GZIP_BUDGET = 900_000
SITE_BUDGET = 12_000_000

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


def local_file(site: Path, url: str) -> Path:
    """The file a URL of the served site maps to."""
    target = site / unquote(urlsplit(url).path).lstrip("/")
    return target / "index.html" if target.is_dir() else target


@functools.cache
def gzipped_size(file: Path) -> int:
    """Bytes on the wire from a server that compresses."""
    return len(gzip.compress(file.read_bytes(), compresslevel=GZIP_LEVEL))


def tally(site: Path, visit: Visit) -> dict[str, int]:
    """Bytes per kind that a visit downloaded from the site (each file once), total, and gzipped total."""
    weights = dict.fromkeys([*COLUMNS, "total", "gzip"], 0)
    files = {local_file(site, url) for url in visit.fetched if is_loopback(url)}
    for file in files:
        if file.is_file():
            weights[kind_of(file.name)] += file.stat().st_size
            weights["gzip"] += gzipped_size(file)
    weights["total"] = sum(weights[kind] for kind in COLUMNS)
    return weights


# The other editions' folders in the English site.
EDITION_FOLDERS = ("zh",)


def site_size(site: Path, edition: str = "") -> tuple[int, int]:
    """(bytes, files) of one edition of the built site (``""`` English, ``"zh"``), with neither the
    PDF and EPUB, the chapters' notebooks nor the published runs: a reader downloads them to read
    offline or to run, not to read."""
    root = site / edition
    left_out = {NOTEBOOKS} | (
        {published.RUNS_FOLDER, *(name for name in EDITION_FOLDERS if name != edition)}
        if not edition
        else set()
    )
    files = [
        path
        for path in root.rglob("*")
        if path.is_file()
        and path.suffix not in (".pdf", ".epub")
        and not left_out & set(path.relative_to(root).parts[:1])
    ]
    return sum(path.stat().st_size for path in files), len(files)


def measure(site: Path) -> dict[str, dict[str, int]]:
    """The weight of every page of the site, keyed by its path relative to the site."""
    weights = {}
    with serve(site) as server, chromium() as browser:
        for page in site_pages(site):
            name = page.relative_to(site).as_posix()
            with first_visit(browser, server.url(name)) as (_, visit):
                pass
            weights[name] = tally(site, visit)
    return weights


def over_budget(weights: dict[str, dict[str, int]], total: int) -> list[str]:
    """Every way the site breaks the budget, in words."""
    problems = [
        f"{name}: {row[column]:,} bytes{label} > page budget {budget:,}"
        for name, row in weights.items()
        for column, label, budget in (("total", "", PAGE_BUDGET), ("gzip", " gzipped", GZIP_BUDGET))
        if row[column] > budget
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


# ---------------------------------------------------------------- the interactive figures in a page

FIGURE = re.compile(r'<figure class="sa-fig".*?</figure>', re.S)
DATA = re.compile(r'<script type="application/json" class="sa-data">(.*?)</script>', re.S)
CODE = re.compile(r"<script data-selfattn-figures>(.*?)</script>", re.S)
PART = re.compile(f"{FIGURE.pattern}|{CODE.pattern}", re.S)


@dataclass(frozen=True)
class FigureWeight:
    """Bytes (UTF-8) of the interactive figures in one page."""

    figures: int
    code: int  # every copy of the script
    code_unique: int  # one copy of each distinct script
    data: int  # the embedded JSON
    markup: int  # the figures' own elements, without their data
    gzipped: int  # all of the above in page order, gzip-compressed as a server would send it

    @property
    def total(self) -> int:
        return self.code + self.data + self.markup


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def figure_weight(html: str) -> FigureWeight:
    """The figure bytes in one page's HTML."""
    figures = FIGURE.findall(html)
    data = [m for f in figures for m in DATA.findall(f)]
    code = CODE.findall(html)
    return FigureWeight(
        figures=len(figures),
        code=sum(map(_size, code)),
        code_unique=sum(map(_size, set(code))),
        data=sum(map(_size, data)),
        markup=sum(map(_size, figures)) - sum(map(_size, data)),
        gzipped=len(gzip.compress("".join(m.group(0) for m in PART.finditer(html)).encode())),
    )
