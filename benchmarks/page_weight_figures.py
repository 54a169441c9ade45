"""Bytes the interactive figures add to each built page: their script, their data, their markup.

Every figure output carries its data (JSON) and a copy of the shared figure script (with its
stylesheet inside); the browser runs the first copy and skips the rest. On the built site the
book's Sphinx extension (_ext/content/figure_script.py) takes the copies out of the page into one script
file that every page shares, so a built page's code column is 0.

    python -m benchmarks.page_weight_figures [PATH ...]    # built pages or folders; default _build/html
    python -m benchmarks.page_weight_figures --figures     # the thirteen figures of the book's own run

Prints one row per page (or per figure) that holds figures.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bookbuild import SITE
from selfattn import ATTENTION
from tools.figure_page import draw
from tools.page_downloads import FigureWeight, figure_weight


def print_table(rows: list[tuple[str, FigureWeight]]) -> None:
    header = (
        f"{'':<34}{'figures':>8}{'code':>10}{'(1 copy)':>10}{'data':>10}{'markup':>9}{'total':>10}{'gzip':>9}"
    )
    print(header)
    for name, w in rows:
        print(
            f"{name:<34}{w.figures:>8}{w.code:>10,}{w.code_unique:>10,}{w.data:>10,}{w.markup:>9,}"
            f"{w.total:>10,}{w.gzipped:>9,}"
        )


def reference_figures() -> list[tuple[str, FigureWeight]]:
    """The thirteen figures drawn from the chapters' attention run (about a minute of training)."""
    _, figures = draw(ATTENTION, bigram='fit("bigram", BIGRAM)[1]')
    rows = [(kind, figure_weight(f.to_html())) for kind, f in figures.items()]
    return rows + [("all of them on one page", figure_weight("".join(f.to_html() for f in figures.values())))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[SITE])
    parser.add_argument("--figures", action="store_true", help="measure every reference figure instead")
    args = parser.parse_args()
    if args.figures:
        print_table(reference_figures())
        return
    pages = [
        page for path in args.paths for page in (sorted(path.rglob("*.html")) if path.is_dir() else [path])
    ]
    rows = [
        (str(page.relative_to(page.parents[1])), figure_weight(page.read_text(encoding="utf-8")))
        for page in pages
    ]
    rows = [(name, weight) for name, weight in rows if weight.figures]
    if rows:
        print_table(rows)
    else:
        print("No page with interactive figures under", ", ".join(map(str, args.paths)))


if __name__ == "__main__":
    main()
