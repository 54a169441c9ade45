"""One style sheet for each page, where the theme and the extensions link sixteen.

A phone on a slow connection draws nothing until every style sheet in a page's head has arrived,
and each one is a request of its own. So the ``<link rel="stylesheet">`` tags that the theme's
template writes into a page's head are replaced by one, to a file that holds them all in the
same order, ``_static/styles-<hash>.css``, named by the files it holds (so every build of the same
book names it alike; a host's caching rules, ten minutes on GitHub Pages, keep a changed one from
being stale for long). Each ``@import`` is inlined and each relative ``url()`` rewritten for the
file's new place.

The page's template asks for the link through the function this puts in every page's context
(``html-page-context``): ``lean_theme_templates/layout.html``. The bundle is named then, in a
file that lists its parts. Once the site is written (``build-finished``), every bundle a page
links to is written from its parts: after the handlers that still copy or change style sheets
then (sphinx-exercise copies its own; the theme writes its code colours into ``pygments.css``).
A bundle no page links to any more is removed, and so are the style sheets a bundle holds: no
page loads them on their own, and every build that writes a page copies them in again (a build
that writes none copies no static file, and leaves its bundles as they were).

Most of what the parts hold no page uses: the theme's style sheet carries all of Bootstrap, and
sphinx-design's (Jupyter Book adds the extension) styles cards and tabs no chapter has. A bundle
is written without the rules no page or script of the site can use (PurgeCSS, as ``package.json``
pins it, run by ``unused_rules.js``), so a phone fetches and reads far less before it draws the
page. A rule stays when every class, id and element it names occurs in a page or a script, so
the rules for what a script switches on (a menu, the dark mode, a folded solution) stay; the
book's own style sheets are kept whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

from _ext.katex_math import node_binary
from _ext.npm_dependency import npm_dependency
from _ext.written_site import loaded, write_atomically

logger = logging.getLogger(__name__)

LINK = re.compile(r'[ \t]*<link\b(?=[^>]*\brel="stylesheet")[^>]*>\n?')
HREF = re.compile(r'\bhref="([^"?#]+)')
IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?["']([^"']+)["']\s*\)?[^;]*;""")
URL = re.compile(r"""url\(\s*(["']?)([^)"']+)\1\s*\)""")
CHARSET = re.compile(r'@charset\s+"[^"]*";')
ABSOLUTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|/|#)", re.I)  # data:, https:, /root, #fragment


def inlined(path: Path, folder: Path, read: set[Path] | None = None) -> str:
    """The style sheet at ``path``, its imports inlined and its relative URLs relative to ``folder``;
    each file read is added to ``read``."""
    if read is not None:
        read.add(path)

    def rebase(found: re.Match) -> str:
        url = found[2]
        if ABSOLUTE.match(url):
            return found[0]
        moved = Path(os.path.relpath(path.parent / url, folder)).as_posix()
        return f"url({found[1]}{moved}{found[1]})"  # quoted as the sheet quoted it

    css = CHARSET.sub("", path.read_text(encoding="utf-8"))
    parts, last = [], 0
    for found in IMPORT.finditer(css):
        parts.append(URL.sub(rebase, css[last : found.start()]))
        parts.append(inlined((path.parent / found[1]).resolve(), folder, read))
        last = found.end()
    parts.append(URL.sub(rebase, css[last:]))
    return "".join(parts)


BUNDLE = re.compile(r"_static/(styles-[0-9a-f]{16}\.css)")
PARTS = re.compile(r"^/\* parts: (.*) \*/$", re.M)


def header(parts: list[str]) -> str:
    """A bundle's first lines: its charset and its parts."""
    return f'@charset "UTF-8";\n/* parts: {" ".join(parts)} */\n'


# The book's own style sheets (its extensions' static folders): each rule in them is there for
# something a page or a script of the site draws, so PurgeCSS leaves them whole (its "start
# ignore" comments); they also style what scripts name only in pieces (live code's output colours).
OWN_SHEETS = frozenset(path.name for path in Path(__file__).parent.glob("*_static/*.css"))
KEEP = ("/* purgecss start ignore */\n", "\n/* purgecss end ignore */")


def write_bundle(static: Path, name: str, parts: list[str]) -> set[Path]:
    """Write the style sheets ``parts`` (paths under ``static``) as one, ``static/name``, the book's
    own marked to be kept whole; the files it holds."""
    read: set[Path] = set()
    sheets = [inlined((static / part).resolve(), static, read) for part in parts]
    keep = [KEEP if Path(part).name in OWN_SHEETS else ("", "") for part in parts]
    css = "\n".join(start + sheet + end for sheet, (start, end) in zip(sheets, keep, strict=True))
    write_atomically(static / name, header(parts) + css)
    return read


UNUSED_RULES = Path(__file__).with_name("unused_rules.js")


def drop_unused_rules(site: Path, bundles: list[Path]) -> None:
    """Rewrite ``bundles`` without the rules that no page or script in ``site`` can use."""
    purgecss = npm_dependency("purgecss")
    command = [node_binary(), str(UNUSED_RULES), str(purgecss), str(site), *map(str, bundles)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"unused style rules could not be removed: {result.stderr.strip()}")
    trimmed = json.loads(result.stdout)
    for bundle in bundles:
        before = bundle.stat().st_size
        write_atomically(bundle, trimmed[str(bundle)])
        logger.info(f"{bundle.name}: {before} -> {bundle.stat().st_size} bytes")


def one_stylesheet(app: Sphinx, pagename: str, pathto: Callable[..., str], head: str) -> str:
    """``head`` with its style sheets' links replaced by one link to their bundle."""
    links = [link for link in LINK.findall(head) if "media=" not in link]
    if len(links) < 2:
        return head
    static = Path(app.outdir, "_static").resolve()
    page_folder = Path(app.outdir, pagename).parent
    parts = [(page_folder / HREF.search(link)[1]).resolve().relative_to(static).as_posix() for link in links]
    name = f"styles-{hashlib.sha256(' '.join(parts).encode()).hexdigest()[:16]}.css"
    if not (static / name).is_file():  # its parts for now; they are read once the site is written
        write_atomically(static / name, header(parts))
    head = head.replace(links[0], f'<link rel="stylesheet" href="{pathto(f"_static/{name}", 1)}" />\n', 1)
    for link in links[1:]:
        head = head.replace(link, "", 1)
    return head


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.builder.format == "html" and "pathto" in context:
        context["one_stylesheet"] = partial(one_stylesheet, app, pagename, context["pathto"])


def _write_bundles(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = (out / "_static").resolve()
    linked = loaded(out, BUNDLE)
    held: set[Path] = set()
    written = []
    for path in static.glob("styles-*.css"):
        parts = PARTS.search(path.read_text(encoding="utf-8"))
        if path.name not in linked or not parts:  # made for pages since written with other sheets
            path.unlink()
            continue
        missing = [part for part in parts[1].split() if not (static / part).is_file()]
        if missing and len(path.read_text(encoding="utf-8")) > parts.end() + 1:
            continue  # a build that wrote no page copied no static file: the bundle is as it was
        if missing:
            logger.warning(f"{path.name} cannot be written: {', '.join(missing)} missing from _static")
            continue
        held |= write_bundle(static, path.name, parts[1].split())
        written.append(path)
    if written:
        drop_unused_rules(out, written)
    for path in held:  # no page loads them on their own; a build that writes a page copies them again
        path.unlink()


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _write_bundles, priority=900)  # after the handlers that change CSS
    return {"parallel_read_safe": True, "parallel_write_safe": True}
