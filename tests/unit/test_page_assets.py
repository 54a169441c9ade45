"""What a page's head and body ask a browser for: one style sheet that reads as the sixteen did,
images fetched lazily with their size known, and code blocks without the spans that look like
plain text (``_ext/one_stylesheet.py``, ``_ext/web_images.py``, ``_ext/quiet_tokens.py``)."""

from __future__ import annotations

from pathlib import Path

from _ext.one_stylesheet import LINK, PARTS, _write_bundles, header, inlined, one_stylesheet, write_bundle
from _ext.quiet_tokens import plain_classes, quiet
from _ext.web_images import lazy


class Builder:
    format = "html"


class App:
    """What the style-sheet extension reads of a Sphinx application: its output folder and builder."""

    def __init__(self, outdir: Path) -> None:
        self.outdir = str(outdir)
        self.builder = Builder()


def site(tmp_path: Path) -> Path:
    """A built site's style sheets: one imports another, and each names a font or an image."""
    static = tmp_path / "_static"
    (static / "styles").mkdir(parents=True)
    (static / "katex" / "fonts").mkdir(parents=True)
    (static / "basic.css").write_text("p { margin: 0 }\n")
    (static / "styles" / "theme.css").write_text(
        '@import "../basic.css";\n.a { background: url(../img/a.png) }\n'
    )
    (static / "katex" / "katex.min.css").write_text(
        '@charset "UTF-8";@font-face{src:url(fonts/KaTeX_Main.woff2)}'
        '.k{background:url("data:image/png;base64,x")}'
    )
    return static


HEAD = """  <link href="../_static/styles/theme.css?digest=1" rel="stylesheet" />
    <link rel="stylesheet" type="text/css" href="../_static/katex/katex.min.css?v=2" />
    <link rel="stylesheet" type="text/css" href="../_static/print.css" media="print" />
  <link rel="preload" as="script" href="../_static/scripts/bootstrap.js" />"""


def test_imports_are_inlined_and_urls_follow_the_files_to_their_new_place(tmp_path):
    static = site(tmp_path)
    css = inlined(static / "styles" / "theme.css", static)
    assert css.index("p { margin: 0 }") < css.index(".a {"), "the import sits where it was"
    assert "url(img/a.png)" in css and "@import" not in css
    katex = inlined(static / "katex" / "katex.min.css", static)
    assert "url(katex/fonts/KaTeX_Main.woff2)" in katex
    assert 'url("data:image/png;base64,x")' in katex, "a data URL is left as it is"
    assert "@charset" not in katex, "only the bundle's first line may say its charset"


def test_a_page_links_one_style_sheet_that_holds_the_others_in_order(tmp_path):
    static = site(tmp_path)
    head = one_stylesheet(App(tmp_path), "book/page", lambda path, resource: f"../{path}", HEAD)
    links = LINK.findall(head)
    assert len(links) == 2 and 'media="print"' in links[1], "a print-only sheet keeps its own link"
    assert 'rel="preload"' in head, "links that are not style sheets stay"
    (name,) = [p.name for p in static.glob("styles-*.css")]
    assert f'href="../_static/{name}"' in links[0]
    assert PARTS.search((static / name).read_text())[1].split() == ["styles/theme.css", "katex/katex.min.css"]
    again = one_stylesheet(App(tmp_path), "index", lambda path, resource: path, HEAD.replace("../", ""))
    assert f'href="_static/{name}"' in again, "a page in another folder links the same bundle"

    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "page.html").write_text(f'{head}<p class="a k">text</p>')
    (static / "styles-0123456789abcdef.css").write_text("/* parts: basic.css */")  # linked by no page
    _write_bundles(App(tmp_path), None)  # the site is written
    bundle = (static / name).read_text()
    assert bundle.startswith('@charset "UTF-8";\n')
    assert bundle.index("p { margin: 0 }") < bundle.index(".a {") < bundle.index("@font-face")
    assert [p.name for p in static.glob("styles-*.css")] == [name], "a bundle no page links is removed"
    assert not list(static.rglob("*.css"))[1:], "the sheets it holds are not shipped twice"


def test_a_bundle_keeps_only_the_rules_a_page_or_a_script_can_use(tmp_path):
    static = tmp_path / "_static"
    static.mkdir()
    (static / "basic.css").write_text(
        "p { margin: 0 }\n.shown { color: red }\n.switched-on { color: blue }\n"
        ".no-page-has-it { color: green }\n@media print { .shown { color: black } }\n"
    )
    (static / "live-code.css").write_text(".ansi-red-fg { color: red }\n")  # the book's own sheet
    (static / "styles-0123456789abcdef.css").write_text(header(["basic.css", "live-code.css"]))
    (tmp_path / "page.html").write_text(
        '<link rel="stylesheet" href="_static/styles-0123456789abcdef.css" /><p class="shown">text</p>'
    )
    (static / "menu.js").write_text('document.body.classList.add("switched-on");\n')
    _write_bundles(App(tmp_path), None)
    bundle = (static / "styles-0123456789abcdef.css").read_text()
    assert PARTS.search(bundle)[1] == "basic.css live-code.css", "the bundle still names its parts"
    for kept in ("p { margin: 0 }", ".shown { color: red }", ".switched-on", "@media print { .shown"):
        assert kept in bundle, f"{kept!r} is used by the page or its script"
    assert ".no-page-has-it" not in bundle
    assert ".ansi-red-fg { color: red }" in bundle, "the book's own style sheets are kept whole"
    assert "purgecss" not in bundle, "the marks that keep them are gone"


def test_a_bundle_is_written_again_from_its_parts(tmp_path):
    static = site(tmp_path)
    write_bundle(static, "styles-0123456789abcdef.css", ["basic.css"])
    (static / "basic.css").write_text("p { margin: 1px }\n")
    write_bundle(static, "styles-0123456789abcdef.css", ["basic.css"])
    assert "margin: 1px" in (static / "styles-0123456789abcdef.css").read_text()


def test_the_books_images_load_lazily_with_their_size():
    body = (
        '<img alt="Four heatmaps" src="../_images/a1.png" />'
        '<img src="../_static/logo.png" alt="logo" />'
        '<img alt="x" loading="eager" src="../_images/b2.png" />'
    )
    marked = lazy(body, {"a1.png": (640, 480)})
    sized = 'loading="lazy" width="640" height="480" src="../_images/a1.png"'
    assert f'<img alt="Four heatmaps" {sized}' in marked
    assert '<img src="../_static/logo.png" alt="logo" />' in marked, "only the chapters' images"
    assert '<img alt="x" loading="eager" src="../_images/b2.png"' in marked, "a loading set already stays"


THEME_STYLES = ("a11y-high-contrast-light", "a11y-high-contrast-dark")  # the theme's code styles
CODE = (
    '<p><span class="n">not code</span></p><div class="highlight"><pre><span></span>'
    '<span class="n">wei</span> <span class="o">=</span> <span class="n">q</span> '
    '<span class="o">@</span> <span class="n">k</span><span class="o">.</span><span class="n">T</span>'
    '<span class="w">  </span><span class="c1"># (B, T, T)</span>\n'
    '<span class="k">return</span> <span class="nb">len</span><span class="p">(</span>'
    '<span class="s2">&quot;x&quot;</span><span class="p">)</span></pre></div>'
)


def test_a_token_drawn_like_plain_text_in_both_modes_loses_its_span_and_keeps_its_text():
    classes = plain_classes(THEME_STYLES)
    assert {"n", "p", "w"} <= classes and not {"k", "o", "nb", "c1", "s2"} & classes
    quieted = quiet(CODE, classes)
    assert '<pre><span></span><span class="o">' not in quieted  # the first name is plain text now
    assert 'wei <span class="o">=</span> q <span class="o">@</span> k<span class="o">.</span>T  ' in quieted
    assert '<span class="k">return</span> <span class="nb">len</span>(<span class="s2">' in quieted
    assert '<p><span class="n">not code</span></p>' in quieted  # outside code blocks: as it was
    assert quiet(CODE, frozenset()) == CODE
