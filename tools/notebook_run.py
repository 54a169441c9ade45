"""A reader's notebook run top to bottom in a fresh virtual environment, as on Colab or a laptop.

The environment holds Python, pip, this machine's torch (as Colab's or Kaggle's machine has one)
and a kernel, nothing else: the notebook's own first cell installs the rest. That cell installs
the book's package from GitHub at the site's commit; here it installs the same package from this
checkout instead, and the data come from the offline mirror when one is set. The published runs
are served from a folder on a loopback port (``SELFATTN_RUNS_URL``), so the notebook loads them as a
reader's does, into a run cache of its own. ``benchmarks.reader_notebooks`` runs every one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from bookbuild import ROOT
from selfattn.data import DOWNLOAD_CACHE_ENV
from selfattn.language import languages, translations
from selfattn.run_cache import OFF_ENV, OLD_OFF_ENV, RUN_CACHE_ENV
from tools.serve import serve

KERNEL_PACKAGES = ("ipykernel", "nbclient")  # what a notebook needs to run, as Jupyter and Colab have
INSTALL = re.compile(r'"selfattn @ git\+[^"]+"')  # the package, in the first cell's %pip line
# The notebook executed by the environment's own Python, its kernel that environment's.
EXECUTE = """
import sys, nbformat
from nbclient import NotebookClient
book = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(book, timeout=1800, kernel_name="python3", allow_errors=False).execute()
nbformat.write(book, sys.argv[2])
"""
# What selfattn.published prints when it loads a published run, and when it trains one instead.
LOADED = (
    "Loaded the book's trained run from {url} (kept in {folder}).",
    "Loaded the book's trained run from {url}, trained with torch {theirs} (this is {ours}): the model is "
    "the book's (kept in {folder}).",
)
TRAINED = ("Not using the book's published run: {why}. Training it here instead.",)


def in_any_language(templates: tuple[str, ...]) -> re.Pattern:
    """The lines that say one of ``templates``, in any language the package speaks, values filled in."""
    texts = {translations(lang).get(t) or t for t in templates for lang in languages()}
    return re.compile("|".join(".*?".join(map(re.escape, re.split(r"\{[^{}]*\}", text))) for text in texts))


@dataclass
class Ran:
    seconds: float
    cells: int
    loaded: int  # LOADED lines, in the notebook's language
    trained: int  # TRAINED lines
    notebook: dict


def environment(folder: Path) -> Path:
    """A fresh virtual environment in ``folder`` with this machine's torch and a kernel; its Python."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = folder / ("Scripts" if os.name == "nt" else "bin") / "python"
    torch_version = torch.__version__.split("+")[0]
    packages = [f"torch=={torch_version}", *KERNEL_PACKAGES]
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *packages], check=True)
    return python


def from_checkout(book: dict, checkout: Path = ROOT) -> dict:
    """``book`` with its first cell installing the package from ``checkout`` instead of GitHub."""
    first = "".join(book["cells"][0]["source"])
    if not INSTALL.search(first):
        raise ValueError("the notebook's first cell does not install the book's package")
    local = json.dumps(f"selfattn @ {checkout.resolve().as_uri()}")
    changed = dict(book)
    changed["cells"] = [{**book["cells"][0], "source": INSTALL.sub(local, first)}, *book["cells"][1:]]
    return changed


def run(notebook: Path, python: Path, runs: Path | None, work: Path) -> Ran:
    """``notebook`` executed top to bottom by ``python``'s kernel, its runs fetched from ``runs``."""
    book = from_checkout(json.loads(notebook.read_text(encoding="utf-8")))
    source, done = work / notebook.name, work / f"ran-{notebook.name}"
    source.write_text(json.dumps(book), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in (RUN_CACHE_ENV, OFF_ENV, OLD_OFF_ENV)}
    env[DOWNLOAD_CACHE_ENV] = str(work / "cache")  # the reader's own download and run cache
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    start = time.perf_counter()
    with serve(runs) if runs else contextlib.nullcontext() as server:
        env["SELFATTN_RUNS_URL"] = server.url() if server else ""
        subprocess.run([str(python), "-c", EXECUTE, str(source), str(done)], check=True, env=env, cwd=work)
    seconds = time.perf_counter() - start
    ran = json.loads(done.read_text(encoding="utf-8"))
    said = "".join(
        "".join(output.get("text", ""))
        for cell in ran["cells"]
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    )
    loaded = len(in_any_language(LOADED).findall(said))
    trained = len(in_any_language(TRAINED).findall(said))
    return Ran(seconds, len(ran["cells"]), loaded, trained, ran)
