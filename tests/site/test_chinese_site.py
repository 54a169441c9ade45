"""The Chinese edition of the built site: its figures, live code, drawings, glued values and the
words around its chapters read in Chinese, with the English edition's numbers; searching it finds
Chinese terms."""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from functools import partial
from pathlib import Path

import pytest
from PIL import Image

from _ext.editions.translation.figure_words import DATA, FIGURE, TEMPLATE, TEMPLATES, WORDS, map_texts
from bookbuild.catalogs import CATALOGS, package_texts, read
from selfattn.figures import FIGURES as INTERACTIVE_FIGURES
from selfattn.figures.output import embedded_json
from tests.helpers import figure_messages
from tests.site.crawl import CHINESE
from tests.site.test_site import search

pytestmark = pytest.mark.book


def test_the_chinese_edition_finds_a_chinese_term(site, server, browser):
    links = search(browser, server, "注意力权重", edition="zh/")
    assert links, "searching the Chinese edition for 注意力权重 found nothing"
    assert all("/zh/book/" in link for link in links), links


def english_in(texts: dict, english: list[str]) -> list[str]:
    """What the scripts write in English that shows in a figure's ``texts`` (FIGURE_TEXTS): a
    label that is all of an element's text, or a longer piece of a sentence around its values."""
    labels = {text for text in english if "{" not in text}
    pieces = {
        piece.strip()
        for text in english
        for piece in re.split(r"\{\w+\}", text)
        if len(piece.strip()) >= 12 and re.search("[A-Za-z]{3}", piece)
    }
    return sorted({t for t in texts["own"] if t in labels} | {p for p in pieces if p in texts["body"]})


def test_the_chinese_edition_s_figures_and_live_code_read_in_chinese(site, crawl):
    """On the crawl's visit to each Chinese page with figures, every figure is drawn and reads in
    Chinese, and so does the Live Code button (the visit's errors are checked with every page's)."""
    pages = sorted(p for p in (site / "zh" / "book").glob("*.html") if 'class="sa-fig"' in p.read_text())
    assert len(pages) >= 5, pages
    english, problems, kinds = package_texts(), [], set()
    for path in pages:
        name = path.relative_to(site).as_posix()
        figures, button = crawl[name].figure_texts, crawl[name].live_code_button
        count = path.read_text().count('class="sa-fig"')
        if len(figures) != count:
            problems.append(f"{name}: {len(figures)} of its {count} figures drawn")
        kinds |= {figure["kind"] for figure in figures}
        if not CHINESE.search(button):
            problems.append(f"{name}: the live code button reads {button!r}")
        for figure in figures:
            where = f"{name} {figure['kind']}"
            problems += [
                f"{where}: no Chinese in its {part}"
                for part in ("title", "description", "body")
                if not CHINESE.search(figure[part])
            ]
            problems += [f"{where}: English {text!r}" for text in english_in(figure, english)]
    assert len(kinds) == len(INTERACTIVE_FIGURES), sorted(kinds)
    assert not problems, "\n".join(problems)


def shifted(value):
    """A figure's words (their JSON) with every computed number changed, as on another machine."""
    if isinstance(value, dict):
        return {"words": value["words"], "values": {k: shifted(v) for k, v in value["values"].items()}}
    if isinstance(value, list):
        return [shifted(item) for item in value]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return value + 1 if isinstance(value, int) else value + 0.0123


def with_other_numbers(page: str) -> str:
    """``page`` as if its figures had been computed elsewhere: each Words value changed."""

    def attribute(match: re.Match) -> str:
        words = json.dumps(shifted(json.loads(html.unescape(match.group(1)))), ensure_ascii=False)
        return f'data-words="{html.escape(words)}"'

    def block(match: re.Match) -> str:
        placed = [[path, shifted(words)] for path, words in json.loads(match.group(2))]
        return match.group(1) + embedded_json(placed) + match.group(3)

    return TEMPLATES.sub(block, TEMPLATE.sub(attribute, page))


def figure_words(page: str) -> list[str]:
    """What a reader reads of each figure in ``page``: titles, descriptions, the data's Words."""
    texts = [
        html.unescape(match.group(3)) for match in WORDS.finditer(page) if "sa-fallback" not in match.group(1)
    ]
    for figure in FIGURE.findall(page):
        data, placed = DATA.search(figure), TEMPLATES.search(figure)
        for path, _ in json.loads(placed.group(2)) if placed else []:
            value = json.loads(data.group(2).replace("<\\/", "</"))
            for step in path:
                value = value[step]
            texts.append(value)
    return texts


def translated(catalog: dict[str, str], text: str) -> str:
    return catalog.get(text) or text


def test_figures_computed_with_other_numbers_still_read_in_chinese(site):
    """The Chinese build translates a figure's words from its chapter's catalog; here the English
    pages' figures, every computed value changed, are translated the same way: each text reads in
    Chinese and shows the changed numbers, so no catalog entry holds one build's digits."""
    pages = sorted(p for p in (site / "book").glob("*.html") if 'class="sa-fig"' in p.read_text())
    assert len(pages) >= 5, pages
    problems, changed = [], 0
    for path in pages:
        catalog = {m.id: m.string for m in read(CATALOGS / f"{path.stem}.po") if m.id and not m.fuzzy}
        page = path.read_text(encoding="utf-8")
        pieces = {
            piece.strip()
            for text in figure_messages(page)
            for piece in re.split(r"\{[^{}]*\}", text)
            if len(piece.strip()) >= 12 and re.search("[A-Za-z]{3}", piece)
        }
        ours = figure_words(map_texts(page, partial(translated, catalog)))
        theirs = figure_words(map_texts(with_other_numbers(page), partial(translated, catalog)))
        for text in theirs:
            left = [piece for piece in pieces if piece in text]
            if left or not CHINESE.search(text):
                problems.append(f"{path.name}: English {left or text[:90]!r}")
        changed += sum(a != b for a, b in zip(ours, theirs, strict=True))
    assert not problems, "\n".join(problems)
    assert changed >= 10, "the changed numbers are filled into the translations"


IMAGE = re.compile(r'<img [^>]*src="[^"]*_images/([^"/]+)"')


def test_the_chinese_edition_draws_its_figures_words_in_chinese(site):
    """The images the chapters draw show their words in Chinese on the Chinese site: each is
    another file than the English one (redrawn from the figure's SVG with the chapter's
    translations, _ext/editions/translation/figure_text.py), of the same pixel size, so the page keeps its
    layout. Only a drawing whose words are all code, numbers or names stays as it is (two:
    prerequisites' matrix product and embedding lookup)."""
    redrawn, kept, resized = 0, [], []
    for page in sorted((site / "book").glob("*.html")):
        english = IMAGE.findall(page.read_text(encoding="utf-8"))
        chinese = IMAGE.findall((site / "zh" / "book" / page.name).read_text(encoding="utf-8"))
        assert len(english) == len(chinese), f"{page.name}: {len(english)} images, {len(chinese)} in Chinese"
        for ours, theirs in zip(english, chinese, strict=True):
            if ours == theirs:
                kept.append(page.name)
                continue
            redrawn += 1
            with Image.open(site / "_images" / ours) as a, Image.open(site / "zh" / "_images" / theirs) as b:
                if a.size != b.size:
                    resized.append(f"{page.name}: {a.size} in English, {b.size} in Chinese")
    assert kept == ["prerequisites.html"] * 2, f"drawn in English on the Chinese site: {kept}"
    assert not resized, "\n".join(resized)
    assert redrawn >= 40, redrawn


def glued(page: Path) -> Counter:
    """The values glued into a page's text (MyST-NB's pasted-text spans)."""
    return Counter(re.findall(r'<span class="pasted-text">([^<]*)</span>', page.read_text(encoding="utf-8")))


def test_both_editions_show_the_same_glued_values_on_every_page(site):
    pages = sorted((site / "book").glob("*.html"))
    assert pages and all((site / "zh" / "book" / page.name).is_file() for page in pages)
    differ = [page.name for page in pages if glued(page) != glued(site / "zh" / "book" / page.name)]
    assert not differ, f"the editions show different numbers on {differ}"


# What the book's extensions and the theme write around the chapters, found in a page's HTML.
CHROME = {
    "the sidebar's title": r'logo__title">([^<]*)<',
    "a part's caption": r'role="heading"><span class="caption-text">([^<]*)<',
    "an exercise's title": r'<span class="caption-number">[^<]*</span>\s*\((.*?)\)</p>',
    "the edition line": r'class="edition">(.*?)</p>',
    "the author": r'component-author">(.*?)</p>',
}


def test_the_chinese_edition_reads_in_chinese_around_its_chapters(site):
    pages = sorted((site / "zh" / "book").glob("*.html"))
    found = {what: [] for what in CHROME}
    for page in pages:
        html = page.read_text(encoding="utf-8")
        for what, pattern in CHROME.items():
            found[what] += [(page.name, text.strip()) for text in re.findall(pattern, html, re.S)]
    assert all(found.values()), f"not on any page: {[what for what, texts in found.items() if not texts]}"
    english = {
        what: sorted({text for _, text in texts if not CHINESE.search(text)}) for what, texts in found.items()
    }
    assert not any(english.values()), f"still in English: {english}"
