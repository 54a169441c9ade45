"""How soon each chapter answers in live mode on Binder, with the book's published runs.

Binder is simulated here: a virtual environment made from ``binder/requirements.txt`` alone
(with ipykernel, which repo2docker adds), a home folder of its own, and ``binder/postBuild`` run
in it with the build's published runs (``_build/html/runs``, which ``make site`` writes) served
from 127.0.0.1 as the site serves them. Then, for each chapter, a kernel pinned to one CPU core
(Binder gives a pod one) runs the page's setup code and every code cell in order, as a reader's
"Run All" does, and the benchmark prints a table: chapter → seconds of the setup and
``thebe-init`` cells, seconds of the whole page without its try-it cells (they are there to
train: ``benchmarks/try_cells.py`` times them against their own budget), and the runs the kernel
fetched and trained (try cells included). It also times fetching and reading every published
run into an empty cache.

    python -m benchmarks.live_pages [CHAPTER ...]        # after make site; the venv is kept
    python -m benchmarks.live_pages --runs on-demand     # postBuild fetches none; each page its own
    python -m benchmarks.live_pages --runs none small-gpt   # no published runs: what a page trains

Prints each figure next to its budget and exits 1 if any is over it (``--runs none`` is there to
show what the published runs save, and is not held to the budgets).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bookbuild import ROOT, SITE

INIT_BUDGET = 20.0  # seconds from the kernel being ready to the setup cells having run
RUN_ALL_BUDGET = 60.0  # seconds for the whole page, try-it cells left out
FETCH_BUDGET = 10.0  # seconds to fetch and read every published run from a local server
VENV = ROOT / "_build" / "binder-venv"
HOME = ROOT / "_build" / "binder-home"
FETCHED = "Loaded the book's trained run"  # selfattn.published says so for each run it fetches


def binder_python() -> Path:
    """The Python of a venv made from binder/requirements.txt (made once, again when it changes)."""
    requirements = (ROOT / "binder" / "requirements.txt").read_text()
    stamp, digest = VENV / ".requirements.sha256", hashlib.sha256(requirements.encode()).hexdigest()
    python = VENV / "bin" / "python"
    if stamp.is_file() and stamp.read_text() == digest:
        return python
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as reachable:
        # PyTorch's own index only where its host resolves (as the Makefile's TORCH_INDEX does):
        # offline, the CPU wheel comes from this machine's own package index.
        lines = requirements.splitlines()
        if not _resolves("download.pytorch.org"):
            lines = [line for line in lines if not line.startswith("--extra-index-url")]
        reachable.write("\n".join(lines) + "\nipykernel\n")
        reachable.flush()
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", reachable.name], check=True)
    stamp.write_text(digest)
    return python


def _resolves(host: str) -> bool:
    try:
        socket.getaddrinfo(host, 443)
    except OSError:
        return False
    return True


def binder_environment(python: Path, runs_url: str) -> dict[str, str]:
    """A reader's environment on Binder: the venv first on PATH, a home of its own, no build's run
    cache, the published runs at ``runs_url``."""
    from selfattn.data import DOWNLOAD_CACHE_ENV
    from selfattn.run_cache import OFF_ENV, OLD_OFF_ENV, RUN_CACHE_ENV

    leave_out = {RUN_CACHE_ENV, DOWNLOAD_CACHE_ENV, OFF_ENV, OLD_OFF_ENV, "TIKTOKEN_CACHE_DIR", "PYTHONPATH"}
    env = {name: value for name, value in os.environ.items() if name not in leave_out}
    env.update(HOME=str(HOME), SELFATTN_RUNS_URL=runs_url, VIRTUAL_ENV=str(python.parent.parent))
    env["PATH"] = os.pathsep.join([str(python.parent), env["PATH"]])
    return env


def post_build(env: dict[str, str]) -> str:
    """Run binder/postBuild in a fresh home, as Binder does when it builds the image; its last line
    (what fetching the runs did)."""
    shutil.rmtree(HOME, ignore_errors=True)
    HOME.mkdir(parents=True)
    done = subprocess.run(
        ["bash", str(ROOT / "binder" / "postBuild")], env=env, cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"binder/postBuild failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout.strip().splitlines()[-1]


def on_one_core(python: Path, env: dict[str, str], *args: str) -> dict:
    """Run this module's ``--inside`` part in the Binder venv on one core; what it reports."""
    core = str(min(os.sched_getaffinity(0)))
    command = ["taskset", "-c", core, str(python), "-m", "benchmarks.live_pages", "--inside", *args]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed in the Binder venv:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


# ---------------------------------------------------------------- inside the Binder venv


def run_page(path: Path) -> dict:
    """Run the chapter ``path`` as a live page would, all of it: seconds by kind of cell, and the
    runs its kernel fetched and trained."""
    import jupytext
    import nbformat
    import yaml
    from nbclient import NotebookClient

    from benchmarks.try_cells import TRY_MARK, cell_seconds

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    setup = config["sphinx"]["config"]["live_code_setup"]
    # A try cell and the code cells after it, up to the next text, are what a reader re-runs.
    code, kinds, trying = [], ["init"], False
    for cell in jupytext.read(path).cells:
        trying = cell.cell_type == "code" and (cell.source.startswith(TRY_MARK) or trying)
        if cell.cell_type == "code":
            code.append(cell)
            kinds.append(
                "init" if "thebe-init" in cell.metadata.get("tags", []) else "try" if trying else "page"
            )
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(setup), *code]
    from selfattn.run_cache import cache_folder

    kept = set(cache_folder().glob("*.pt"))  # the kernel's cache: each run it fetches or trains lands here
    client = NotebookClient(notebook, timeout=1800, kernel_name="python3", record_timing=True)
    client.execute(cwd=str(path.parent))
    new_runs = len(set(cache_folder().glob("*.pt")) - kept)
    seconds = {kind: 0.0 for kind in ("init", "page", "try")}
    said = ""
    for kind, cell in zip(kinds, notebook.cells, strict=True):
        seconds[kind] += cell_seconds(cell)
        said += "".join(out.get("text", "") for out in cell.outputs if out.get("name") == "stderr")
    return {
        "init": seconds["init"],
        "run_all": seconds["init"] + seconds["page"],
        "try": seconds["try"],
        "fetched": said.count(FETCHED),
        "trained": new_runs - said.count(FETCHED),
    }


def fetch_everything(runs_url: str) -> dict:
    """Fetch every published run into an empty cache and read each: seconds, runs, bytes."""
    from selfattn import published, run_cache

    with tempfile.TemporaryDirectory() as empty:
        folder = Path(empty) / "runs"
        start = time.perf_counter()
        fetched = published.fetch_all(folder, runs_url)
        for file in folder.glob("*.pt"):
            run_cache.read(file)
        seconds = time.perf_counter() - start
        size = sum(file.stat().st_size for file in folder.glob("*.pt"))
    return {"seconds": seconds, "runs": fetched, "bytes": size}


def inside(args: list[str]) -> None:
    """The part that runs in the Binder venv: one chapter, or the fetch; JSON on the last line."""
    if args[0] == "--fetch":
        result = fetch_everything(args[1])
    else:
        result = run_page(ROOT / "book" / f"{args[0]}.md")
    print(json.dumps(result))


# ---------------------------------------------------------------- the table


def chapter_names() -> list[str]:
    from bookbuild.execute import notebooks_in_toc

    return [path.stem for path in notebooks_in_toc()]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--inside"]:
        inside(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapter names (default: every chapter, in order)")
    parser.add_argument(
        "--runs",
        choices=["post-build", "on-demand", "none"],
        default="post-build",
        help="who fetches the published runs: postBuild, as on Binder (default); each page's kernel, "
        "as Jupyter on a reader's machine; nobody, as before the runs were published",
    )
    args = parser.parse_args(argv)
    if not (SITE / "runs" / "manifest.json").is_file():
        parser.error(f"no published runs in {SITE / 'runs'}: run make site first")
    from tools.serve import serve

    python = binder_python()
    over = 0
    with serve(SITE) as site:
        runs_url = "" if args.runs == "none" else site.url("runs/")
        env = binder_environment(python, runs_url)
        print(post_build({**env, "SELFATTN_RUNS_URL": runs_url if args.runs == "post-build" else ""}))
        fetch = on_one_core(python, env, "--fetch", site.url("runs/"))
        over += fetch["seconds"] > FETCH_BUDGET
        print(
            f"fetch and read all {fetch['runs']} runs ({fetch['bytes'] / 1e6:.1f} MB) from 127.0.0.1: "
            f"{fetch['seconds']:.1f} s (budget {FETCH_BUDGET:.0f} s)\n"
        )
        print(f"{'chapter':<28}{'init s':>8}{'run all s':>11}{'try s':>8}{'fetched':>9}{'trained':>9}")
        for name in args.chapters or chapter_names():
            page = on_one_core(python, env, name)
            late = page["init"] > INIT_BUDGET or page["run_all"] > RUN_ALL_BUDGET
            over += late and args.runs != "none"
            print(
                f"{name:<28}{page['init']:>8.1f}{page['run_all']:>11.1f}{page['try']:>8.1f}"
                f"{page['fetched']:>9}{page['trained']:>9}{'  OVER' if late else ''}"
            )
    print(f"\nbudgets: init {INIT_BUDGET:.0f} s, run all {RUN_ALL_BUDGET:.0f} s, on one core")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
