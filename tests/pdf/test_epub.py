"""The EPUB editions, read as an e-reader reads them: valid for epubcheck, every chapter in the
order of the contents, the Chinese one in Chinese, math as MathML, every figure an image inside.

``make book`` builds both EPUBs beside the PDFs (``pdf-into-sites``); ``built_pdfs`` (conftest)
stands for that step, so these tests are in the PDF tier. What holds for both editions is tested
on both (``edition``). Every expectation is read from the sources, the catalogs, the config or
the built site, never typed in by hand.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from urllib.parse import urljoin

import pytest
import yaml

from _ext.editions.edition_links import EDITIONS
from _ext.editions.translation import say
from bookbuild import ROOT, built_epub
from bookbuild.catalogs import CATALOGS, read
from tests.helpers import HTML
from tests.pdf.reading import first_heading, toc_chapters, unspaced

EPUBCHECK = Path("/usr/share/java/epubcheck.jar")  # Debian's epubcheck, run with java -jar
SITES = {"en": HTML, "zh_CN": HTML / "zh"}  # the site that carries each edition's EPUB
OPF = "{http://www.idpf.org/2007/opf}"
DC = "{http://purl.org/dc/elements/1.1/}"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
ROOT_PAGE = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))["root"]
# Raw TeX or MyST a page's prose must not show (its code may)
RAW = re.compile(
    r"\\(?:frac|sqrt|mathrm|sum|begin|end|left|right|text)\b|\$\$|\$[^$\s][^$]*\$|\{(?:glue|term|ref)"
)
FORMULA = re.compile(r'<(?:span|div) class="math"')
# A bibliography entry: pybtex prints a title's BibTeX math as it is written, on the site too
CITATION = re.compile(r'<div class="citation".*?</div>', re.S)
MARKUP = re.compile(r"[`{}$*\[\]<>_\\]")  # in a message: roles, code, math, emphasis, links


@dataclass
class Epub:
    """One EPUB edition, opened."""

    language: str
    path: Path

    @cached_property
    def files(self) -> dict[str, bytes]:
        with zipfile.ZipFile(self.path) as packed:
            return {name: packed.read(name) for name in packed.namelist()}

    def text(self, name: str) -> str:
        return self.files[name].decode("utf-8")

    @cached_property
    def package(self) -> ET.Element:
        return ET.fromstring(self.files["content.opf"])

    def metadata(self, name: str) -> str:
        return self.package.find(f"{OPF}metadata/{DC}{name}").text

    @cached_property
    def manifest(self) -> dict[str, ET.Element]:
        """Every item of the manifest by its path in the EPUB."""
        return {item.get("href"): item for item in self.package.iter(f"{OPF}item")}

    @cached_property
    def spine(self) -> list[str]:
        """The pages in reading order."""
        paths = {item.get("id"): href for href, item in self.manifest.items()}
        return [paths[ref.get("idref")] for ref in self.package.iter(f"{OPF}itemref")]

    def page(self, docname: str) -> str:
        return self.text(f"{docname}.xhtml")

    def pages(self) -> dict[str, str]:
        return {name: self.text(name) for name in self.files if name.endswith(".xhtml")}


def visible_text(page: str) -> str:
    """A page's prose as a reader sees it: no code, no tags, no MathML's TeX annotation."""
    page = re.sub(r"<(annotation|pre|code|style|title)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def site_page(language: str, docname: str) -> str:
    return (SITES[language] / f"{docname}.html").read_text(encoding="utf-8")


def article(page: str) -> str:
    """The site page's article: what the EPUB's page holds, without the site's header and sidebars."""
    return page[page.find('<article class="bd-article"') : page.find("</article>")]


@pytest.fixture(scope="module", params=["en", "zh_CN"])
def edition(request, built_pdfs) -> Epub:
    """Each EPUB edition in turn, as ``make book`` builds it with the PDFs: the English, then the
    Chinese."""
    path = built_epub(request.param)
    assert path.is_file(), f"{path} is missing: make book builds it (make epub builds it alone)"
    print(f"\n{path.relative_to(ROOT)}: {path.stat().st_size / 1e6:.1f} MB")
    return Epub(request.param, path)


def test_the_makefile_names_the_epubs_that_bookbuild_builds():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for variable, language in (("EPUB", "en"), ("EPUB_ZH", "zh_CN")):
        path = built_epub(language).relative_to(ROOT)
        assert re.search(rf"^{variable} +:= {re.escape(str(path))}$", makefile, re.M), variable


@pytest.mark.tex
def test_epubcheck_finds_no_error(edition, tmp_path):
    assert EPUBCHECK.is_file() and shutil.which("java"), "epubcheck missing: apt-get install epubcheck"
    report = tmp_path / "epubcheck.json"
    result = subprocess.run(
        ["java", "-jar", EPUBCHECK, edition.path, "--json", report, "--quiet"], capture_output=True, text=True
    )
    messages = json.loads(report.read_text(encoding="utf-8"))["messages"]
    said = [
        f"{m['severity']} {m['ID']}: {m['message']} ({', '.join(loc['path'] for loc in m['locations'][:3])})"
        for m in messages
    ]
    print("\n".join(["epubcheck:", *said]) if said else "epubcheck: no message")
    errors = [line for line in said if line.startswith(("FATAL", "ERROR"))]
    assert not errors and result.returncode == 0, "\n".join(errors[:20]) or result.stderr[-2000:]


@pytest.mark.tex
def test_the_metadata_name_the_book_in_its_language(edition):
    language = edition.language
    assert edition.metadata("title") == say(language, CONFIG["title"])
    assert edition.metadata("creator") == say(language, CONFIG["author"])
    assert edition.metadata("language") == language.replace("_", "-")
    # the same from build to build: the address the site offers it at
    address = urljoin(CONFIG["html"]["baseurl"], EDITIONS[language][1] + edition.path.name)
    assert edition.metadata("identifier") == address
    assert all(f'lang="{language.replace("_", "-")}"' in page for page in edition.pages().values())


@pytest.mark.tex
def test_every_chapter_is_there_in_the_order_of_the_contents(edition):
    docnames = [ROOT_PAGE, *(chapter.docname for chapter in toc_chapters())]
    pages = [page for page in edition.spine if page != "genindex.xhtml"]
    assert pages == [f"{docname}.xhtml" for docname in docnames]
    nav = visible_text(edition.text("nav.xhtml"))
    translated = edition.language != "en"
    titles = [first_heading(docname, translated) for docname in docnames[1:]]
    at = [unspaced(nav).find(unspaced(title)) for title in titles]
    missing = [title for title, where in zip(titles, at, strict=True) if where < 0]
    assert not missing, f"chapters missing from the EPUB's contents: {missing}"
    assert at == sorted(at), "the EPUB's contents list the chapters in the book's order"


def without_english_terms(text: str) -> str:
    """Chinese ``text`` without the English names in brackets that a term's first use adds
    (``_ext/editions/translation/term_english.py``), "词元（token）" read as "词元"."""
    return re.sub(r"（[\x00-\xff]+?）", "", text)


def plain_messages(docname: str) -> list[tuple[str, str]]:
    """(English, Chinese) of each of a chapter's messages that is a plain sentence: no markup."""
    catalog = read(CATALOGS / f"{Path(docname).name}.po")
    return [
        (m.id, m.string)
        for m in catalog
        if m.id and m.string and len(m.id) > 60 and not MARKUP.search(m.id + m.string)
    ]


@pytest.mark.tex
def test_the_chinese_epub_reads_in_chinese(built_pdfs):
    epub = Epub("zh_CN", built_epub("zh_CN"))
    checked = 0
    for chapter in toc_chapters():
        page = epub.page(chapter.docname)
        heading = re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)
        assert unspaced(first_heading(chapter.docname, translated=True)) in unspaced(visible_text(heading))
        # its words, each run of text joined across inline tags, and its images' alt texts
        words = re.sub(r"<[^>]+>", "", page) + " ".join(re.findall(r'\salt="([^"]*)"', page))
        text = without_english_terms(unspaced(html.unescape(words)))
        for english, chinese in plain_messages(chapter.docname)[:3]:
            assert without_english_terms(unspaced(chinese)) in text, f"{chapter.docname}: {chinese!r} missing"
            assert unspaced(english) not in text, f"{chapter.docname}: {english!r} left in English"
            checked += 1
    assert checked >= 20, f"only {checked} sentences found to check"


@pytest.mark.tex
def test_math_is_mathml_and_no_tex_shows(edition, built_book):
    with_math = 0
    for chapter in toc_chapters():
        page = edition.page(chapter.docname)
        formulas = len(FORMULA.findall(article(site_page(edition.language, chapter.docname))))
        assert len(FORMULA.findall(page)) == formulas, f"{chapter.docname}: not every formula of the site"
        assert page.count("<math ") == formulas, f"{chapter.docname}: a formula that is not MathML"
        raw = RAW.findall(visible_text(CITATION.sub(" ", page)))
        assert not raw, f"{chapter.docname}: raw TeX or MyST shows: {raw[:5]}"
        if formulas:
            with_math += 1
            assert "mathml" in edition.manifest[f"{chapter.docname}.xhtml"].get("properties", "")
    assert with_math >= 5, f"only {with_math} chapters with math"


@pytest.mark.tex
def test_every_figure_is_an_image_inside_the_epub(edition, built_book):
    """As many images as the site shows, each an image file in the EPUB, and each of the site's
    HTML-only figures (the interactive ones) an image too."""
    for chapter in toc_chapters():
        site = article(site_page(edition.language, chapter.docname))
        figures = re.findall(r"<figure\b.*?</figure>", site, flags=re.S)
        expected = len(re.findall(r'<img\b[^>]*src="[^"]*_images/', site)) + sum(
            "<img" not in figure for figure in figures
        )
        sources = re.findall(r'<img\b[^>]*src="([^"]+)"', edition.page(chapter.docname))
        assert len(sources) >= expected, (
            f"{chapter.docname}: {len(sources)} images, the site shows {expected}"
        )
        for source in sources:
            name = posixpath.normpath(posixpath.join(posixpath.dirname(chapter.docname), source))
            assert name in edition.files, f"{chapter.docname}: {source} is not inside the EPUB"
            assert edition.manifest[name].get("media-type") in {"image/png", "image/svg+xml", "image/jpeg"}


@pytest.mark.tex
def test_no_page_runs_a_script_or_loads_from_the_web(edition):
    for name, page in edition.pages().items():
        assert "<script" not in page, f"{name} holds a script"
        remote = re.findall(r'<(?:img|link|source|video|audio)\b[^>]*\s(?:src|href)="(https?://[^"]*)"', page)
        assert not remote, f"{name} loads {remote[:3]} from the web"
    assert not [name for name in edition.files if name.endswith(".js")]


@pytest.mark.tex
def test_the_site_links_to_this_epub(edition, built_book):
    """Each edition's site links to its own EPUB, beside its PDF: the Chinese site to the Chinese EPUB."""
    site = SITES[edition.language]
    intro = (site / f"{ROOT_PAGE}.html").read_text(encoding="utf-8")
    assert f'href="{"../" * ROOT_PAGE.count("/")}{edition.path.name}"' in intro, (
        "the intro page links to the EPUB"
    )
    assert (site / edition.path.name).read_bytes() == edition.path.read_bytes(), (
        "the site carries this very EPUB"
    )
