"""The site's optimization (``bookbuild/optimize.py``): one style sheet a page that reads as the
sixteen did, trimmed; code blocks without the spans that look like plain text; and a stage that
can run again over a site it changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bookbuild.optimize import (
    LINK,
    PARTS,
    UNTRIMMED,
    bundle_stylesheets,
    drop_images_no_page_shows,
    inlined,
    main,
    optimize,
    plain_classes,
    quiet,
    trim_stylesheets,
    write_bundle,
)


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
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "page.html").write_text(
        f'<html><head>\n{HEAD}\n</head><body><p class="a k">text</p>'
    )
    (tmp_path / "index.html").write_text(f"<html><head>\n{HEAD.replace('../', '')}\n</head><body></body>")
    (static / "styles-0123456789abcdef.css").write_text("/* parts: basic.css */")  # linked by no page
    bundle_stylesheets(tmp_path)
    (name,) = [p.name for p in static.glob("styles-*.css")]
    head = (tmp_path / "book" / "page.html").read_text()
    assert head.endswith('\n</head><body><p class="a k">text</p>') and head.count("</head>") == 1, head
    links = LINK.findall(head)
    assert len(links) == 2 and 'media="print"' in links[1], "a print-only sheet keeps its own link"
    assert 'rel="preload"' in head, "links that are not style sheets stay"
    assert f'href="../_static/{name}"' in links[0]
    assert f'href="_static/{name}"' in (tmp_path / "index.html").read_text(), "a page in another folder too"
    bundle = (static / name).read_text()
    assert PARTS.search(bundle)[1].split() == ["styles/theme.css", "katex/katex.min.css"]
    assert bundle.startswith('@charset "UTF-8";\n')
    assert bundle.index("p { margin: 0 }") < bundle.index(".a {") < bundle.index("@font-face")
    assert [p.name for p in static.rglob("*.css")] == [name], (
        "a bundle no page links is removed, and the sheets a bundle holds are not shipped twice"
    )


def test_a_bundle_keeps_only_the_rules_a_page_or_a_script_can_use(tmp_path):
    static = tmp_path / "_static"
    static.mkdir()
    (static / "basic.css").write_text(
        "p { margin: 0 }\n.shown { color: red }\n.switched-on { color: blue }\n"
        ".no-page-has-it { color: green }\n@media print { .shown { color: black } }\n"
    )
    (static / "live-code.css").write_text(".ansi-red-fg { color: red }\n")  # the book's own sheet
    write_bundle(static, "styles-0123456789abcdef.css", ["basic.css", "live-code.css"])
    (tmp_path / "page.html").write_text(
        '<link rel="stylesheet" href="_static/styles-0123456789abcdef.css" /><p class="shown">text</p>'
    )
    (static / "menu.js").write_text('document.body.classList.add("switched-on");\n')
    (tmp_path / "zh" / "_static").mkdir(parents=True)  # another edition, with a site of its own
    (tmp_path / "zh" / "page.html").write_text('<p class="no-page-has-it">文字</p>')
    trim_stylesheets(tmp_path)
    bundle = (static / "styles-0123456789abcdef.css").read_text()
    assert PARTS.search(bundle)[1] == "basic.css live-code.css", "the bundle still names its parts"
    for kept in ("p { margin: 0 }", ".shown { color: red }", ".switched-on", "@media print { .shown"):
        assert kept in bundle, f"{kept!r} is used by the page or its script"
    assert ".no-page-has-it" not in bundle, "only this edition's pages count"
    assert ".ansi-red-fg { color: red }" in bundle, "the book's own style sheets are kept whole"
    assert "purgecss" not in bundle and UNTRIMMED not in bundle, "the marks that keep them are gone"
    trim_stylesheets(tmp_path)
    assert (static / "styles-0123456789abcdef.css").read_text() == bundle, "a trimmed bundle is trimmed once"


def test_a_bundle_is_written_again_from_its_parts(tmp_path):
    static = site(tmp_path)
    write_bundle(static, "styles-0123456789abcdef.css", ["basic.css"])
    (static / "basic.css").write_text("p { margin: 1px }\n")
    write_bundle(static, "styles-0123456789abcdef.css", ["basic.css"])
    assert "margin: 1px" in (static / "styles-0123456789abcdef.css").read_text()


# pydata-sphinx-theme's pygments.css, as it writes the code colours of its two default styles
COLOURS = """html[data-theme="light"] .highlight { background: #fefefe; color: #080808 }
html[data-theme="light"] .highlight .n { color: #080808 } /* Name */
html[data-theme="light"] .highlight .o { color: #00622F } /* Operator */
html[data-theme="light"] .highlight .p { color: #080808 } /* Punctuation */
html[data-theme="light"] .highlight .nb { color: #7F4707 } /* Name.Builtin */
html[data-theme="light"] .highlight .w { color: #080808 } /* Text.Whitespace */
html[data-theme="light"] .highlight .gh { color: #080808; font-weight: bold } /* Generic.Heading */
html[data-theme="light"] .highlight .x { color: #080808 } /* Other */
html[data-theme="dark"] .highlight { background: #2b2b2b; color: #F8F8F2 }
html[data-theme="dark"] .highlight .n { color: #F8F8F2 } /* Name */
html[data-theme="dark"] .highlight .o { color: #ABE338 } /* Operator */
html[data-theme="dark"] .highlight .p { color: #F8F8F2 } /* Punctuation */
html[data-theme="dark"] .highlight .nb { color: #FFD900 } /* Name.Builtin */
html[data-theme="dark"] .highlight .w { color: #F8F8F2 } /* Text.Whitespace */
html[data-theme="dark"] .highlight .gh { color: #F8F8F2; font-weight: bold } /* Generic.Heading */
html[data-theme="dark"] .highlight .x { color: #FFD900 } /* Other */
"""
CODE = (
    '<p><span class="n">not code</span></p><div class="highlight"><pre><span></span>'
    '<span class="n">wei</span> <span class="o">=</span> <span class="n">q</span> '
    '<span class="o">@</span> <span class="n">k</span><span class="o">.</span><span class="n">T</span>'
    '<span class="w">  </span><span class="c1"># (B, T, T)</span>\n'
    '<span class="k">return</span> <span class="nb">len</span><span class="p">(</span>'
    '<span class="s2">&quot;x&quot;</span><span class="p">)</span></pre></div>'
)


def test_a_token_drawn_like_plain_text_in_both_modes_loses_its_span_and_keeps_its_text():
    classes = plain_classes(COLOURS)
    assert classes == {"n", "p", "w"}, "not o, nb; not gh (bold), not x (plain in one mode only)"
    quieted = quiet(CODE, classes)
    assert '<pre><span></span><span class="o">' not in quieted  # the first name is plain text now
    assert 'wei <span class="o">=</span> q <span class="o">@</span> k<span class="o">.</span>T  ' in quieted
    assert '<span class="k">return</span> <span class="nb">len</span>(<span class="s2">' in quieted
    assert '<p><span class="n">not code</span></p>' in quieted  # outside code blocks: as it was
    assert quiet(CODE, frozenset()) == CODE


def test_the_stage_run_again_over_a_site_it_changed_changes_nothing(tmp_path):
    static = site(tmp_path)
    (static / "pygments.css").write_text(COLOURS)
    (tmp_path / "_images").mkdir()
    shutil.copy(Path(__file__).parents[2] / "assets" / "logo.png", tmp_path / "_images" / "logo.png")
    page = (
        f'<html><head>\n{HEAD.replace("../", "")}\n</head><body>{CODE}<img src="_images/logo.png" /></body>'
    )
    (tmp_path / "index.html").write_text(page)
    optimize(tmp_path)
    once = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    assert b'<span class="n">wei' not in once[tmp_path / "index.html"]
    optimize(tmp_path)
    assert {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()} == once


def test_the_stage_names_a_step_it_does_not_have_and_a_folder_that_is_not_a_site(tmp_path):
    with pytest.raises(ValueError, match="no step named trim_images: the steps are drop_unused_theme_files"):
        optimize(tmp_path, ["trim_images"])
    with pytest.raises(FileNotFoundError, match="not a written site"):
        optimize(tmp_path)


def test_the_command_says_in_one_line_what_is_not_a_site(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path)])
    assert stop.value.code == 2
    assert f"{tmp_path} is not a written site (no _static folder): build it first" in capsys.readouterr().err


def test_an_image_no_page_shows_any_more_is_not_shipped(tmp_path):
    (tmp_path / "_images").mkdir()
    for name in ("shown.png", "redrawn.png", "in-a-nested-edition.png"):
        (tmp_path / "_images" / name).write_bytes(b"png")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "bigram.html").write_text('<img alt="" src="../_images/shown.png" />')
    (tmp_path / "zh" / "_static").mkdir(parents=True)  # another edition's site inside this one
    (tmp_path / "zh" / "index.html").write_text('<img src="../_images/in-a-nested-edition.png">')
    drop_images_no_page_shows(tmp_path)
    assert [path.name for path in (tmp_path / "_images").iterdir()] == ["shown.png"]
