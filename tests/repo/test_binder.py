"""Binder's environment (binder/): what a reader's live kernel gets."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from importlib.metadata import packages_distributions
from pathlib import Path

import jupytext
import pytest
import torch
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bookbuild import ROOT
from selfattn import ATTENTION, published, run_cache
from tests.helpers import locked_versions, publish_a_run
from tools.serve import serve

BINDER = ROOT / "binder"
SHORT = replace(ATTENTION, max_iters=30, eval_interval=10, eval_iters=5)  # a run to publish
# Installed in every Binder image by repo2docker itself, next to JupyterLab.
BINDER_BASE = {"IPython", "ipykernel", "ipywidgets"}


def binder_requirements() -> dict[str, Requirement]:
    lines = (BINDER / "requirements.txt").read_text().splitlines()
    specs = [line.split("#")[0].strip() for line in lines]
    return {canonicalize_name(r.name): r for r in map(Requirement, (s for s in specs if s and s[0] != "-"))}


def test_binder_pins_the_tested_cpu_torch_and_python():
    text = (BINDER / "requirements.txt").read_text()
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in text
    pinned = binder_requirements()["torch"]
    assert str(pinned.specifier) == f"=={torch.__version__}" and torch.__version__.endswith("+cpu")
    python = f"python-{sys.version_info[0]}.{sys.version_info[1]}"
    assert (BINDER / "runtime.txt").read_text().strip() == python


def test_binder_pins_what_the_book_is_built_and_tested_with():
    """Every Binder pin is exact and names the version in requirements.lock, which make installs
    where the book is built and tested."""
    locked = locked_versions()
    differ = {}
    for name, requirement in binder_requirements().items():
        (spec,) = requirement.specifier  # one exact pin per line
        assert spec.operator == "==", f"{requirement}: pin one version"
        if locked.get(name) != spec.version:
            differ[name] = f"Binder {spec.version}, requirements.lock {locked.get(name, 'no pin')}"
    assert not differ, f"binder/requirements.txt and requirements.lock differ: {differ}"


def test_binder_requirements_do_not_refer_to_the_repository():
    """A reference to the repository turns off repo2docker's cached install of the requirements."""
    for line in (BINDER / "requirements.txt").read_text().splitlines():
        spec = line.split("#")[0].strip()
        assert not re.match(r"(-e|--editable)\b|\.|/|file:", spec), f"local reference: {line!r}"
        assert not spec.startswith(("-r", "-c")), f"another file: {line!r}"


def test_every_module_the_chapters_import_is_in_the_binder_environment():
    provided = {canonicalize_name(name) for name in binder_requirements()} | {"selfattn"}
    owners = packages_distributions()
    missing = set()
    for chapter in sorted((ROOT / "book").glob("*.md")):
        notebook = jupytext.read(chapter, fmt="md:myst")
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            for module in re.findall(r"^\s*(?:from|import)\s+(\w+)", cell.source, flags=re.M):
                if module in sys.stdlib_module_names or module in BINDER_BASE:
                    continue
                dists = {canonicalize_name(d) for d in owners.get(module, [module])}
                if not dists & provided:
                    missing.add(f"{chapter.name}: {module}")
    assert not missing, f"add these to binder/requirements.txt: {sorted(missing)}"


# Stands in for pip in postBuild (the package is installed here already): records what it was
# asked to install, and from which folder.
PIP_STAND_IN = """#!/bin/sh
echo "$PWD $*" >> "$PIP_CALLS"
"""


def run_post_build(home: Path, mirror: Path, runs_url: str = "") -> subprocess.CompletedProcess:
    """postBuild in a reader's environment (no build's run cache), fetching runs from ``runs_url``."""
    left_out = {"SELFATTN_CACHE", "TIKTOKEN_CACHE_DIR", run_cache.RUN_CACHE_ENV}
    env = {k: v for k, v in os.environ.items() if k not in left_out}
    env[published.URL_ENV] = runs_url
    stand_in = home / "stand-in"
    stand_in.mkdir()
    (stand_in / "pip").write_text(PIP_STAND_IN)
    (stand_in / "pip").chmod(0o755)
    env.update(HOME=str(home), SELFATTN_DATA_MIRROR=str(mirror), PIP_CALLS=str(home / "pip-calls"))
    env["PATH"] = os.pathsep.join([str(stand_in), str(Path(sys.executable).parent), env["PATH"]])
    return subprocess.run(
        ["bash", str(BINDER / "postBuild")], env=env, capture_output=True, text=True, cwd=home
    )


@pytest.mark.skipif("SELFATTN_DATA_MIRROR" not in os.environ, reason="needs the offline data mirror")
def test_post_build_installs_the_package_fetches_data_and_runs_and_opens_chapters_as_notebooks(
    tmp_path, monkeypatch
):
    book = publish_a_run(tmp_path / "book", monkeypatch, SHORT)
    home = tmp_path / "home"
    home.mkdir()
    with serve(book.site) as site:
        result = run_post_build(
            home, Path(os.environ["SELFATTN_DATA_MIRROR"]), site.url(f"{published.RUNS_FOLDER}/")
        )
    assert result.returncode == 0, result.stderr
    runs = home / ".cache" / "selfattn" / "runs"  # the reader's run cache
    assert (runs / f"{book.key}.pt").read_bytes() == (book.runs / f"{book.key}.pt").read_bytes()
    assert "1 of 1 published runs" in result.stdout
    pip_calls = (home / "pip-calls").read_text().splitlines()
    assert pip_calls == [f"{ROOT} install --no-deps -e ."], "the package, from the repository, alone"
    downloads = home / ".cache" / "selfattn"
    assert (downloads / "tinyshakespeare.txt").stat().st_size == 1_115_394
    assert {p.name for p in (downloads / "gpt2").iterdir()} == {"encoder.json", "vocab.bpe"}
    assert len(list((downloads / "tiktoken").iterdir())) == 2, "tiktoken's own cache is filled too"
    labconfig = home / ".jupyter" / "labconfig" / "default_setting_overrides.json"
    settings = json.loads(labconfig.read_text())
    viewers = settings["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["markdown"] == viewers["myst"] == "Jupytext Notebook"


def test_post_build_stops_at_the_first_failure(tmp_path):
    empty_mirror = tmp_path / "mirror"
    empty_mirror.mkdir()
    result = run_post_build(tmp_path, empty_mirror)
    assert result.returncode != 0
    assert "tinyshakespeare.txt" in result.stderr
    assert not (tmp_path / ".jupyter").exists(), "nothing after the failed step ran"
