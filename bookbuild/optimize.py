"""The written site, made lighter for a reader's browser: one ordered list of steps over a site
that Sphinx has written.

    python -m bookbuild.optimize SITE [--without STEP ...]

``bookbuild.build`` runs it over each edition's site (``_build/html``, and the Chinese edition's
before it is copied to ``_build/html/zh``) once ``jupyter-book build`` has written it. Nothing of
it runs inside Sphinx. Each step is a function of the site's folder, in ``STEPS``' order, and can
run again over a site it has changed: a page Sphinx did not write again is left as it is.

What a plain style sheet or a documented option does is done that way, not here: lazily drawn
sections are CSS (``_static/lazy-sections.css``, ``content-visibility``), and images are fetched
as a reader nears them through docutils' ``image_loading`` setting (``docutils.conf``).

Each step's docstring ends with what it gains, measured by ``python -m benchmarks.site_steps ab``:
three alternating pairs of Lighthouse audits (mobile, as ``benchmarks/lighthouse.py`` runs them)
of the site with every step and of the same site without that one, on the longest chapter of
each edition (six-steps); medians. Between audits of one site the score moved by up to 4 points
and the blocking time by about 30 ms. A step that gained nothing beyond that was taken out: the
images' width and height (no layout shift either way: the images are below the first screen and
fetched lazily).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from fontTools import subset

from _ext.npm_dependency import node_binary, npm_dependency
from _ext.written_site import loaded, own_files, pages, write_text_atomically
from bookbuild import ROOT

# --- The theme's files no page loads -----------------------------------------------------------

UNUSED_FILES = ("scripts/fontawesome.js", "scripts/fontawesome.js.LICENSE.txt", "**/*.map")  # under _static
UNUSED_FOLDERS = ("locales",)


def drop_unused_theme_files(site: Path) -> None:
    """Ship none of the theme's files that no page loads: its Font Awesome script (1.5 MB; the
    pages' template leaves it out, ``_ext/theme/lean_theme.py``), the source maps of its bundles,
    and the translation catalogs its templates read while the book is built.

    Gain: none in Lighthouse (no page asks for them); the English site, 11.1 MB with it, is 16.2 MB
    without it, over its 12 MB budget."""
    static = site / "_static"
    for pattern in UNUSED_FILES:
        for path in static.glob(pattern):
            path.unlink()
    for name in UNUSED_FOLDERS:
        shutil.rmtree(static / name, ignore_errors=True)


# --- Images no page shows any more ---------------------------------------------------------------

IMAGE = re.compile(r"""_images/([^"'?#\s)]+)""")


def drop_images_no_page_shows(site: Path) -> None:
    """Ship only the images a page shows: Sphinx copies a chapter's figures into ``_images`` each
    time it writes the chapter and never takes away those it no longer shows (a figure redrawn,
    a translation that changed), so a site built again and again grows.

    Gain: none in Lighthouse (no page asks for them); the Chinese site, built again after its
    figures' words changed, kept 23 images (1.14 MB) no page showed."""
    shown = loaded(site, IMAGE)
    for image in (site / "_images").glob("*"):
        if image.is_file() and image.name not in shown:
            image.unlink()


# --- Code blocks without the spans that change nothing -------------------------------------------

BLOCK = re.compile(r'(<div class="highlight"><pre>)(.*?)(</pre></div>)', re.S)
# pydata-sphinx-theme's pygments.css: each token class's rule in each colour theme, and the
# block's own (no class): `html[data-theme="dark"] .highlight .n { color: #F8F8F2 } /* Name */`.
TOKEN_RULE = re.compile(r'html\[data-theme="(\w+)"\] \.highlight(?: \.(\w+))? \{([^}]*)\}')


def plain_classes(css: str) -> frozenset[str]:
    """The token classes that ``css`` (the code colours) draws exactly like a block's plain text in
    every colour theme: a rule that gives the block's own colour and nothing else."""
    rules: dict[str, dict[str, str]] = {}
    for theme, token, declarations in TOKEN_RULE.findall(css):
        rules.setdefault(theme, {})[token] = " ".join(declarations.split())
    plain = None
    for by_class in rules.values():
        color = re.search(r"(?:^|; )(color: [^;]+)", by_class.get("", ""))
        same = {token for token, rule in by_class.items() if token and color and rule == color[1]}
        plain = same if plain is None else plain & same
    return frozenset(plain or ())


def quiet(html: str, classes: frozenset[str]) -> str:
    """``html`` with the spans of ``classes`` inside its code blocks replaced by their text."""
    if not classes:
        return html
    names = "|".join(map(re.escape, sorted(classes)))
    span = re.compile(rf'<span class="(?:{names})">([^<]*)</span>')
    return BLOCK.sub(lambda block: block[1] + span.sub(r"\1", block[2]) + block[3], html)


def quiet_tokens(site: Path) -> None:
    """Take out the spans of the code blocks' tokens that look like plain text. Pygments wraps
    every token in a span of its type's class; in both of the theme's code colours a name (``n``)
    or a punctuation mark (``p``) looks exactly like the block's text, yet those are more than half
    the spans of a chapter's code and a quarter of the elements of its page, each styled and laid
    out. Every other token keeps its class.

    Gain: 4,024 elements instead of 5,575; blocking time 60 ms instead of 112 ms, first
    contentful paint 1.29 s instead of 1.42 s; score 99 instead of 98."""
    colours = site / "_static" / "pygments.css"  # the theme writes it at every build
    classes = plain_classes(colours.read_text(encoding="utf-8")) if colours.is_file() else frozenset()
    for page in pages(site):
        html = page.read_text(encoding="utf-8")
        if (quieter := quiet(html, classes)) != html:
            write_text_atomically(page, quieter)


# --- One style sheet a page --------------------------------------------------------------------

LINK = re.compile(r'[ \t]*<link\b(?=[^>]*\brel="stylesheet")[^>]*>\n?')
HREF = re.compile(r'\bhref="([^"?#]+)')
IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?["']([^"']+)["']\s*\)?[^;]*;""")
URL = re.compile(r"""url\(\s*(["']?)([^)"']+)\1\s*\)""")
CHARSET = re.compile(r'@charset\s+"[^"]*";')
ABSOLUTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|/|#)", re.I)  # data:, https:, /root, #fragment
BUNDLE = re.compile(r"_static/(styles-[0-9a-f]{16}\.css)")
PARTS = re.compile(r"^/\* parts: (.*) \*/$", re.M)
UNTRIMMED = "/* every rule of its parts */\n"  # until trim_stylesheets has read it


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
    pieces, last = [], 0
    for found in IMPORT.finditer(css):
        pieces.append(URL.sub(rebase, css[last : found.start()]))
        pieces.append(inlined((path.parent / found[1]).resolve(), folder, read))
        last = found.end()
    pieces.append(URL.sub(rebase, css[last:]))
    return "".join(pieces)


def header(parts: list[str]) -> str:
    """A bundle's first lines: its charset and its parts."""
    return f'@charset "UTF-8";\n/* parts: {" ".join(parts)} */\n'


# The book's own style sheets (_static and its extensions' static folders): each rule in them is
# there for something a page or a script of the site draws, so trimming leaves them whole
# (PurgeCSS's "start ignore" comments); they also style what scripts name only in pieces (live
# code's output colours).
OWN_SHEETS = frozenset(
    path.name for pattern in ("_static/*.css", "_ext/**/*_static/*.css") for path in ROOT.glob(pattern)
)
KEEP = ("/* purgecss start ignore */\n", "\n/* purgecss end ignore */")


def write_bundle(static: Path, name: str, parts: list[str]) -> set[Path]:
    """Write the style sheets ``parts`` (paths under ``static``) as one, ``static/name``, the book's
    own marked to be kept whole; the files it holds."""
    read: set[Path] = set()
    sheets = [inlined((static / part).resolve(), static, read) for part in parts]
    keep = [KEEP if Path(part).name in OWN_SHEETS else ("", "") for part in parts]
    css = "\n".join(start + sheet + end for sheet, (start, end) in zip(sheets, keep, strict=True))
    write_text_atomically(static / name, header(parts) + UNTRIMMED + css)
    return read


def one_link(page: Path, static: Path) -> None:
    """Link ``page`` to one bundle of the style sheets under ``static`` it links, in their order, if
    it links two or more (a page changed so already links one)."""
    html = page.read_text(encoding="utf-8")
    end = html.find("</head>")
    head = html[:end]
    links, parts = [], []
    for link in LINK.findall(head):
        href = HREF.search(link)
        target = (page.parent / href[1]).resolve() if href else None
        if "media=" not in link and target and target.is_relative_to(static):
            links.append(link)
            parts.append(target.relative_to(static).as_posix())
    if len(links) < 2:
        return
    name = f"styles-{hashlib.sha256(' '.join(parts).encode()).hexdigest()[:16]}.css"
    href = Path(os.path.relpath(static / name, page.parent)).as_posix()
    head = head.replace(links[0], f'<link rel="stylesheet" href="{href}" />\n', 1)
    for link in links[1:]:
        head = head.replace(link, "", 1)
    write_text_atomically(page, head + html[end:])
    if not (static / name).is_file():  # its parts for now; they are read once every page links it
        write_text_atomically(static / name, header(parts))


def bundle_stylesheets(site: Path) -> None:
    """Give each page one style sheet where the theme and the extensions link sixteen: a phone on a
    slow connection draws nothing until every style sheet in a page's head has arrived, each a
    request of its own. The page's ``<link rel="stylesheet">`` tags become one, to a file that
    holds them all in the same order, ``_static/styles-<hash>.css``, named by the files it holds
    (every build of the same book names it alike; a host's caching rules, ten minutes on GitHub
    Pages, keep a changed one from being stale for long). Each ``@import`` is inlined and each
    relative ``url()`` rewritten for the file's new place.

    A bundle no page links to any more is removed, and so are the style sheets a bundle holds: no
    page loads them on their own, and a build that writes a page copies them in again (one that
    writes none copies no static file, and leaves its bundles as they were).

    Gain: first contentful paint 1.28 s instead of 2.25 s, largest 1.91 s instead of 2.40 s;
    229 kB downloaded instead of 277 kB; score 99 instead of 95."""
    static = (site / "_static").resolve()
    for page in pages(site):
        one_link(page, static)
    linked = loaded(site, BUNDLE)
    held: set[Path] = set()
    for path in static.glob("styles-*.css"):
        parts = PARTS.search(path.read_text(encoding="utf-8"))
        if path.name not in linked or not parts:  # made for pages since written with other sheets
            path.unlink()
            continue
        missing = [part for part in parts[1].split() if not (static / part).is_file()]
        if missing and len(path.read_text(encoding="utf-8")) > parts.end() + 1:
            continue  # a build that wrote no page copied no static file: the bundle is as it was
        if missing:
            raise RuntimeError(f"{path.name} cannot be written: {', '.join(missing)} missing from {static}")
        held |= write_bundle(static, path.name, parts[1].split())
    for path in held:
        path.unlink()


UNUSED_RULES = Path(__file__).with_name("unused_rules.js")


def trim_stylesheets(site: Path) -> None:
    """Write each bundle without the rules no page or script of the site can use (PurgeCSS, as
    ``package.json`` pins it, run by ``unused_rules.js``). The theme's style sheet carries all of
    Bootstrap, and sphinx-design's (which Jupyter Book adds) styles cards and tabs no chapter has.
    A rule stays when every class, id and element it names occurs in a page or a script, so the
    rules for what a script switches on (a menu, the dark mode, a folded solution) stay; the book's
    own style sheets are kept whole.

    Gain: 229 kB downloaded instead of 271 kB; first contentful paint 1.29 s instead of 1.58 s,
    largest 1.94 s instead of 2.11 s; score 99 instead of 98."""
    bundles = [
        path
        for path in (site / "_static").glob("styles-*.css")
        if UNTRIMMED in path.read_text(encoding="utf-8")
    ]
    if not bundles:
        return
    content = [
        str(path) for pattern in ("**/*.html", "**/*.js", "**/*.mjs") for path in own_files(site, pattern)
    ]
    command = [node_binary(), str(UNUSED_RULES), str(npm_dependency("purgecss")), *map(str, bundles)]
    result = subprocess.run(command, input=json.dumps(content), capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"unused style rules could not be removed: {result.stderr.strip()}")
    trimmed = json.loads(result.stdout)
    for bundle in bundles:
        before = bundle.stat().st_size
        write_text_atomically(bundle, trimmed[str(bundle)].replace(UNTRIMMED, "", 1))
        print(f"{bundle.name}: {before} -> {bundle.stat().st_size} bytes without unused rules")


# --- The theme's icons, cut to those the site shows ----------------------------------------------

FONTS = "vendor/fontawesome/webfonts/*.woff2"  # under _static
# Font Awesome's map from class to character: `.fa-rocket:before{content:"\f135"}`.
ICON_RULE = re.compile(r"((?:\.fa-[a-z0-9-]+:{1,2}before,?)+)\{content:\"([^\"]+)\"\}")
WHOLE_ICON_RULE = re.compile(rf"(?:^|(?<=[{{}}])){ICON_RULE.pattern}", re.M)
ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")
CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6}) ?")
PRIVATE_USE = re.compile("[\ue000-\uf8ff]")  # where Font Awesome keeps its icons


def characters(css_string: str) -> set[int]:
    """The code points a CSS string holds, its escapes (``\\f135``) read."""
    text = CSS_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), css_string)
    return {ord(c) for c in text}


def named_icons(texts: Iterable[str]) -> set[str]:
    """The ``fa-*`` classes that ``texts`` (pages and scripts) name."""
    return set().union(*(ICON_CLASS.findall(text) for text in texts))


def used_icons(css: str, named: set[str]) -> set[int]:
    """The icon code points that the classes ``named`` and the style sheets ``css`` can show."""
    by_class: dict[str, set[int]] = {}
    for selectors, content in ICON_RULE.findall(css):
        for name in ICON_CLASS.findall(selectors):
            by_class.setdefault(name, set()).update(characters(content))
    drawn = characters(ICON_RULE.sub("", css))  # what the style sheets draw outside the map
    icons = {c for c in drawn if PRIVATE_USE.match(chr(c))}
    return icons.union(*(by_class.get(name, set()) for name in named))


def named_rules(css: str, named: set[str]) -> str:
    """``css`` with the map's rules for the classes ``named`` alone (a rule keeps the selectors of
    those it names). Only a whole rule is changed: one that starts the sheet, a line or a block."""

    def kept(rule: re.Match) -> str:
        selectors = [s for s in rule[1].split(",") if ICON_CLASS.search(s)[0] in named]
        return f'{",".join(selectors)}{{content:"{rule[2]}"}}' if selectors else ""

    return WHOLE_ICON_RULE.sub(kept, css)


def cut(font: Path, code_points: set[int]) -> None:
    """Keep only ``code_points`` of the WOFF2 file ``font``, in place."""
    # fontTools reports every table it cuts at INFO, which a build prints once a package it loads
    # has set the root logger to INFO (accessible-pygments does, with the theme's code colours).
    logging.getLogger("fontTools.subset").setLevel(logging.WARNING)
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    font_file = subset.load_font(str(font), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=code_points)
    subsetter.subset(font_file)
    subset.save_font(font_file, str(font), options)


def cut_icons(site: Path) -> None:
    """Cut the theme's icon fonts, and its style sheet's icon rules, to the icons the site shows.
    The theme draws its icons with Font Awesome's web fonts, about 300 kB of WOFF2 that a first
    visit downloads before it can draw the header, for the two dozen icons the site uses; and its
    style sheet maps each of Font Awesome's 1,900 classes to its character, about 86 kB. The icons
    that can appear are every ``fa-*`` class a page or a script names, and every icon character
    the style sheets draw outside that map (the theme's admonition, link and dropdown icons). Each
    font keeps those characters under its own name, so the style sheet finds it as before; the
    TrueType copies beside the fonts are left whole (a browser that reads WOFF2 never fetches them).

    Gain: 229 kB downloaded instead of 382 kB; first contentful paint 1.30 s instead of 2.11 s,
    largest 1.96 s instead of 2.79 s; score 99 instead of 94."""
    static = site / "_static"
    sheets = {path: path.read_text(encoding="utf-8") for path in static.rglob("*.css")}
    named = named_icons(path.read_text(encoding="utf-8") for path in [*pages(site), *static.rglob("*.js")])
    icons = used_icons("\n".join(sheets.values()), named)
    for font in static.glob(FONTS):
        cut(font, icons)
    for path, css in sheets.items():
        if (kept := named_rules(css, named)) != css:
            write_text_atomically(path, kept)


# --- The stage ----------------------------------------------------------------------------------

# In order: the token spans go while the code colours are still a file of their own; the style
# sheets are trimmed once bundled, against every page as the earlier steps left it; the icons are
# cut from what the trimmed bundles still draw.
STEPS: tuple[Callable[[Path], None], ...] = (
    drop_unused_theme_files,
    drop_images_no_page_shows,
    quiet_tokens,
    bundle_stylesheets,
    trim_stylesheets,
    cut_icons,
)
NAMES = {step.__name__: step for step in STEPS}


def optimize(site: Path, without: Iterable[str] = ()) -> None:
    """Run every step of ``STEPS`` but those named in ``without`` over the written site ``site``."""
    unknown = set(without) - set(NAMES)
    if unknown:
        raise ValueError(f"no step named {', '.join(sorted(unknown))}: the steps are {', '.join(NAMES)}")
    if not (site / "_static").is_dir():
        raise FileNotFoundError(f"{site} is not a written site (no _static folder): build it first")
    for step in STEPS:
        if step.__name__ not in without:
            step(site)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a site Sphinx has written (its folder of HTML pages)")
    parser.add_argument("--without", nargs="*", default=[], choices=list(NAMES), help="steps to leave out")
    args = parser.parse_args(argv)
    try:
        optimize(args.site, args.without)
    except FileNotFoundError as err:
        parser.error(str(err))


if __name__ == "__main__":
    main(sys.argv[1:])
