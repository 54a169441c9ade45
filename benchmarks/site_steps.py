"""What the site's optimization (``bookbuild/optimize.py``) gains, step by step, in Lighthouse.

    python -m benchmarks.site_steps ab [--pairs N] [PAGE ...]      # each step: with it, without it
    python -m benchmarks.site_steps survey [--runs N] [PAGE ...]   # every chapter: unoptimized, optimized

Both start from the two editions as Sphinx writes them, unoptimized, in ``--raw`` (default
``_build/site-steps/raw``, the Chinese edition in its ``zh`` folder), which
``python -m bookbuild.build --unoptimized`` (each edition) and a copy of ``_build/html`` make.
Each variant is a copy of it with ``bookbuild.optimize`` run over both editions, less the steps
it leaves out, served gzipped from 127.0.0.1 as ``benchmarks/lighthouse.py`` serves the site.

Audits alternate between the two sites compared (A, B, A, B, ...), so a machine that slows down
slows both alike. Each row gives the medians of the performance score, first and largest
contentful paint, total blocking time, layout shift, the bytes the page downloads and its
number of elements; ``ab`` also gives the spread (largest minus smallest) of the score over the
A audits, the noise a step's gain must exceed, and the edition's site size without its PDF.
``ab`` audits, by default, each edition's longest chapter page.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from contextlib import ExitStack
from pathlib import Path

from benchmarks.lighthouse import BUDGETS, audit, chapter_pages, scores
from bookbuild import ROOT
from bookbuild.optimize import NAMES, optimize
from tools.page_downloads import EDITION_FOLDERS, site_size
from tools.serve import serve

WORK = ROOT / "_build" / "site-steps"
METRICS = {  # a name, the audit it comes from, and how to show it
    "performance": None,  # the score, from scores()
    "FCP s": "first-contentful-paint",
    "LCP s": "largest-contentful-paint",
    "TBT ms": "total-blocking-time",
    "CLS": "cumulative-layout-shift",
    "kB": "total-byte-weight",
    "elements": "dom-size",
}
SCALE = {"FCP s": 1e-3, "LCP s": 1e-3, "kB": 1e-3}
OTHERS = [name for name in BUDGETS if name != "performance"]


def measures(report: dict) -> dict[str, float]:
    """The figures of ``METRICS`` from one Lighthouse report."""
    found = {}
    for name, audit_id in METRICS.items():
        if audit_id:
            found[name] = report["audits"][audit_id]["numericValue"] * SCALE.get(name, 1)
    return found


def variant(raw: Path, without: tuple[str, ...]) -> Path:
    """A copy of the unoptimized site ``raw``, both editions optimized without the steps ``without``."""
    name = "without-" + "-".join(without) if without else "optimized"
    site = WORK / ("unoptimized" if set(without) == set(NAMES) else name)
    shutil.rmtree(site, ignore_errors=True)
    shutil.copytree(raw, site)
    for edition in ("", *EDITION_FOLDERS):
        optimize(site / edition, without)
    return site


def alternate(
    urls: tuple[str, str], pairs: int, categories: tuple[str, ...]
) -> tuple[list[dict], list[dict]]:
    """``pairs`` audits of each of two URLs in Lighthouse's ``categories``, taken in turn."""
    first, second = [], []
    for _ in range(pairs):
        for url, runs in zip(urls, (first, second), strict=True):
            report = audit(url, categories)
            runs.append(measures(report) | scores(report))
    return first, second


def row(label: str, runs: list[dict]) -> str:
    """One line of medians."""
    medians = {name: statistics.median(run[name] for run in runs) for name in METRICS}
    return f"{label:<44}" + "".join(
        f"{medians[name]:>12.{0 if name in ('performance', 'elements') else 2}f}" for name in METRICS
    )


def head(first: str) -> str:
    return f"{first:<44}" + "".join(f"{name:>12}" for name in METRICS)


def longest_chapters(site: Path) -> list[str]:
    """Each edition's longest chapter page, site-relative."""
    pages = chapter_pages(site)
    by_edition: dict[str, list[str]] = {}
    for page in pages:
        by_edition.setdefault(page.split("/")[0] if page.split("/")[0] in EDITION_FOLDERS else "", []).append(
            page
        )
    return [max(group, key=lambda page: (site / page).stat().st_size) for group in by_edition.values()]


def ab(raw: Path, pages: list[str], pairs: int) -> None:
    pages = pages or longest_chapters(raw)
    optimized = variant(raw, ())
    print(f"pages: {', '.join(pages)}; {pairs} alternating pairs a page\n")
    print(head("step: with it / without it") + f"{'noise':>8}{'site MB':>10}")
    for name in NAMES:
        without = variant(raw, (name,))
        with ExitStack() as stack:
            a, b = (stack.enter_context(serve(site, gzip=True)) for site in (optimized, without))
            with_runs, without_runs = [], []
            for page in pages:
                got = alternate((a.url(page), b.url(page)), pairs, ("performance",))
                with_runs += got[0]
                without_runs += got[1]
        noise = max(run["performance"] for run in with_runs) - min(run["performance"] for run in with_runs)
        print(row(f"{name}: with", with_runs) + f"{noise:>8.0f}{site_size(optimized)[0] / 1e6:>10.2f}")
        print(
            row(f"{name}: without", without_runs) + f"{'':>8}{site_size(without)[0] / 1e6:>10.2f}", flush=True
        )
        shutil.rmtree(without)


def survey(raw: Path, pages: list[str], runs: int) -> None:
    unoptimized, optimized = variant(raw, tuple(NAMES)), variant(raw, ())
    budgets = ", ".join(f"{name} {BUDGETS[name]}" for name in OTHERS)
    print(f"{runs} alternating audits of each page in each site; medians. The optimized site's")
    print(f"other scores (budget {budgets}): ! marks one under it\n")
    print(head("page: unoptimized / optimized") + "".join(f"{name[:8]:>10}" for name in OTHERS))
    under = []
    with serve(unoptimized, gzip=True) as before, serve(optimized, gzip=True) as after:
        for page in pages or chapter_pages(raw):
            first, second = alternate((before.url(page), after.url(page)), runs, tuple(BUDGETS))
            others = {name: statistics.median(run[name] for run in second) for name in OTHERS}
            marked = {
                name: f"{others[name]:g}" + ("!" if others[name] < BUDGETS[name] else "") for name in OTHERS
            }
            under += [page for name in OTHERS if marked[name].endswith("!")]
            if statistics.median(run["performance"] for run in second) < BUDGETS["performance"]:
                under.append(page)
            print(row(f"{page}", first))
            print(row("  optimized", second) + "".join(f"{marked[name]:>10}" for name in OTHERS), flush=True)
    print(f"\nunder a budget: {', '.join(sorted(set(under))) or 'none'}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "what", choices=("ab", "survey"), help="each step's gain, or every chapter before and after"
    )
    parser.add_argument(
        "pages",
        nargs="*",
        help="site-relative pages (default: ab, each edition's longest chapter; survey, every chapter)",
    )
    parser.add_argument("--raw", type=Path, default=WORK / "raw", help="the site as Sphinx wrote it")
    parser.add_argument("--pairs", type=int, default=3, help="ab: audits of each site for each page")
    parser.add_argument("--runs", type=int, default=3, help="survey: audits of each page in each site")
    args = parser.parse_intermixed_args(argv)
    if not (args.raw / "index.html").is_file():
        parser.error(
            f"no unoptimized site in {args.raw}: build both editions with `python -m bookbuild.build "
            f"--unoptimized` (and --language zh_CN), then copy _build/html there"
        )
    if args.what == "ab":
        ab(args.raw, args.pages, args.pairs)
    else:
        survey(args.raw, args.pages, args.runs)


if __name__ == "__main__":
    main(sys.argv[1:])
