"""Execute the book's chapters into the execution cache, one chapter per core at a time.

    python -m bookbuild.execute [--toc FILE] [--jobs N]    # bookbuild.build runs it first

Every chapter of ``_toc.yml`` that is a notebook is staged in jupyter-cache's project, run by
nbclient (in the chapter's folder, with the timeout and ``allow_errors`` of ``_config.yml``) and
stored with jupyter-cache's ``cache_notebook_bundle``, each chapter in a process of its own, as
many at once as the machine has cores, so a chapter that trains for minutes holds up no other. A chapter whose
code cells are cached already is not run again. The build then reads the outputs from the cache
(``execute_notebooks: cache``) and runs nothing itself.

Jupyter-cache keys a notebook by its code cells, not by the package they import; so when the
package's code changed since the last run (:func:`selfattn.run_cache.code_digest`), every chapter
runs again. Two chapters that need the same trained model do not both train it: the run cache
lets one train while the other waits (``selfattn.run_cache.claimed``). So that no chapter holds a
core while it waits, a build of the whole book trains the runs its chapters train in full
(:func:`selfattn.runs.book_runs`) first, in the same processes, the largest first.

Each chapter's kernel talks to the build over local sockets in a folder of its own (ZeroMQ's IPC
transport), not over TCP ports: kernels started side by side cannot pick the same port
(jupyter/jupyter_client#487), and nothing the chapters print crosses the network unencrypted
(ipykernel warns of that for every TCP kernel). A chapter that fails, in a cell or not, stops the
build with its traceback.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path

from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from myst_nb.core.read import is_myst_markdown_notebook
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError
from nbformat import NotebookNode
from sphinx_external_toc.parsing import parse_toc_yaml
from traitlets.config import Config

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


def run_notebook(nb: NotebookNode, folder: Path, allow_errors: bool = ALLOW_ERRORS) -> None:
    """Execute ``nb`` in place in a fresh kernel started in ``folder``, with the build's timeout.

    The kernel's sockets are files in a temporary folder of their own (IPC transport); a cell that
    raises or times out raises ``CellExecutionError`` or ``CellTimeoutError`` here.
    """
    with tempfile.TemporaryDirectory(prefix="kernel-") as sockets:
        local = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}})
        NotebookClient(
            nb,
            config=local,
            timeout=CELL_TIMEOUT,
            allow_errors=allow_errors,
            record_timing=False,  # no wall-clock times in the stored notebook
            resources={"metadata": {"path": str(folder)}},
        ).execute()


def _run(cache_dir: Path, pk: int) -> tuple[int, str | None, float]:
    """Execute the staged notebook ``pk`` (in a process of its own) and cache its outputs.

    Returns (pk, the traceback if it failed, else None, seconds).
    """
    cache = get_cache(cache_dir)
    staged = cache.get_project_notebook(pk)
    start = time.perf_counter()
    try:
        run_notebook(staged.nb, Path(staged.uri).parent)
    except (CellExecutionError, CellTimeoutError):
        return pk, traceback.format_exc(), time.perf_counter() - start
    except Exception:  # the kernel did not start, or died: said with the build's other failures
        return pk, "Its kernel did not start or died:\n" + traceback.format_exc(), time.perf_counter() - start
    seconds = time.perf_counter() - start
    executed = CacheBundleIn(staged.nb, staged.uri, data={"execution_seconds": seconds})
    cache.cache_notebook_bundle(executed, check_validity=False, overwrite=True)
    return pk, None, seconds


def _train(run: Run) -> float:
    """Train ``run`` into the run cache (in a process of its own); the seconds it took."""
    start = time.perf_counter()
    fit(run.kind, run.config)
    return time.perf_counter() - start


def untrained_runs() -> dict[str, Run]:
    """The book's runs that the run cache lacks, by the work their training does, largest first.

    Empty when the run cache is off: then each chapter trains what it needs itself.
    """
    folder = cache_folder()
    if folder is None:
        return {}

    def work(run: Run) -> int:  # steps x positions per step x parameters
        vocab_size = run.config.bpe_vocab or load_corpus(run.config.corpus).tokenizer.vocab_size
        model = make_model(run.kind, vocab_size, run.config)
        positions = run.config.batch_size * run.config.block_size
        return run.config.max_iters * positions * sum(p.numel() for p in model.parameters())

    todo = {name: run for name, run in book_runs().items() if not has(folder, run_key(run.kind, run.config))}
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
    failed: dict[int, str] = {}  # pk: traceback
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        # Work starts in the order it is submitted: the runs, then the chapters in the book's order.
        runs = {pool.submit(_train, run): name for name, run in first.items()}
        pending: set[Future] = {*runs, *(pool.submit(_run, cache_dir, pk) for pk in names)}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for done in finished:
                if done in runs:
                    print(f"  run {runs[done]}: trained in {done.result():.0f} s", flush=True)
                    continue
                pk, failure, seconds = done.result()
                print(f"  {names[pk]}: {'FAILED' if failure else 'executed'} in {seconds:.0f} s", flush=True)
                if failure:
                    failed[pk] = failure
    if failed:
        reports = [f"{names[pk]}:\n{failure}" for pk, failure in failed.items()]
        raise SystemExit("A chapter failed to execute:\n\n" + "\n\n".join(reports))


def _shown(page: Path) -> Path:
    """``page`` as the build's messages name it: from the repository's root when it lies inside."""
    return page.relative_to(ROOT) if page.is_relative_to(ROOT) else page


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bookbuild.execute", description=__doc__.split("\n\n")[0])
    parser.add_argument("--toc", type=Path, help="the table of contents (default: the book's)")
    parser.add_argument("--jobs", type=int, default=None, help="chapters at once (default: one per core)")
    args = parser.parse_args(argv)
    execute(notebooks_in_toc(args.toc or BOOK_TOC), args.jobs, train_first=args.toc is None)


if __name__ == "__main__":
    main()
