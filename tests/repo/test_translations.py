"""The Chinese edition's catalogs keep up with the English: one per chapter, every message
translated, none fuzzy, every role, code span and formula kept; and every text the site's scripts
write has its translation, with the same values filled in (``bookbuild.catalogs``). And the Chinese
text keeps its own rules: buttons named by their Chinese labels, emphasis CommonMark can open, no
space around a link, links named by their targets' titles, the terms of terminology.txt."""

from __future__ import annotations

import json
import re
from datetime import datetime

import yaml
from babel.messages.catalog import Catalog, Message
from markdown_it import MarkdownIt

from bookbuild import ROOT
from bookbuild.build import extract_prose
from bookbuild.catalogs import (
    CATALOGS,
    FIX,
    ROLE,
    markup,
    package_text_problems,
    package_texts,
    problems,
    read,
    read_package_texts,
    untranslated,
    update,
    write,
)


def page_names() -> list[str]:
    """The names of the table of contents' pages, sorted."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return sorted(name.split("/")[-1] for name in files)


def test_every_chapter_has_a_catalog():
    assert sorted(path.stem for path in CATALOGS.glob("*.po")) == page_names()


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


def test_every_message_of_the_english_as_it_is_now_is_translated():
    """The English text extracted as it stands, without executing the book: an edit that
    `make translations` has not brought into the catalogs would show in English in the Chinese
    edition."""
    found = untranslated(extract_prose())
    assert not found, "\n".join([*found[:40], FIX])


def test_an_english_edit_left_unextracted_is_found(tmp_path):
    added = "A sentence the catalogs have never seen."
    recap = (ROOT / "book" / "recap.md").read_text(encoding="utf-8")
    paragraph = "Everything in the book so far fits on one page."
    assert paragraph in recap
    edited = tmp_path / "book" / "recap.md"
    edited.parent.mkdir()
    edited.write_text(recap.replace(paragraph, f"{paragraph} {added}"), encoding="utf-8")
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: book/recap\n", encoding="utf-8")
    templates = extract_prose(tmp_path / "messages", root=tmp_path, toc=toc)
    found = untranslated(templates, root=tmp_path)
    assert len(found) == 1, found
    assert found[0].startswith("book/recap.md:") and "recap.po" in found[0] and paragraph[:40] in found[0]


def test_every_text_the_package_writes_is_translated():
    texts = package_texts()
    assert len(texts) > 110, "the figures' labels, the live code's messages and the package's printed lines"
    assert "✓ {right}" in texts, "the checkers' verdicts"
    found = package_text_problems()
    assert not found, "run `python -m bookbuild.catalogs update`, then translate:\n" + "\n".join(found[:40])


def test_the_check_sees_untranslated_package_texts_and_changed_values(tmp_path):
    script = tmp_path / "figure.js"
    script.write_text(
        'label.textContent = phrase("Play");\n'
        'status.textContent = phrase("Step {s} of " +\n    "{last}.", { s, last });\n'
        "note.textContent = phrase(text);\n"
    )
    module = tmp_path / "check.py"
    module.write_text(
        'SLIP = words("off by one")\n'
        'print(say("loss {loss:.4f} after {steps} steps", loss=2.5, steps=10), say(SLIP))\n'
    )
    texts = tmp_path / "zh_CN.json"
    translations = {
        "Step {s} of {last}.": "第 {s} 步",
        "off by one": "差了一位",
        "loss {loss:.4f} after {steps} steps": "{steps} 步后损失 {loss}",
        "Gone": "走了",
    }
    texts.write_text(json.dumps(translations, ensure_ascii=False))
    assert package_texts((script,), (module,)) == [
        "Play",
        "Step {s} of {last}.",
        "off by one",
        "loss {loss:.4f} after {steps} steps",
    ]
    found = package_text_problems((script,), texts, (module,))
    assert len(found) == 5, found
    assert "not a string literal" in found[0] and "untranslated: 'Play'" in found[1]
    assert "differ" in found[2] and "'Step {s} of {last}.'" in found[2]
    assert "differ" in found[3] and "{loss:.4f}" in found[3], "a field's format is kept"
    assert "no longer writes 'Gone'" in found[4]


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


# The Chinese text's own rules. Chinese characters and full-width punctuation, with the curly
# quotes Chinese text uses:
CHINESE = "[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u2018\u2019\u201c\u201d]"


def translated() -> list[tuple[str, Message]]:
    """Every message of every catalog, with its catalog's name."""
    return [(path.stem, m) for path in sorted(CATALOGS.glob("*.po")) for m in read(path) if m.id]


def labels(texts) -> set[str]:
    """The scripts' texts, and the word a numbered stage's button starts with ("2. scaled × 1/√{hs}"
    is also "scaled")."""
    return set(texts) | {re.sub(r"^\d+\.\s*", "", text).split(" × ")[0] for text in texts}


def test_a_message_names_a_button_by_its_chinese_label():
    """The figures' buttons are translated (selfattn/locale/zh_CN.json), so a message quotes the
    Chinese label:
    “一路走到 logits”, not “Run to logits”; and 按下“播放”, not 按下 Play."""
    texts = read_package_texts()
    english, chinese = labels(texts), labels(texts.values())
    found = []
    for name, message in translated():
        quoted = [a or b for a, b in re.findall(r"“([^”]+)”|「([^」]+)」", message.string)]
        pressed = re.findall(r"按下?\s*([A-Za-z][A-Za-z ]*[A-Za-z])", message.string)
        found += [f"{name}: {label!r}" for label in quoted + pressed if label in english - chinese]
    assert not found, "\n".join(found)


MATH = re.compile(r"\$\$.*?\$\$|\$[^$]+\$")


def literal_asterisks(text: str) -> int:
    """The asterisks CommonMark prints as they are: an emphasis that cannot open or close."""
    tokens = MarkdownIt("commonmark").parseInline(MATH.sub("$", text))[0].children
    return sum(token.content.count("*") for token in tokens if token.type == "text")


def test_emphasis_in_chinese_text_opens_and_closes():
    """In CommonMark a ** before punctuation opens only after a space or punctuation, and a ** after
    punctuation closes only before a space or punctuation: 放在了**“Your”**上 prints its asterisks,
    放在了“**Your**”上 is bold."""
    assert literal_asterisks("放在了**“Your”**上") == 4
    assert literal_asterisks("放在了“**Your**”上") == literal_asterisks("**交叉熵**（cross-entropy）") == 0
    found = [
        f"{name}: {message.string[:80]!r}"
        for name, message in translated()
        if literal_asterisks(message.string) > literal_asterisks(message.id)
    ]
    assert not found, "\n".join(found)


LINK = r"\{(?:doc|ref)\}`[^`]*`"


def test_no_space_between_a_link_and_chinese_text():
    """Chinese sets no space around a link to a chapter or section: 见{doc}`glossary`。"""
    spaced = re.compile(rf"{CHINESE} +{LINK}|{LINK} +{CHINESE}")
    found = [f"{name}: {hit!r}" for name, message in translated() for hit in spaced.findall(message.string)]
    assert not found, "\n".join(found)


def test_a_link_named_by_its_target_keeps_the_targets_chinese_title():
    """Where the English names a link by its target's title ({ref}`A padding mask <try-ex-...>`,
    a title starts with a capital), the Chinese names it by the title's translation."""
    titles = {message.id: message.string for _, message in translated()}
    named = re.compile(r"\{(?:doc|ref)\}`([^`<]*?)\s*<([^`>]+)>`")
    found = []
    for name, message in translated():
        english = {target: text for text, target in named.findall(message.id)}
        for text, target in named.findall(message.string):
            title = titles.get(english.get(target, ""))
            if english.get(target, "")[:1].isupper() and title and text != title:
                found.append(f"{name}: {text!r} for {english[target]!r}, titled {title!r}")
    assert not found, "\n".join(found)


def rejected_variants() -> list[tuple[list[str], str, list[str]]]:
    """The terms of terminology.txt that name the variants they replace, as ``english  chinese
    [not: variant, variant]``: the English ones (a part in parentheses left out), the Chinese, the
    variants."""
    found = []
    for line in (ROOT / "locale" / "zh_CN" / "terminology.txt").read_text(encoding="utf-8").splitlines():
        term = re.match(r"(\S.*?)\s{2,}(\S.*?)\s+\[not: ([^\]]+)\]$", line)
        if term:
            english = re.sub(r"\s*\([^)]*\)", "", term[1]).split(" / ")
            found.append(([e.strip() for e in english], term[2], [v.strip() for v in term[3].split(", ")]))
    return found


def test_a_term_is_translated_as_terminology_txt_says():
    """A message whose English has a term of terminology.txt uses none of the variants the term
    replaces: 小实验 for the toy, never 玩具例子."""
    terms = rejected_variants()
    assert len(terms) >= 7, terms
    found = []
    for name, message in translated():
        for english, chinese, variants in terms:
            if any(re.search(rf"\b{re.escape(e)}", message.id, re.IGNORECASE) for e in english):
                found += [
                    f"{name}: {v!r} for {chinese!r}: {message.string[:60]!r}"
                    for v in variants
                    if v in message.string
                ]
    assert not found, "\n".join(found)


def test_an_update_that_changes_no_message_leaves_the_catalog_as_it_was(tmp_path):
    """A template extracted again (a new date) changes no catalog; a new message changes its own."""
    templates, catalogs = tmp_path / "templates", tmp_path / "catalogs"
    templates.mkdir()

    def extract(date: str, *messages: str) -> None:
        english = Catalog(creation_date=datetime.fromisoformat(date))
        for message in messages:
            english.add(message)
        write(english, templates / "chapter.pot")

    extract("2026-12-01T10:00", "A head.")
    assert update(templates, catalogs) == [catalogs / "chapter.po"]
    before = (catalogs / "chapter.po").read_bytes()
    extract("2026-12-07T10:00", "A head.")
    assert update(templates, catalogs) == []
    assert (catalogs / "chapter.po").read_bytes() == before
    extract("2026-12-07T10:00", "A head.", "A wider head.")
    assert update(templates, catalogs) == [catalogs / "chapter.po"]
    assert read(catalogs / "chapter.po").get("A wider head.") is not None
