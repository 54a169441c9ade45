"""CONTRIBUTING's recipes for the common changes name files that exist.

A recipe that sends a contributor to a file that moved or was renamed fails here, not in their
hands. A path with a placeholder (``book/<chapter>.md``) must match at least one file.
"""

from __future__ import annotations

import re
import subprocess

from bookbuild import ROOT

CONTRIBUTING = ROOT / "CONTRIBUTING.md"
SPAN = re.compile(r"`([^`\s]+)`")
PLACEHOLDER = re.compile(r"<[^>]+>")


def recipes() -> str:
    """The text of the "Common changes" section."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    return text.split("\n## Common changes\n", 1)[1].split("\n## ", 1)[0]


def named_paths(text: str) -> list[str]:
    """The code spans of ``text`` that name a file or folder: those with a slash or a dot suffix."""
    spans = (span for span in SPAN.findall(text) if "/" in span or re.search(r"\.\w+$", span))
    return [span for span in spans if not span.startswith(("make", "python", "-"))]


def exists(path: str) -> bool:
    """Whether ``path`` (from the root, placeholders as ``*``) names at least one file or folder."""
    return any(ROOT.glob(PLACEHOLDER.sub("*", path).rstrip("/")))


def test_the_recipes_come_first():
    headings = re.findall(r"^## (.+)$", CONTRIBUTING.read_text(encoding="utf-8"), re.M)
    assert headings[0] == "Common changes"


def test_every_file_a_recipe_names_exists():
    paths = named_paths(recipes())
    assert len(paths) > 20  # the recipes name their files
    assert [path for path in paths if not exists(path)] == []


def test_a_moved_file_is_found():
    assert named_paths("edit `book/<chapter>.md`, then `make book`") == ["book/<chapter>.md"]
    assert exists("book/<chapter>.md") and not exists("book/<chapter>.rst")


def test_the_style_recipe_names_every_stylesheet_of_the_book():
    """A stylesheet the recipe leaves out is one a contributor will not find."""
    recipe = recipes().split("**Change the site's style.**", 1)[1].split("\n\n", 1)[0]
    listed = subprocess.run(
        ["git", "ls-files", "*.css"], cwd=ROOT, capture_output=True, check=True, text=True
    )
    stylesheets = listed.stdout.split()
    assert "_static/book.css" in stylesheets
    assert [sheet for sheet in stylesheets if f"`{sheet}`" not in recipe] == []
