"""What a reader downloads: bytes per page of the built site, and the site's total size.

Every page is opened on a first visit (empty cache) in headless Chromium with all outside traffic
blocked, and every file the page fetched is counted at its size on disk, by kind: the HTML, its
scripts and style sheets, fonts, images, and data (the search index, ...).
The measuring is ``tools.page_downloads``'s, the same that tests/site/test_site.py holds to the budget.

    python -m benchmarks.page_weight [SITE]      # SITE defaults to _build/html

Prints a table and exits 1 when a page or the site is over the budget stated in the README.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bookbuild import SITE
from tools.page_downloads import GZIP_BUDGET, PAGE_BUDGET, SITE_BUDGET, measure, over_budget, site_size, table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", nargs="?", type=Path, default=SITE, help="built HTML folder")
    args = parser.parse_args(argv)
    if not (args.site / "search.html").is_file():
        parser.error(f"{args.site} is not a built site (run `make book` first)")
    weights = measure(args.site)
    total, files = site_size(args.site)
    print("kB downloaded on a first visit to each page (all outside requests blocked);")
    print("gzip: the same files as a compressing server sends them\n")
    print(table(weights))
    heaviest = max(weights, key=lambda name: weights[name]["total"])
    row = weights[heaviest]
    print(
        f"\npages: {len(weights)}; heaviest: {heaviest} at {row['total'] / 1e6:.2f} MB "
        f"({row['gzip'] / 1e6:.2f} MB gzipped)"
    )
    print(f"whole site (without the PDF and the published runs): {total / 1e6:.1f} MB in {files:,} files")
    print(
        f"budget: {PAGE_BUDGET / 1e6:.1f} MB a page ({GZIP_BUDGET / 1e6:.1f} MB gzipped), "
        f"{SITE_BUDGET / 1e6:.0f} MB the site"
    )
    problems = over_budget(weights, total)
    for problem in problems:
        print("OVER BUDGET:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
