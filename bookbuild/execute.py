"""Execute the book's chapters into the execution cache, one chapter per core at a time.

    python -m bookbuild.execute [--toc FILE] [--jobs N]    # bookbuild.build runs it first

Every chapter of ``_toc.yml`` that is a notebook is staged in jupyter-cache's project and run by
jupyter-cache's own executor (``local-serial``: in the chapter's folder, with the timeout and
``allow_errors`` of ``_config.yml``), each chapter in a process of its own, as many at once as
the machine has cores, so a chapter that trains for minutes holds up no other. A chapter whose
code cells are cached already is not run again. The build then reads the outputs from the cache
(``execute_notebooks: cache``) and runs nothing itself.

Jupyter-cache keys a notebook by its code cells, not by the package they import; so when the
package's code changed since the last run (:func:`selfattn.run_cache.code_digest`), every chapter
runs again. Two chapters that need the same trained model do not both train it: the run cache
lets one train while the other waits (``selfattn.run_cache.claimed``). So that no chapter holds a
core while it waits, a build of the whole book trains the runs its chapters train in full
(:func:`selfattn.runs.book_runs`) first, in the same processes, the largest first.

A chapter whose kernel dies before it ran (jupyter-cache reports it as errored, not excepted: no
cell raised) runs once more. Kernels started side by side in separate processes can pick the same
free port (jupyter_client's port cache guards only its own process; jupyter/jupyter_client#487),
and then one dies at start. A cell that raises is the chapter's own error and is not run again.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path

from jupyter_cache import get_cache
from jupyter_cache.base import JupyterCacheAbstract
from jupyter_cache.executors import load_executor
from myst_nb.core.read import is_myst_markdown_notebook
from sphinx_external_toc.parsing import parse_toc_yaml

from bookbuild import ALLOW_ERRORS, BUILD_RUNS, CELL_TIMEOUT, EXECUTION_CACHE, ROOT
from selfattn.corpus import load_corpus
from selfattn.files import write_atomically
from selfattn.registry import make_model
from selfattn.run_cache import RUN_CACHE_ENV, cache_folder, code_digest, every_module, has, run_key
from selfattn.runs import Run, book_runs
from selfattn.training import fit

# Beside a cache: the package's digest when the cache's outputs were made.
STAMP_NAME = ".package.sha256"
BOOK_TOC = ROOT / "_toc.yml"
# MyST-NB's reader of text notebooks, as jupyter-cache names its plugin (``jcache.readers``).
READER = {"name": "myst_nb_md", "type": "plugin"}


def notebooks_in_toc(toc: Path = BOOK_TOC) -> list[Path]:
    """The notebooks among the book's pages, in the order of its table of contents."""
    pages = [ROOT / f"{docname}.md" for docname in parse_toc_yaml(toc)]
    return [page for page in pages if page.is_file() and is_myst_markdown_notebook(page.read_text("utf-8"))]


def _run(cache_dir: Path, pk: int) -> tuple[int, str, float]:
    """Execute the staged notebook ``pk`` (in a process of its own); (pk, outcome, seconds).

    The outcome is ``executed``, ``excepted`` (a cell raised or timed out) or ``errored`` (the
    notebook did not run to its end for another reason: its kernel did not start, or died).
    """
    start = time.perf_counter()
    executor = load_executor("local-serial", get_cache(cache_dir), logger=logging.getLogger(__name__))
    result = executor.run_and_cache(filter_pks=[pk], timeout=CELL_TIMEOUT, allow_errors=ALLOW_ERRORS)
    outcome = "errored" if result.errored else "excepted" if result.excepted else "executed"
    return pk, outcome, time.perf_counter() - start


def _train(rung: Run) -> float:
    """Train ``rung`` into the run cache (in a process of its own); the seconds it took."""
    start = time.perf_counter()
    fit(rung.kind, rung.config)
    return time.perf_counter() - start


def untrained_runs() -> dict[str, Run]:
    """The book's runs that the run cache lacks, by the work their training does, largest first.

    Empty when the run cache is off: then each chapter trains what it needs itself.
    """
    folder = cache_folder()
    if folder is None:
        return {}

    def work(rung: Run) -> int:  # steps x positions per step x parameters
        vocab_size = rung.config.bpe_vocab or load_corpus(rung.config.corpus).tokenizer.vocab_size
        model = make_model(rung.kind, vocab_size, rung.config)
        positions = rung.config.batch_size * rung.config.block_size
        return rung.config.max_iters * positions * sum(p.numel() for p in model.parameters())

    todo = {
        name: rung for name, rung in book_runs().items() if not has(folder, run_key(rung.kind, rung.config))
    }
    return dict(sorted(todo.items(), key=lambda item: work(item[1]), reverse=True))


def execute(
    pages: list[Path], jobs: int | None = None, train_first: bool = True, cache_dir: Path = EXECUTION_CACHE
) -> None:
    """Run every page of ``pages`` whose outputs are not cached; exit with each failure's traceback.

    Outputs made by another version of the package are forgotten first. With ``train_first``
    (for the whole book; a few chapters may need none of them), the book's runs are trained first.
    They are trained into the build's run cache (``SELFATTN_RUN_CACHE``, by default ``_build/runs``),
    never a reader's, which would fetch the published runs: the build trains what it shows.
    """
    os.environ.setdefault(RUN_CACHE_ENV, str(BUILD_RUNS))
    cache, digest = get_cache(cache_dir), code_digest(every_module())
    stamp = cache_dir.with_name(STAMP_NAME)
    if not stamp.is_file() or stamp.read_text() != digest:
        if cache_dir.exists():
            print("The package changed since the chapters last ran: every chapter runs again.")
            cache.clear_cache()
        write_atomically(stamp, lambda file: file.write(digest.encode()))  # builds side by side read it
    staged = [cache.add_nb_to_project(str(page), read_data=READER) for page in pages]
    todo = cache.list_unexecuted(filter_pks=[record.pk for record in staged])
    if not todo:
        return
    jobs = jobs or os.cpu_count() or 1
    print(f"Executing {len(todo)} of the {len(staged)} chapters, {jobs} at a time.", flush=True)
    names = {record.pk: _shown(Path(record.uri)) for record in todo}
    first = untrained_runs() if train_first else {}
    failed: dict[int, str] = {}  # pk: outcome
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        # Work starts in the order it is submitted: the runs, then the chapters in the book's order.
        runs = {pool.submit(_train, rung): name for name, rung in first.items()}
        pending: set[Future] = {*runs, *(pool.submit(_run, cache_dir, pk) for pk in names)}
        retried: set[int] = set()
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for done in finished:
                if done in runs:
                    print(f"  run {runs[done]}: trained in {done.result():.0f} s", flush=True)
                    continue
                pk, outcome, seconds = done.result()
                if outcome == "errored" and pk not in retried:
                    print(
                        f"  {names[pk]}: stopped after {seconds:.0f} s, not in a cell; running it again",
                        flush=True,
                    )
                    retried.add(pk)
                    pending.add(pool.submit(_run, cache_dir, pk))
                    continue
                shown = "executed" if outcome == "executed" else "FAILED"
                print(f"  {names[pk]}: {shown} in {seconds:.0f} s", flush=True)
                if outcome != "executed":
                    failed[pk] = outcome
    if failed:
        reports = [f"{names[pk]}:\n{_failure(cache, pk, outcome)}" for pk, outcome in failed.items()]
        raise SystemExit("A chapter failed to execute:\n\n" + "\n\n".join(reports))


def _shown(page: Path) -> Path:
    """``page`` as the build's messages name it: from the repository's root when it lies inside."""
    return page.relative_to(ROOT) if page.is_relative_to(ROOT) else page


def _failure(cache: JupyterCacheAbstract, pk: int, outcome: str) -> str:
    """What went wrong with the staged notebook ``pk``: the cell's traceback, or what is known."""
    if outcome == "excepted":
        return cache.get_project_record(pk).traceback
    return "It stopped twice, not in a cell: its kernel did not start or died (the error is printed above)."


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bookbuild.execute", description=__doc__.split("\n\n")[0])
    parser.add_argument("--toc", type=Path, help="the table of contents (default: the book's)")
    parser.add_argument("--jobs", type=int, default=None, help="chapters at once (default: one per core)")
    args = parser.parse_args(argv)
    execute(notebooks_in_toc(args.toc or BOOK_TOC), args.jobs, train_first=args.toc is None)


if __name__ == "__main__":
    main()
