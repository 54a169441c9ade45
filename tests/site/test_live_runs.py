"""Part VII's runs in a live page, as a reader on Binder gets them: fetched from the published site.

The Tang poems chapter is built alone for a local Jupyter server (from the build's execution
cache: nothing runs again). Its kernel has no run cache of the build's, only a reader's own,
empty, and the site the build published (``_build/html/runs``) to fetch from. The reader presses
Live Code, writes in the chapter's first code cell a call for the poem model and the byte-pair
model the chapter compares with characters, and runs it: both load as the build trained them,
training time included (a run trained again would have its own), and the files land in the
reader's cache. Then a poem from a prompt of the reader's choosing.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from bookbuild import BUILD_RUNS
from selfattn import data, published, run_cache
from selfattn.runs import COMPARED_BPE, POEMS, byte_pairs
from tests.site.live_page import ERROR, LAUNCH_TIMEOUT_MS, STDOUT, edit, open_chapter, run, wait_for_state
from tools import live
from tools.browser import offline_context
from tools.serve import serve

pytestmark = pytest.mark.browser

TOC = "format: jb-book\nroot: book/intro\nchapters:\n  - file: book/tang-poems\n"
RUNS = {"poems": POEMS, "bpe": byte_pairs()[f"BPE {COMPARED_BPE}"]}
# What the reader types: both models, how they trained, and a poem from a prompt of their own.
LOAD_AND_WRITE = """import torch
from selfattn import fit, load_corpus
from selfattn.runs import COMPARED_BPE, POEMS, byte_pairs
from selfattn.sampling import Sampling
from selfattn.verse import write

models = {}
for name, run in {"poems": POEMS, "bpe": byte_pairs()[f"BPE {COMPARED_BPE}"]}.items():
    models[name], history = fit(run.kind, run.config)
    print(f"{name}: val {history.val_loss[-1]!r} trained {history.seconds!r} s")
tokenizer = load_corpus("tang-poems").tokenizer
generator = torch.Generator().manual_seed(7)
print(write(models["poems"], tokenizer, "江", sampling=Sampling(top_p=0.8), generator=generator))
"""


@pytest.fixture(scope="module")
def chapter(built_book) -> Path:
    """The chapter's live build (local server), beside the full build that published the runs."""
    out = Path(tempfile.gettempdir()) / "selfattn-live-runs"
    out.mkdir(exist_ok=True)
    (out / "_toc.yml").write_text(TOC)
    return live.build_site(out, toc=out / "_toc.yml", quiet=True)


def test_a_live_page_loads_part_sevens_published_runs_and_writes_a_poem(
    chapter, built_book, browser, monkeypatch, tmp_path
):
    reader_cache = tmp_path / "reader-cache"
    monkeypatch.setenv(data.DOWNLOAD_CACHE_ENV, str(reader_cache))
    with serve(built_book) as book, serve(chapter) as site:
        monkeypatch.setenv(published.URL_ENV, book.url(f"{published.RUNS_FOLDER}/"))
        with (
            open(tmp_path / "jupyter.log", "w") as log,
            live.jupyter_server(site.origin, log=log) as jupyter,
        ):
            site.point_at(jupyter.base_url, jupyter.token)
            context, visit = offline_context(browser)
            page = open_chapter(context, site.url(), "tang-poems")
            page.locator(".live-code-button").click()
            assert wait_for_state(page, {"ready", "failed"}, LAUNCH_TIMEOUT_MS) == "ready"
            cell = page.locator("div.cell:not(.tag_thebe-init):has(.thebe-run-button)").first
            edit(cell, page, LOAD_AND_WRITE)
            run(cell, f"{STDOUT}:has-text('江')", timeout=300_000)
            printed = "".join(cell.locator(STDOUT).all_inner_texts())
            stderr = "".join(cell.locator(ERROR).all_inner_texts())
            context.close()
    for name, rung in RUNS.items():
        built = run_cache.read(BUILD_RUNS / f"{run_cache.run_key(rung.kind, rung.config)}.pt")["history"]
        said = re.search(rf"{name}: val (\S+) trained (\S+) s", printed)
        assert said, printed
        assert float(said[1]) == built["val_loss"][-1] and float(said[2]) == built["seconds"], (
            "as the build trained it"
        )
        key = run_cache.run_key(rung.kind, rung.config)
        assert (reader_cache / "runs" / f"{key}.pt").is_file(), "fetched into the reader's own cache"
    assert stderr.count("Loaded the book's trained run") == len(RUNS), stderr
    poem = printed.strip().splitlines()[-2:]
    assert poem[0].startswith("江") and [len(line) for line in poem] == [12, 12], printed
    assert visit.page_errors == [], visit.page_errors
    assert visit.blocked == [], f"outside loopback: {visit.blocked}"
