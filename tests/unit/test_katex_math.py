"""The site's math renderer (``_ext/content/katex_math.py``): KaTeX in one Node.js process, the pages' math
HTML as before, and a formula KaTeX rejects as a build warning naming it."""

from __future__ import annotations

import io

import pytest
from sphinx.application import Sphinx

from _ext.content.katex_math import KATEX_OPTIONS, KaTeX, KaTeXError


@pytest.fixture
def katex():
    renderer = KaTeX()
    yield renderer
    renderer.stop()


def render(katex: KaTeX, latex: str, display: bool = False) -> tuple[str, str | None]:
    return katex.render(latex, {**KATEX_OPTIONS, "displayMode": display})


def test_one_process_renders_every_formula_until_stopped(katex):
    html, error = render(katex, r"\frac{q \cdot k}{\sqrt{d}}")
    assert error is None and html.startswith('<span class="katex">') and "<math" in html
    process = katex._process
    for n in range(20):
        html, error = render(katex, rf"\sum_{{i=1}}^{{{n}}} x_i", display=True)
        assert error is None and html.startswith('<span class="katex-display">')
    assert katex._process is process, "one process, not one per formula"
    katex.stop()
    assert process.returncode == 0, "it ends when its input closes"


def test_a_formula_katex_rejects_comes_back_with_katexs_message(katex):
    html, error = render(katex, r"\foo{x}")
    assert "Undefined control sequence: \\foo" in error and "\\foo" in html
    html, error = render(katex, r"\frac{1}{")
    assert "Unexpected end of input" in error and 'class="katex-error"' in html
    _, error = render(katex, "é")  # loose input, rendered only with strict off
    assert "strict mode is set to 'error'" in error


def test_a_process_that_ends_is_an_error_naming_the_formula(katex):
    render(katex, "x")
    katex._process.kill()
    ended = r"Node\.js process ended \(exit status -9\) while rendering \$y\^2\$"
    with pytest.raises(KaTeXError, match=ended):
        render(katex, "y^2")
    assert render(katex, "z")[1] is None, "the next formula starts a new process"


def test_an_html_build_has_katexs_markup_its_style_sheets_and_a_warning_per_bad_formula(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        'extensions = ["_ext.content.katex_math"]\nnumfig = True\nhtml_theme = "basic"\n'
    )
    (source / "index.rst").write_text(
        "Math\n====\n\nInline :math:`\\alpha^2`.\n\n"
        ".. math:: e^{i\\pi} + 1 = 0\n   :label: euler\n\n"
        "Unknown :math:`\\foo`.\n"
    )
    warnings = io.StringIO()
    out = tmp_path / "html"
    app = Sphinx(source, source, out, tmp_path / "doctrees", "html", status=None, warning=warnings)
    app.build()
    page = (out / "index.html").read_text(encoding="utf-8")
    assert '<span class="math"><span class="katex">' in page
    assert (
        '<div class="math" id="equation-euler">\n<span class="eqno">(1)<a class="headerlink" '
        'href="#equation-euler" title="Permalink to this equation">¶</a></span>'
        '<span class="katex-display"><span class="katex">'
    ) in page
    assert 'href="_static/katex/katex.min.css' in page and 'href="_static/katex-math.css' in page
    static = out / "_static"
    assert list((static / "katex" / "fonts").glob("*.woff2"))
    assert not list((static / "katex" / "fonts").glob("*.ttf")), "WOFF2 only"
    assert "mathjax" not in page.lower(), "no math script"
    assert warnings.getvalue().count("WARNING") == 1
    assert "index.rst:9: WARNING: KaTeX cannot render $\\foo$: KaTeX parse error" in warnings.getvalue()
