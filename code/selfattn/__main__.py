"""``python -m selfattn``: the package's commands.

    python -m selfattn fetch-runs                  # every published run of this code into the run cache
    python -m selfattn publish-runs RUNS SITE      # the runs in RUNS, as SITE/runs, with their manifest
    python -m selfattn doctor                      # this installation on one screen, for a bug report

``fetch-runs`` is Binder's (``binder/postBuild``) and ``publish-runs`` the build's (``make site``):
both are :mod:`selfattn.published`'s. ``doctor`` is :mod:`selfattn.doctor`'s.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from selfattn import doctor, published, run_cache
from selfattn.language import say


def parser() -> argparse.ArgumentParser:
    """The commands and their arguments."""
    parser = argparse.ArgumentParser(prog="python -m selfattn", description=__doc__.split("\n\n")[0])
    command = parser.add_subparsers(dest="command", required=True)
    command.add_parser("fetch-runs", help="every published run of this code into the run cache")
    put = command.add_parser(
        "publish-runs", help="the runs this code trained, into SITE/runs, with a manifest"
    )
    put.add_argument("runs", type=Path, help="the run cache a build trained into (_build/runs)")
    put.add_argument("site", type=Path, help="the built site (_build/html)")
    command.add_parser("doctor", help="this installation on one screen, to paste into a bug report")
    return parser


def publish_runs(runs: Path, site: Path) -> None:
    """The runs this code trained in ``runs``, published in the site ``site``."""
    done = published.publish(runs, site / published.RUNS_FOLDER, doctor.commit())
    size = done.total_bytes() / 1e6
    print(
        say(
            "{runs} trained runs ({size:.1f} MB) published in {folder}.",
            runs=len(done.runs),
            size=size,
            folder=site / published.RUNS_FOLDER,
        )
    )


def fetch_runs() -> None:
    """Every published run of this code into the run cache, or one line on why none is fetched."""
    folder, url = run_cache.cache_folder(), published.address()
    if folder is None or url is None:  # said, not failed: Binder's image builds on without the runs
        print(
            say(
                "No published runs fetched: {off}, {cache} or {url}= said not to.",
                off=run_cache.OFF_ENV,
                cache=run_cache.RUN_CACHE_ENV,
                url=published.URL_ENV,
            )
        )
        return
    published.fetch_all(folder, url)


def main(argv: list[str] | None = None) -> None:
    """Run the command ``argv`` names (by default the command line's)."""
    args = parser().parse_args(argv)
    if args.command == "publish-runs":
        publish_runs(args.runs, args.site)
    elif args.command == "fetch-runs":
        fetch_runs()
    else:
        print("\n".join(doctor.lines()))


if __name__ == "__main__":
    main()
