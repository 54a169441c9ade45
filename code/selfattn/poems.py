"""The Tang poems of the chinese-poetry collection (MIT licence), as the book's models read them.

The source is the npm package chinese-poetry 2.0.1: its ``dist/quantangshi/poet.tang.*.json``,
58 files of 57,607 poems in traditional characters. They come from the package's tarball on the
npm registry (85 MB, checked by SHA-256, fetched once into the download cache), or, with
``SELFATTN_DATA_MIRROR`` set, from the mirror's ``chinese-poetry/`` folder holding those files as
they are. Either way the files are checked against one digest of their SHA-256s.

The book keeps the poems in regulated form (:func:`regulated`): every line five characters, or
every line seven, the lines in couplets, a comma after the first line of each and a full stop
(or a question or exclamation mark) after the second. It keeps them in the traditional characters
the collection gives, converting nothing. The text is one couplet a line, a blank line between
poems, in the collection's order (:func:`poems_text`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path

from selfattn.data import MIRROR_ENV, Remote, cache_dir, fetch, sha256_of
from selfattn.errors import DataError
from selfattn.files import write_atomically
from selfattn.language import say

PACKAGE = Remote(
    "chinese-poetry-2.0.1.tgz",
    "https://registry.npmjs.org/chinese-poetry/-/chinese-poetry-2.0.1.tgz",
    "25b549e46919c3a0569db6b68ddc96956b04a484ea4518ad2bbd4f137e307e86",
)
FOLDER = "chinese-poetry"  # in a mirror
IN_PACKAGE = "package/dist/quantangshi/"
FILE = re.compile(r"poet\.tang\.(\d+)\.json")
# The SHA-256 of the lines "<SHA-256>  <name>" of the 58 files, in the order of their numbers.
FILES_SHA256 = "eecdecf248a3df812fbcaf84b11771a2e660904736caf0ada0f97e8b6f895a8f"
TEXT = "tang-poems.txt"  # the prepared text, in the download cache
TEXT_SHA256 = "e36d8053d7b23f3d113c72dc316c087e1e18899b10fe32246811208b0ba9f932"

HAN = "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]"  # a Chinese character
COUPLET = {n: f"{HAN}{{{n}}}，{HAN}{{{n}}}[。？！]" for n in (5, 7)}  # a couplet of n-character lines
FORM = {n: (re.compile(f"(?:{couplet})+"), re.compile(couplet)) for n, couplet in COUPLET.items()}


@dataclass(frozen=True)
class Poem:
    """One poem of the collection: its author, its title and its text, as the collection has them."""

    author: str
    title: str
    text: str  # the poem's lines joined, punctuation kept

    def couplets(self) -> list[str]:
        """The poem's couplets, if it is in regulated form; otherwise an empty list."""
        for whole, couplet in FORM.values():
            if whole.fullmatch(self.text):
                return couplet.findall(self.text)
        return []


def regulated(poem: Poem) -> bool:
    """Whether every line of ``poem`` has five characters, or every line seven, in couplets."""
    return bool(poem.couplets())


def files_digest(files: dict[str, bytes]) -> str:
    """One digest of the files' SHA-256s, in the order of their numbers."""
    lines = "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in files.items())
    return hashlib.sha256(lines.encode()).hexdigest()


def _numbered(names: list[str]) -> list[str]:
    return sorted((n for n in names if FILE.fullmatch(n)), key=lambda n: int(FILE.fullmatch(n)[1]))


def _from_mirror(folder: Path) -> dict[str, bytes]:
    names = _numbered([path.name for path in folder.glob("poet.tang.*.json")])
    if not names:
        raise DataError(
            say(
                "{env} is set, but {folder} holds no poet.tang.*.json files. Put there the files "
                "dist/quantangshi/poet.tang.*.json of the npm package chinese-poetry 2.0.1 ({url}), or "
                "unset {env} to download them.",
                env=MIRROR_ENV,
                folder=folder,
                url=PACKAGE.url,
            )
        )
    return {name: (folder / name).read_bytes() for name in names}


def _from_package(tarball: Path) -> dict[str, bytes]:
    with tarfile.open(tarball) as archive:
        members = {m.name.removeprefix(IN_PACKAGE): m for m in archive if m.name.startswith(IN_PACKAGE)}
        return {name: archive.extractfile(members[name]).read() for name in _numbered(list(members))}


def source_files() -> dict[str, bytes]:
    """The collection's 58 files of Tang poems, by name in the order of their numbers, checked."""
    mirror = os.environ.get(MIRROR_ENV)
    where = Path(mirror).expanduser() / FOLDER if mirror else PACKAGE.url
    files = _from_mirror(where) if mirror else _from_package(fetch(PACKAGE))
    if files_digest(files) != FILES_SHA256:
        raise DataError(
            say(
                "The Tang poems in {where} are not those of chinese-poetry 2.0.1 (their SHA-256s differ "
                "from the book's): replace them with the package's dist/quantangshi/poet.tang.*.json.",
                where=where,
            )
        )
    return files


def read_poems(files: dict[str, bytes]) -> list[Poem]:
    """Every poem of the files, in their order."""
    return [
        Poem(entry["author"], entry["title"], "".join(entry["paragraphs"]))
        for data in files.values()
        for entry in json.loads(data)
    ]


def prepared_text(poems: list[Poem]) -> str:
    """The regulated poems as the models read them: a couplet a line, a blank line after each poem."""
    return "".join("\n".join(couplets) + "\n\n" for couplets in map(Poem.couplets, poems) if couplets)


def poems_text() -> str:
    """The book's text of Tang poems (:func:`prepared_text` of the collection), made once and kept
    in the download cache."""
    target = cache_dir() / TEXT
    if not (target.is_file() and sha256_of(target) == TEXT_SHA256):
        text = prepared_text(read_poems(source_files()))
        write_atomically(target, lambda file: file.write(text.encode("utf-8")))
    return target.read_text(encoding="utf-8")
