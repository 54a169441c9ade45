"""What the tests share besides fixtures: where things are, and built pages read as a reader reads them."""

from __future__ import annotations

import html
import inspect
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
import yaml
from packaging.utils import canonicalize_name

from _ext.editions.translation.figure_words import map_texts
from _ext.npm_dependency import node_binary
from bookbuild import ROOT, SITE, built_pdf
from selfattn import History, TrainConfig, fit, published, run_cache

HTML = SITE
# The PDF editions, where make pdf builds them (bookbuild.build_pdf).
PDF, PDF_ZH = built_pdf("en"), built_pdf("zh_CN")

# The page of the interactive figures (tools.figure_page) as the figure tests build it:
# a quick run, with the "bigram" line halfway down its validation curve so that the curve crosses it.
FIGURE_RUN = TrainConfig(learning_rate=1e-2, max_iters=200, eval_interval=50, eval_iters=10)
FIGURE_BIGRAM = "(history.val_loss[0] + history.final_val) / 2"


def part_chapters(*captions: str) -> list[str]:
    """The pages of the parts whose captions start with ``captions`` ("Part I:"), as
    ``book/name``, in the book's order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    parts = [part for part in toc["parts"] if part.get("caption", "").startswith(captions)]
    assert [part["caption"].split(":")[0] + ":" for part in parts] == list(captions), (
        f"{captions} in _toc.yml"
    )
    return [entry["file"] for part in parts for entry in part["chapters"]]


# Positions in the toy sentence "Your journey starts with one step".
YOUR, JOURNEY, STARTS = 0, 1, 2


def same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    """Whether two models hold the same tensors under the same names, bit for bit."""
    one, other = a.state_dict(), b.state_dict()
    return one.keys() == other.keys() and all(torch.equal(one[k], other[k]) for k in one)


@dataclass
class Published:
    """A run trained into a build's run cache and published from it by the real publishing step."""

    site: Path  # what a server serves: runs/ and its manifest
    model: torch.nn.Module
    history: History
    key: str

    @property
    def runs(self) -> Path:
        return self.site / published.RUNS_FOLDER

    def manifest(self) -> dict:
        return json.loads((self.runs / published.MANIFEST).read_text())

    def rewrite_manifest(self, change: Callable[[dict], object]) -> None:
        """Apply ``change`` to the run's entry in the manifest, as a tampered site would."""
        data = self.manifest()
        change(data["runs"][self.key])
        (self.runs / published.MANIFEST).write_text(json.dumps(data))


def keep_runs_in(monkeypatch: pytest.MonkeyPatch, folder: Path | None) -> None:
    """Turn the run cache on, kept in ``folder`` (None: the reader's own cache, as in a notebook)."""
    if folder is None:
        monkeypatch.delenv(run_cache.RUN_CACHE_ENV, raising=False)
    else:
        monkeypatch.setenv(run_cache.RUN_CACHE_ENV, str(folder))
    for off in (run_cache.OFF_ENV, run_cache.OLD_OFF_ENV):
        monkeypatch.delenv(off, raising=False)


def publish_a_run(folder: Path, monkeypatch: pytest.MonkeyPatch, config: TrainConfig) -> Published:
    """Train an attention model with ``config`` into ``folder/build-runs`` and publish it into
    ``folder/site``; the environment is left pointing at that build's run cache."""
    build = folder / "build-runs"
    keep_runs_in(monkeypatch, build)
    model, history = fit("attention", config)
    site = folder / "site"
    published.publish(build, site / published.RUNS_FOLDER, commit="test")
    return Published(site, model, history, run_cache.run_key("attention", config))


def reader_environment() -> dict[str, str]:
    """The environment a reader's shell has: none of the import paths pytest adds."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def script(name: str, *flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the chapter script ``code/<name>`` with ``flags`` from the repository's root."""
    return subprocess.run(
        [sys.executable, str(ROOT / "code" / name), *flags], capture_output=True, text=True, cwd=ROOT, env=env
    )


def locked_versions(lock: Path = ROOT / "requirements.lock") -> dict[str, str]:
    """Each package's version in the Python lock file (``name==version`` lines), by canonical name."""
    pins = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", lock.read_text(), flags=re.M)
    return {canonicalize_name(name): version for name, version in pins}


def npm_bin(binary: str) -> list[str]:
    """The command line of a development tool in node_modules/.bin, as ``npm ci`` installed it
    from package-lock.json (make test runs npm ci first), run by the book's Node.js."""
    path = ROOT / "node_modules" / ".bin" / binary
    assert path.is_file(), f"{path} is missing: run npm ci (make test does)"
    return [node_binary(), str(path.resolve())]


def page_text(path: Path) -> str:
    """A built page's visible text with tags removed and whitespace collapsed."""
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", raw)).split())


def issue_links(page: str) -> list[str]:
    """Where a built page's issue buttons lead (the theme's ``btn-source-issues-button`` links)."""
    tags = re.findall(r"<a\s[^>]*>", page)
    return [
        html.unescape(re.search(r'href="([^"]*)"', tag).group(1))
        for tag in tags
        if re.search(r'class="[^"]*\bbtn-source-issues-button\b', tag)
    ]


def reader_text(path: Path) -> str:
    """``page_text`` with straight quotes and no space before punctuation (glued values are spans)."""
    text = page_text(path).translate(str.maketrans({"“": '"', "”": '"', "’": "'"}))
    return re.sub(r"\s+([.,:;)%])", r"\1", text)


def chapter(site: Path, name: str) -> tuple[Path, str]:
    """A chapter's built page and its ``reader_text``; a page that shows a traceback fails here."""
    path = site / "book" / f"{name}.html"
    text = reader_text(path)
    assert "Traceback" not in text, f"{name}: a cell raised an error when the book was built"
    return path, text


CODE_CELL = re.compile(r'<div class="cell[ "]')
CELL_SOURCE = re.compile(r'<div class="cell_input.*?<pre>(.*?)</pre>', re.S)
CELL_PRINTED = re.compile(
    r'<div class="output (?:stream|stderr)[^"]*"><div class="highlight"><pre>(.*?)</pre>', re.S
)


def _block_text(block: str) -> str:
    """A ``<pre>`` block's text as the reader sees it."""
    return html.unescape(re.sub(r"<[^>]+>", "", block))


def code_cells(page: str, hidden: bool = True) -> list[tuple[str, str]]:
    """Each code cell of a built page: its source, and all it printed; with ``hidden`` false, not
    the cells whose code is hidden behind a button (which the PDF leaves out)."""
    found = []
    for chunk in CODE_CELL.split(page)[1:]:
        source = CELL_SOURCE.search(chunk)
        if source and (hidden or not chunk.startswith("tag_hide-input")):
            found.append(
                (_block_text(source.group(1)), "".join(_block_text(p) for p in CELL_PRINTED.findall(chunk)))
            )
    return found


def figure_alts(path: Path) -> list[str]:
    """The alt text of every figure image the page's code produced."""
    images = re.findall(r"<img\b[^>]*>", path.read_text(encoding="utf-8"))
    return [re.search(r'\balt="([^"]*)"', img).group(1) for img in images if "_images/" in img]


def code_blocks(path: Path) -> list[str]:
    """The text of every ``<pre>`` block on a built page, as the reader sees it."""
    blocks = re.findall(r"<pre\b[^>]*>(.*?)</pre>", path.read_text(encoding="utf-8"), flags=re.S)
    return [_block_text(block) for block in blocks]


def shows_source(path: Path, obj) -> bool:
    """Whether a built page shows ``obj``'s source exactly as the package has it."""
    source = inspect.cleandoc(inspect.getsource(obj))
    return any(inspect.cleandoc(block) == source for block in code_blocks(path))


def unshown_sources(site: Path, page: str, objects: list) -> list[str]:
    """The names of the ``objects`` whose source the built chapter ``page`` does not show exactly."""
    path, _ = chapter(site, page)
    return [obj.__qualname__ for obj in objects if not shows_source(path, obj)]


def included_objects(source: Path) -> set[tuple[str, str]]:
    """The (module, object) pairs a chapter's source includes with ``literalinclude`` ``:pyobject:``."""
    pattern = r"literalinclude\} \.\./code/selfattn/(\w+)\.py\n:pyobject: ([\w.]+)"
    return set(re.findall(pattern, source.read_text(encoding="utf-8")))


def source_shown_wrongly(site: Path, page: str, objects: list) -> list[str]:
    """What is wrong with the package source the chapter ``page`` shows, if it should show exactly
    ``objects``: included and not listed, listed and not included, or shown otherwise than the
    package has it."""
    included = included_objects(ROOT / "book" / f"{page}.md")
    listed = {(obj.__module__.rsplit(".", 1)[-1], obj.__qualname__): obj for obj in objects}
    return [
        *(f"includes {module}.{name}, not listed" for module, name in sorted(included - listed.keys())),
        *(f"does not include {module}.{name}" for module, name in sorted(listed.keys() - included)),
        *(f"shows {name} otherwise than the package has it" for name in unshown_sources(site, page, objects)),
    ]


def figure_messages(page: str) -> list[str]:
    """What a translation of ``page`` is asked for, in order: its figures' words and templates."""
    seen: list[str] = []
    map_texts(page, lambda text: seen.append(text) or text)
    return seen


def shown_range(shown: str) -> tuple[float, float]:
    """The numbers a value shown on a page as ``shown`` ("12.3", "1,024") may have been before
    it was rounded to the digits shown."""
    decimals = len(shown.partition(".")[2])
    value, half = float(shown.replace(",", "")), 0.5 * 10**-decimals * (1 + 1e-9)  # and float error
    return value - half, value + half


def agrees_to_rounding(ratio: str, numerator: str, denominator: str, scale: float = 1.0) -> bool:
    """Whether a ratio a page shows can be ``scale * numerator / denominator`` of two numbers it
    shows, each of the three rounded to the digits shown."""
    low, high = shown_range(ratio)
    n_low, n_high = shown_range(numerator)
    d_low, d_high = shown_range(denominator)
    largest = scale * n_high / d_low if d_low > 0 else float("inf")
    return low <= largest and scale * n_low / d_high <= high
