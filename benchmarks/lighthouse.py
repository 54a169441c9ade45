"""Lighthouse's scores for the built site's pages, on its default mobile profile, next to the budget.

The site is served from 127.0.0.1 with text gzipped, as GitHub Pages serves it, and Lighthouse
(npm, as package-lock.json pins it) drives Debian's Chromium with no internet.

    python -m benchmarks.lighthouse [PAGE ...] [--site DIR] [--runs N]   # every chapter, both editions

Prints each page's four scores, its first and largest contentful paint, each the median of
``--runs`` audits (Lighthouse's own advice: its performance score moves by several points from
one run to the next, most of all its blocking time), and exits 1 if any score is under its budget.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _ext.npm_dependency import node_binary
from bookbuild import ROOT, SITE
from tools.browser import CHROMIUM
from tools.page_downloads import site_pages
from tools.serve import serve

LIGHTHOUSE = ROOT / "node_modules" / "lighthouse" / "cli" / "index.js"
BUDGETS = {"performance": 90, "accessibility": 100, "best-practices": 100, "seo": 100}
PAINTS = {"FCP": "first-contentful-paint", "LCP": "largest-contentful-paint"}


def audit(url: str, categories: tuple[str, ...] = tuple(BUDGETS)) -> dict:
    """Lighthouse's JSON report of ``url``, in ``categories`` (default: every one with a budget)."""
    with tempfile.TemporaryDirectory(prefix="lighthouse-") as folder:
        report = Path(folder) / "report.json"
        command = [
            node_binary(),
            str(LIGHTHOUSE),
            url,
            f"--only-categories={','.join(categories)}",
            "--output=json",
            f"--output-path={report}",
            "--quiet",
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        ]
        env = dict(os.environ, CHROME_PATH=CHROMIUM)
        result = subprocess.run(command, env=env, capture_output=True, text=True)
        if result.returncode != 0 or not report.is_file():
            raise SystemExit(f"lighthouse failed on {url}:\n{result.stderr[-2000:]}")
        return json.loads(report.read_text(encoding="utf-8"))


def scores(report: dict) -> dict[str, int]:
    """Each category's score out of 100."""
    return {name: round(100 * category["score"]) for name, category in report["categories"].items()}


def paints(report: dict) -> dict[str, float]:
    """The first and largest contentful paint, in seconds."""
    return {name: report["audits"][audit_id]["numericValue"] / 1000 for name, audit_id in PAINTS.items()}


def median(values: list[dict]) -> dict:
    """Each key's median over ``values``."""
    return {key: statistics.median(value[key] for value in values) for key in values[0]}


def chapter_pages(site: Path) -> list[str]:
    """Every chapter page of both editions, site-relative."""
    return [p.relative_to(site).as_posix() for p in site_pages(site) if "/book/" in f"/{p.relative_to(site)}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "pages", nargs="*", help="site-relative pages (default: every chapter, both editions)"
    )
    parser.add_argument("--site", type=Path, default=SITE, help=f"the built site (default: {SITE})")
    parser.add_argument(
        "--runs", type=int, default=3, help="audits of each page, their median shown (default: 3)"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs {args.runs}: a page needs at least one audit")
    if not LIGHTHOUSE.is_file():
        raise SystemExit(f"no Lighthouse in {LIGHTHOUSE.parent}: run `make install`")
    pages = args.pages or chapter_pages(args.site)
    header = "".join(f"{name:>16}" for name in BUDGETS) + "".join(f"{name:>8}" for name in PAINTS)
    print(f"{'page':<40}{header}")
    print(f"{'budget':<40}" + "".join(f"{f'>= {b}':>16}" for b in BUDGETS.values()))
    under = []
    with serve(args.site, gzip=True) as server:
        for page in pages:
            reports = [audit(server.url(page)) for _ in range(args.runs)]
            got = median([scores(report) for report in reports])
            shown = median([paints(report) for report in reports])
            marks = {name: "" if got[name] >= BUDGETS[name] else " !" for name in BUDGETS}
            print(
                f"{page:<40}"
                + "".join(f"{f'{got[name]:g}{marks[name]}':>16}" for name in BUDGETS)
                + "".join(f"{f'{shown[name]:.1f} s':>8}" for name in PAINTS),
                flush=True,
            )
            under += [page for name in BUDGETS if marks[name]]
    if under:
        print(f"under budget (!): {len(set(under))} of {len(pages)} pages")
    return 1 if under else 0


if __name__ == "__main__":
    sys.exit(main())
