"""The runs the build trained, published beside the sites (``_build/html/runs``) as the publishing
workflow deploys them: every run the chapters train, each file as its manifest says, none loaded
by a page, and a reader's kernel loads them from a server as the build trained them."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from bookbuild import BUILD_RUNS, ROOT
from selfattn import fit, published, run_cache
from selfattn.runs import COMPARED_BPE, LADDER, POEMS, book_runs, byte_pairs
from tests.helpers import page_text
from tools.serve import serve


@pytest.fixture(scope="module")
def manifest(built_book) -> dict:
    return json.loads((built_book / published.RUNS_FOLDER / published.MANIFEST).read_text())


def test_every_run_the_chapters_train_is_published_as_its_manifest_says(built_book, manifest):
    assert manifest["provenance"] == run_cache.provenance(), "made by this checkout's code"
    keys = {run_cache.run_key(run.kind, run.config) for run in book_runs().values()}
    assert keys <= manifest["runs"].keys(), f"unpublished: {keys - manifest['runs'].keys()}"
    files = {file.name for file in (built_book / published.RUNS_FOLDER).glob("*.pt")}
    assert files == {entry["file"] for entry in manifest["runs"].values()}
    for file in (built_book / published.RUNS_FOLDER).iterdir():
        assert file.stat().st_mode & 0o004, f"{file} is not readable by a web server, as the site's files are"
    for key, entry in manifest["runs"].items():
        data = (built_book / published.RUNS_FOLDER / entry["file"]).read_bytes()
        assert len(data) == entry["bytes"] and hashlib.sha256(data).hexdigest() == entry["sha256"], key


def test_the_readme_says_how_big_the_published_runs_are(manifest):
    """The README's "about N MB" is the published runs' size within a fifth (runs a test or a
    try cell trained with the same code are published beside the book's)."""
    said = re.search(r"the published runs come to about (\d+) MB", (ROOT / "README.md").read_text())
    size = sum(entry["bytes"] for entry in manifest["runs"].values()) / 1e6
    assert said and abs(float(said.group(1)) - size) <= 0.2 * size, f"{size:.1f} MB published"


def test_no_page_loads_the_runs(built_book):
    """The runs add nothing to what a reader downloads to read a page."""
    for page in built_book.glob("**/*.html"):
        assert f"{published.RUNS_FOLDER}/{published.MANIFEST}" not in page_text(page), page
        assert not re.search(r'(src|href)="[^"]*\.pt"', page_text(page)), page


@pytest.mark.parametrize(
    "rung",
    [LADDER["layernorm"], byte_pairs()[f"BPE {COMPARED_BPE}"], POEMS],
    ids=["characters", "BPE", "Tang poems"],
)
def test_a_readers_kernel_loads_the_built_run_from_the_served_site(
    built_book, monkeypatch, tmp_path, capsys, rung
):
    key = run_cache.run_key(rung.kind, rung.config)
    monkeypatch.delenv(run_cache.RUN_CACHE_ENV)
    monkeypatch.setenv("SELFATTN_CACHE", str(tmp_path))
    monkeypatch.setattr(published, "_manifests", {})
    with serve(built_book) as site:
        monkeypatch.setenv(published.URL_ENV, site.url(f"{published.RUNS_FOLDER}/"))
        model, history = fit(rung.kind, rung.config)
    assert "Loaded the book's trained run" in capsys.readouterr().err
    built = run_cache.read(BUILD_RUNS / f"{key}.pt")
    assert history.val_loss == built["history"]["val_loss"] and history.seconds == built["history"]["seconds"]
    assert all(value.equal(built["state_dict"][name]) for name, value in model.state_dict().items())
