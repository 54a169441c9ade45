"""The Chinese edition's message catalogs: refresh them from the English, and check them.

    python -m bookbuild.catalogs update   # after `make translations` extracted the English messages
    python -m bookbuild.catalogs check    # every message translated, none fuzzy, markup kept
    python -m bookbuild.catalogs current  # every message of the English as it is now has its translation

``update`` merges the English messages that the gettext build extracted (``_build/messages``)
into ``locale/zh_CN/LC_MESSAGES/book/<chapter>.po``: a new English message arrives
untranslated, a changed one arrives fuzzy with the old translation as a start, and a removed
one is dropped. The build's image file names (figures are named by a hash of their pixels) are
not messages to translate and are left out; the images' alt texts are.

It also refreshes ``code/selfattn/locale/zh_CN.json``, the translations of what the package
writes for a reader: every text its Python passes to ``say("...")`` or marks with ``words("...")``
(``selfattn.language``), and every text its scripts pass to their lookup, ``phrase("...")`` (the
figures' labels, the live code's messages), each with its translation; a new text arrives
untranslated (empty) and a text the package no longer writes is dropped.

``current`` extracts the chapters' text as it is now, without executing the book
(``bookbuild.build.extract_prose``, half a minute), and fails on any of its messages that the
catalogs lack or have not translated: an English edit that ``make translations`` has not brought
into the catalogs yet, which the Chinese edition would show in English.

``check`` fails on any message that is untranslated or fuzzy, or whose translation lost or
added markup: roles ({glue:text}`name`, {cite}`key`; a link such as {ref}`text <label>` or
{term}`text <word>` may translate its text but keeps its target), inline code, math, links'
targets, a figure's ``{value:format}`` (filled in after translation); and on any of the package's
texts that is untranslated or whose translation lost or added a ``{field}`` filled in, or a
number.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from collections import Counter
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from bookbuild import MESSAGES, ROOT
from bookbuild.build import extract_prose
from selfattn.language import said, texts_file

LANGUAGE = "zh_CN"
TEMPLATES = MESSAGES / "_build" / "gettext" / "book"
CATALOGS = ROOT / "locale" / LANGUAGE / "LC_MESSAGES" / "book"
IMAGE_FILE = re.compile(r"^\.\. image:: ")
# The line of a catalog's header that dates the extraction: a catalog whose messages did not change
# keeps its own (update).
EXTRACTED = re.compile(rb'^"POT-Creation-Date: [^"]*\\n"\n', re.M)
# What to do about an English message the catalogs do not have yet.
FIX = (
    f"The Chinese edition would show these in English: run `make translations`, translate them in "
    f"{CATALOGS.relative_to(ROOT)}/, and check with `python -m bookbuild.catalogs check`."
)

# The site's scripts, and what they write: phrase("English {name}", values), the text one string
# literal or several joined by +.
SCRIPTS = (
    ROOT / "code" / "selfattn" / "figures" / "figures.js",
    ROOT / "_ext" / "content" / "live_code_static" / "live-code.js",
)
# The package's Python modules, and what they say: say("English {field}", ...) and words("...").
MODULES = tuple(sorted((ROOT / "code" / "selfattn").rglob("*.py")))
TRANSLATED_TEXTS = texts_file(LANGUAGE)
STRING = r'"(?:[^"\\\n]|\\.)*"'
PHRASE = re.compile(rf"\bphrase\(\s*({STRING}(?:\s*\+\s*{STRING})*)\s*[,)]")
CALL = re.compile(r"(?<!function )\bphrase\(")
PLACEHOLDER = re.compile(r"\{\w+(?:![rsa])?(?::[^{}]*)?\}")  # {name}, {name!r}, {name:.4f}
NUMBER = re.compile(r"\d+")

# A role: {name}`content`. A translation keeps each role: the whole of it, or for a link with its
# own text ({ref}`text <label>`, {term}`text <word>`, {doc}, {numref}) the name and the target.
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
LINKED = re.compile(r"[^<]*<([^>]+)>$")
# The links to the site's downloadable editions (_ext/content/downloads.py) have no target to keep.
DOWNLOAD_ROLES = {"pdf-edition", "epub-edition"}
TEXT_MAY_CHANGE = {"ref", "term", "doc", "numref", *DOWNLOAD_ROLES}
# Besides roles: inline code, math and a link's target stay as they are.
KEPT = [
    re.compile(r"``[^`].*?``|`[^`]+`"),  # inline code, in single or double backticks
    re.compile(r"\$\$.*?\$\$|\$[^$]+\$"),  # math
    re.compile(r"\]\([^)]*\)"),  # a link's target
    re.compile(r"\{\w+(?:![rsa])?(?::[^{}`]*)?\}"),  # a figure's value, filled in after translation
]


def read(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def rendered(catalog: Catalog) -> bytes:
    """``catalog`` as its ``.po`` file holds it."""
    po = io.BytesIO()
    write_po(po, catalog, width=100, omit_header=False, ignore_obsolete=True)
    return po.getvalue()


def write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(rendered(catalog))


def source(location: str, output: Path, root: Path = ROOT) -> str:
    """A message's source file, from the book's ``root`` (Sphinx writes it from ``output``)."""
    return (output / location).resolve().relative_to(root.resolve()).as_posix()


def update(templates: Path = TEMPLATES, catalogs: Path = CATALOGS) -> list[Path]:
    """Merge each chapter's extracted English messages into its catalog; return the catalogs that
    changed. One whose messages are as they were is left as it was, extraction date and all."""
    changed = []
    for template_path in sorted(templates.glob("*.pot")):
        english = template(template_path)
        for message in english:
            message.flags.discard("python-format")  # "90% is" is prose, not a format string
        path = catalogs / f"{template_path.stem}.po"
        catalog = read(path) if path.is_file() else Catalog(locale=LANGUAGE)
        catalog.update(english, update_header_comment=False)
        was = path.read_bytes() if path.is_file() else b""
        if EXTRACTED.sub(b"", rendered(catalog)) != EXTRACTED.sub(b"", was):
            write(catalog, path)
            changed.append(path)
    return changed


def template(template_path: Path, root: Path = ROOT) -> Catalog:
    """An extracted template: its messages to translate (not the images' file names), with their
    locations from the book's ``root``."""
    catalog = read(template_path)
    for message in list(catalog):
        if message.id and IMAGE_FILE.match(message.id):
            catalog.delete(message.id)
        else:
            output = template_path.parent.parent
            message.locations = [(source(file, output, root), line) for file, line in message.locations]
    return catalog


def untranslated(templates: Path, catalogs: Path = CATALOGS, root: Path = ROOT) -> list[str]:
    """The messages extracted into ``templates`` from the book at ``root`` that the catalogs lack,
    leave untranslated or mark fuzzy, one line each: where the English is, and its start."""
    found = []
    for template_path in sorted(templates.glob("*.pot")):
        path = catalogs / f"{template_path.stem}.po"
        catalog = read(path) if path.is_file() else Catalog(locale=LANGUAGE)
        for message in template(template_path, root):
            if not message.id:
                continue
            translated = catalog.get(message.id)
            if translated is None or not translated.string or translated.fuzzy:
                file, line = message.locations[0]
                found.append(f"{file}:{line}: not translated in {path.name}: {message.id[:70]!r}")
    return found


def package_texts(scripts: tuple[Path, ...] = SCRIPTS, modules: tuple[Path, ...] = MODULES) -> list[str]:
    """Every text the package's scripts pass to ``phrase`` and its modules to ``say`` or ``words``,
    each once, in the order they appear."""
    texts = []
    for path in scripts:
        for match in PHRASE.finditer(path.read_text(encoding="utf-8")):
            texts.append("".join(json.loads(part) for part in re.findall(STRING, match.group(1))))
    for path in modules:
        texts += said(path.read_text(encoding="utf-8"))
    return list(dict.fromkeys(texts))


def read_package_texts(path: Path = TRANSLATED_TEXTS) -> dict[str, str]:
    """The package's texts and their translations, as ``path`` holds them (none if it is missing)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def update_package_texts(path: Path = TRANSLATED_TEXTS) -> None:
    """Refresh ``path`` from the package: its texts, in order, each with its translation so far."""
    known = read_package_texts(path)
    texts = {text: known.get(text, "") for text in package_texts()}
    path.write_text(json.dumps(texts, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def package_text_problems(
    scripts: tuple[Path, ...] = SCRIPTS, path: Path = TRANSLATED_TEXTS, modules: tuple[Path, ...] = MODULES
) -> list[str]:
    """What keeps the translations of the package's texts from being complete, one line each."""
    found = []
    for script in scripts:
        source = script.read_text(encoding="utf-8")
        if len(CALL.findall(source)) != len(PHRASE.findall(source)):
            found.append(f"{script.name}: a phrase() whose text is not a string literal")
    texts, known = package_texts(scripts, modules), read_package_texts(path)
    for text in texts:
        translation = known.get(text)
        if not translation:
            found.append(f"{path.name}: untranslated: {text[:80]!r}")
        elif any(sorted(p.findall(text)) != sorted(p.findall(translation)) for p in (PLACEHOLDER, NUMBER)):
            found.append(
                f"{path.name}: the {{fields}} or numbers differ: {text[:50]!r} -> {translation[:50]!r}"
            )
    found += [
        f"{path.name}: the package no longer writes {text[:80]!r}" for text in known if text not in texts
    ]
    return found


def markup(text: str) -> Counter:
    """The pieces of ``text`` a translation must keep."""
    found = Counter()
    for name, content in ROLE.findall(text):
        linked = LINKED.match(content)
        if name in TEXT_MAY_CHANGE:
            found[f"{{{name}}} {linked.group(1) if linked else content}"] += name not in DOWNLOAD_ROLES
        else:
            found[f"{{{name}}}`{content}`"] += 1
    rest = ROLE.sub(" ", text)
    found.update(piece for pattern in KEPT for piece in pattern.findall(rest))
    return +found


def problems(path: Path) -> list[str]:
    """What keeps a catalog from being complete, one line each."""
    found = []
    for message in read(path):
        if not message.id:
            continue
        where = f"{path.name}:{message.lineno}"
        if not message.string:
            found.append(f"{where}: untranslated: {message.id[:80]!r}")
        elif message.fuzzy:
            found.append(f"{where}: fuzzy: {message.id[:80]!r}")
        elif markup(message.id) != markup(message.string):
            lost = sorted(markup(message.id) - markup(message.string))
            added = sorted(markup(message.string) - markup(message.id))
            found.append(f"{where}: markup changed: lost {lost}, added {added}")
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bookbuild.catalogs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("update", help="merge the extracted English messages into the catalogs")
    check = commands.add_parser("check", help="every message translated, none fuzzy, markup kept")
    check.add_argument("catalogs", nargs="*", type=Path, help="the .po files (default: all)")
    commands.add_parser("current", help="every message of the English as it is now translated")
    args = parser.parse_args(argv)
    if args.command == "update":
        print(f"{len(update())} catalogs changed in {CATALOGS.relative_to(ROOT)}")
        update_package_texts()
        print(f"{TRANSLATED_TEXTS.relative_to(ROOT)} updated from the package")
        return 0
    if args.command == "current":
        found = untranslated(extract_prose())
        print("\n".join([*found, FIX]) if found else "every message of the English text has its translation")
        return 1 if found else 0
    paths = args.catalogs or sorted(CATALOGS.glob("*.po"))
    found = [line for path in paths for line in problems(path)] + package_text_problems()
    done = f"{len(paths)} catalogs and the package's texts: every message translated, markup kept"
    print("\n".join(found) if found else done)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
