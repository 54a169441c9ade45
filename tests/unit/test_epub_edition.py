"""The EPUB edition's extension (_ext/content/epub_edition.py): its pages' XHTML, the files it
packs, and a small book built with Sphinx's epub builder and KaTeX's MathML."""

from __future__ import annotations

import io
import zipfile

from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

from _ext.content.epub_edition import epub_body, used_files
from _ext.content.live_code import BUTTON_PLACE


def test_an_epub_page_has_no_script_and_only_what_xhtml_allows():
    body = (
        f"<h1>Title</h1>\n{BUTTON_PLACE}\n"
        '<details class="hide"><summary>\n<p class="collapsed">Show</p>\n<p>Hide</p>\n</summary>\n'
        "<p>code</p></details>\n"
        '<div id="exercise-content"><p id="a">one</p></div><div id="exercise-content">two</div>\n'
        '<script type="application/json" id="live-code-config">{"a": 1}</script>\n'
    )
    page = epub_body(body)
    assert "<script" not in page and BUTTON_PLACE not in page
    assert '<summary>\n<span class="collapsed">Show</span>\n<span>Hide</span>\n</summary>' in page
    assert "<p>code</p>" in page, "paragraphs outside a summary stay"
    assert page.count('id="exercise-content"') == 1 and "<div>two</div>" in page
    assert '<p id="a">one</p>' in page


def test_the_epub_holds_its_pages_and_what_they_use(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "_static").mkdir()
    (tmp_path / "_images").mkdir()
    (tmp_path / "book" / "a.xhtml").write_text(
        '<link rel="stylesheet" href="../_static/a.css" /><img src="../_images/x.png" />'
        '<a href="b.xhtml#s">b</a><a href="https://example.org/c.css">web</a><a href="#top">top</a>'
    )
    (tmp_path / "book" / "b.xhtml").write_text("<p>b</p>")
    (tmp_path / "_static" / "a.css").write_text('@font-face { src: url("fonts/f.woff2") }')
    (tmp_path / "_static" / "fonts").mkdir()
    for name in ("_static/fonts/f.woff2", "_images/x.png", "_static/unused.css", "favicon.ico"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "nav.xhtml").write_text('<a href="favicon.ico">not a page of the book</a>')
    assert used_files(tmp_path) == {
        "book/a.xhtml",
        "book/b.xhtml",
        "_static/a.css",
        "_static/fonts/f.woff2",
        "_images/x.png",
    }


def test_an_epub_build_has_mathml_declared_metadata_and_no_script(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        'extensions = ["_ext.content.katex_math", "_ext.content.epub_edition"]\n'
        'project = "Book"\nauthor = "Authors"\ncopyright = "2026"\nversion = "1.0"\nlanguage = "zh_CN"\n'
        'html_title = "A book"\nhtml_baseurl = "https://example.org/book/"\nepub_basename = "book"\n'
        'epub_uid = "book-id"\nhtml_js_files = ["site.js"]\n'
    )
    (source / "index.rst").write_text("Math\n====\n\nInline :math:`\\alpha^2`.\n\n.. math:: e^{i\\pi} = -1\n")
    out = tmp_path / "epub"
    warnings = io.StringIO()
    with docutils_namespace():  # the nodes and roles it registers, unregistered after: other tests build too
        Sphinx(source, source, out, tmp_path / "doctrees", "epub", status=None, warning=warnings).build()
    assert warnings.getvalue() == ""
    with zipfile.ZipFile(out / "book.epub") as epub:
        page = epub.read("index.xhtml").decode()
        opf = epub.read("content.opf").decode()
        ncx = epub.read("toc.ncx").decode()
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML"' in page and "katex-html" not in page
    assert 'href="index.xhtml" media-type="application/xhtml+xml" properties="mathml"' in opf
    assert "<script" not in page and 'lang="zh-CN" xml:lang="zh-CN"' in page
    assert "<dc:language>zh-CN</dc:language>" in opf and "<dc:title>A book</dc:title>" in opf
    identifier = "https://example.org/book/zh/book.epub"
    assert f'<dc:identifier id="book-id">{identifier}</dc:identifier>' in opf
    assert f'<meta name="dtb:uid" content="{identifier}"/>' in ncx, "toc.ncx names the same identifier"
