"""The Chinese edition's catalogs keep up with the English: one per chapter, every message
translated, none fuzzy, every role, code span and formula kept (``tools.catalogs``)."""

from __future__ import annotations

import yaml

from tools import ROOT
from tools.catalogs import CATALOGS, markup, problems


def chapters() -> list[str]:
    """The chapter names of the table of contents."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return sorted(name.split("/")[-1] for name in files)


def test_every_chapter_has_a_catalog():
    assert sorted(path.stem for path in CATALOGS.glob("*.po")) == chapters()


def test_every_message_is_translated_with_its_markup_kept():
    found = [line for path in sorted(CATALOGS.glob("*.po")) for line in problems(path)]
    assert not found, "run `make translations`, then translate:\n" + "\n".join(found[:40])


def test_the_check_sees_lost_markup_and_allows_translated_link_text():
    english = "Loss {glue:text}`a:.2f` against {glue:text}`b`, see {ref}`sec` and {term}`token`, `x @ y`."
    good = "损失 {glue:text}`a:.2f` 对比 {glue:text}`b`，见{ref}`第二节 <sec>`和{term}`词元 <token>`，`x @ y`"
    bad = "损失 {glue:text}`a:.2f`，见{ref}`第二节 <sec>`和{term}`词元 <tokens>`，`x@y`。"
    assert markup(english) == markup(good)
    assert set(markup(english) - markup(bad)) == {"{glue:text}`b`", "{term} token", "`x @ y`"}
