"""Every chapter as a reader's notebook (``_ext/content/reader_notebooks.py``): in both editions,
offered from the page, plain Markdown that Jupyter and Colab render, the page's code and outputs,
none of the build's own statements, and an install cell; and one notebook run top to bottom in a
fresh environment, loading the published runs instead of training them."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import nbformat
import pytest

from _ext.content.reader_notebooks import FOLDER, colab_url, kaggle_url
from tests.helpers import code_cells
from tools.notebook_run import environment, run

EDITIONS = {"en": "", "zh_CN": "zh/"}
MYST = re.compile(r"\{(term|ref|doc|glue:\w+|numref|eq|cite:\w+)\}`|^:::|^```\{|^\(\S+\)=$", re.M)
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def notebooks(site: Path) -> dict[str, Path]:
    """Each chapter page of an edition's site with code cells, and its notebook's path."""
    found = {}
    for page in sorted((site / "book").glob("*.html")):
        if code_cells(page.read_text(encoding="utf-8")):
            found[page.stem] = site / FOLDER / "book" / f"{page.stem}.ipynb"
    return found


def cell_text(book: dict, kind: str) -> str:
    return "\n".join("".join(cell["source"]) for cell in book["cells"] if cell["cell_type"] == kind)


def printed(book: dict) -> str:
    return "".join(
        "".join(output.get("text", ""))
        for cell in book["cells"]
        for output in cell.get("outputs", [])
        if output["output_type"] == "stream"
    )


@pytest.mark.parametrize("language", EDITIONS)
def test_every_chapter_page_has_its_notebook_with_what_the_page_shows(built_book, language):
    site = built_book / EDITIONS[language]
    found = notebooks(site)
    assert len(found) >= 18, f"{len(found)} chapters with code"
    for name, path in found.items():
        assert path.is_file(), f"{name}: no reader's notebook"
        book = json.loads(path.read_text(encoding="utf-8"))
        nbformat.validate(nbformat.from_dict(book))
        prose, code = cell_text(book, "markdown"), cell_text(book, "code")
        assert not MYST.search(prose), f"{name}: MyST markup left: {MYST.search(prose).group(0)!r}"
        assert "glue(" not in code and "myst_nb" not in code, f"{name}: the build's own statements"
        assert not re.search(r"^assert ", code, re.M), f"{name}: the build's asserts"
        assert "%pip install" in "".join(book["cells"][0]["source"]), f"{name}: no install cell"
        page = (site / "book" / f"{name}.html").read_text(encoding="utf-8")
        unquoted = re.sub(r"^> ?", "", prose, flags=re.M)  # a solution's cells, in its box
        shown = printed(book) + unquoted
        for source, out in code_cells(page):
            assert source.strip() in code or source.strip() in unquoted, f"{name}: {source[:60]!r} missing"
            for line in out.strip().splitlines()[:3]:
                assert line.strip() in shown, f"{name}: printed {line!r} missing"
        images = sum(
            1
            for cell in book["cells"]
            for output in cell.get("outputs", [])
            if "image/png" in output.get("data", {}) or "image/svg+xml" in output.get("data", {})
        ) + sum(len(cell.get("attachments", {})) for cell in book["cells"])
        drawn = len(re.findall(r'<img\b[^>]*\bsrc="[^"]*_images/', page))  # what the chapter drew
        assert images >= min(drawn, 1), f"{name}: no figure in the notebook"
        if language != "en":  # more Chinese characters than English words, outside code, math and URLs
            words = re.sub(r"`[^`]*`|\$[^$]*\$|\]\([^)]*\)", " ", prose)
            chinese, english = len(CHINESE.findall(words)), len(re.findall(r"[A-Za-z]{2,}", words))
            assert chinese > english, f"{name}: not Chinese prose ({chinese} characters, {english} words)"


@pytest.mark.parametrize("language", EDITIONS)
def test_each_page_offers_its_notebook_colab_and_kaggle(built_book, language):
    site = built_book / EDITIONS[language]
    for name in notebooks(site):
        page = (site / "book" / f"{name}.html").read_text(encoding="utf-8")
        assert f'href="../{FOLDER}/book/{name}.ipynb"' in page, f"{name}: the download menu's notebook"
        links = re.findall(r'href="(https://(?:colab\.research\.google\.com|www\.kaggle\.com)[^"]+)"', page)
        assert len(links) == 2, f"{name}: {links}"
        github = links[0].removeprefix("https://colab.research.google.com/github/")
        file = f"https://github.com/{github}"
        assert re.fullmatch(
            rf"https://github\.com/[\w-]+/[\w-]+/blob/notebooks(-[0-9a-f]{{40}})?/{language}/book/{name}\.ipynb",
            file,
        ), file
        assert links == [colab_url(file), kaggle_url(file)], links
    with zipfile.ZipFile(site / FOLDER / f"{language}.zip") as archive:
        assert {Path(n).stem for n in archive.namelist()} == set(notebooks(site))


@pytest.mark.reexecute
def test_a_notebook_runs_top_to_bottom_in_a_fresh_environment_and_loads_the_published_runs(
    built_book, tmp_path
):
    """The attention chapter's notebook, from its own install cell, with the runs served."""
    python = environment(tmp_path / "venv")
    ran = run(built_book / FOLDER / "book" / "attention-model.ipynb", python, built_book / "runs", tmp_path)
    assert ran.loaded >= 1 and ran.trained == 0, (ran.loaded, ran.trained)
    errors = [o for c in ran.notebook["cells"] for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
