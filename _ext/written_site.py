"""What the build's steps that change a written site share (the figure script,
``bookbuild/optimize.py``): its own files and pages, the files they load, and writing a file so
that no one reads half of it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from selfattn.files import write_atomically


def own_files(out: Path, pattern: str) -> Iterator[Path]:
    """The files matching ``pattern`` of the site in ``out``, not those of another site inside it
    (an edition copied into a folder of its own, with its own ``_static``)."""
    nested = [folder.parent for folder in out.glob("*/**/_static")]
    return (path for path in out.glob(pattern) if not any(path.is_relative_to(folder) for folder in nested))


def pages(out: Path) -> Iterator[Path]:
    """Every HTML page of the site in ``out``, not those of another site inside it."""
    return own_files(out, "**/*.html")


def loaded(out: Path, name: re.Pattern) -> set[str]:
    """The file names matching ``name`` that some page of the site in ``out`` names."""
    return {found for page in pages(out) for found in name.findall(page.read_text(encoding="utf-8"))}


def write_text_atomically(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` at once: a browser or a build never reads half of it."""
    write_atomically(target, lambda file: file.write(text.encode("utf-8")))
