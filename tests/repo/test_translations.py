"""The Chinese edition's catalogs keep up with the English: one per chapter, every message
translated, none fuzzy, every role, code span and formula kept; and every text the site's scripts
write has its translation, with the same values filled in (``tools.catalogs``)."""

from __future__ import annotations

import json
import re

import yaml

from tools import ROOT
from tools.catalogs import CATALOGS, ROLE, markup, problems, read, script_problems, script_texts


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
    figure = "From {first:.2f} to {last:.3f}, {when}, at {token!r}."
    assert markup(figure) == markup("从 {first:.2f} 到 {last:.3f}，{when}，在 {token!r}。")
    assert set(markup(figure) - markup("从 {first:.2f} 到 2.407，{when}，在 {token}。")) == {
        "{last:.3f}",
        "{token!r}",
    }


def test_every_text_the_scripts_write_is_translated():
    assert len(script_texts()) > 90, "the figures' labels and the live code's messages"
    found = script_problems()
    assert not found, "run `python -m tools.catalogs update`, then translate:\n" + "\n".join(found[:40])


def test_the_check_sees_untranslated_script_texts_and_changed_values(tmp_path):
    script = tmp_path / "figure.js"
    script.write_text(
        'label.textContent = phrase("Play");\n'
        'status.textContent = phrase("Step {s} of " +\n    "{last}.", { s, last });\n'
        "note.textContent = phrase(text);\n"
    )
    texts = tmp_path / "scripts.json"
    texts.write_text(json.dumps({"Step {s} of {last}.": "第 {s} 步", "Gone": "走了"}, ensure_ascii=False))
    assert script_texts((script,)) == ["Play", "Step {s} of {last}."]
    found = script_problems((script,), texts)
    assert len(found) == 4, found
    assert "not a string literal" in found[0] and "untranslated: 'Play'" in found[1]
    assert "differ" in found[2] and "no script writes 'Gone'" in found[3]


def test_no_message_holds_a_number_the_build_computed():
    """Every number in a message is typed in its chapter's source or in the package's (a figure's
    template, say); a number the build computed (a loss, a count) is filled in after translation,
    so one machine's digits never reach a catalog."""
    package = " ".join(path.read_text() for path in (ROOT / "code" / "selfattn").rglob("*.py"))
    found = []
    for path in sorted(CATALOGS.glob("*.po")):
        typed = " ".join(((ROOT / "book" / f"{path.stem}.md").read_text() + package).split())
        for message in read(path):
            numbers = re.findall(r"\d+(?:[.,]\d+)*", ROLE.sub(" ", message.id)) if message.id else []
            found += [f"{path.name}: {n} in {message.id[:60]!r}" for n in numbers if n not in typed]
    assert not found, "\n".join(found[:20])
