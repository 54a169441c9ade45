"""The lines the package printed in a chapter's outputs, in the edition's language.

A chapter runs once, in English. A line the package writes for a reader goes through
``selfattn.language.say("English {field}", field=value)`` (a checker's verdict, say), and a live
page of a translated edition runs with ``SELFATTN_LANGUAGE`` set, so it prints the translation.
For the built page, a printed line that reads as one of the texts the package's Python says, its
fields holding what the English run printed, is written again from that text's translation with
the same values. A value that is itself one of the package's sentences (a slip's description
inside a verdict) is read the same way; a one-word value (``loss``, a tensor's name) is code and
is kept. A line counts as the package's only where the package's words make enough of it
(``OWN_WORDS``), so a model's sample with an "and" in it is not read as ``"{low} and {high}"``.
A paragraph a cell wrapped with ``textwrap`` is read as one text, and wrapped again. Nothing runs
again.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from functools import cache
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.transforms.post_transforms import SphinxPostTransform

from _ext.editions.translation import translated
from _ext.editions.translation.code_text import cells, set_text
from selfattn.language import LANGUAGE_ENV, python_texts, translations

FIELD = re.compile(r"\{(\w+)(?:![rsa])?(?::([^{}]*))?\}")  # {name}, {name!r}, {name:.4f}
INDENT = re.compile(r" *")
# A text is read as one of the package's when that text's own words are this many characters at
# least, or when the package's words (its inner texts' too) make half of it.
OWN_WORDS = 20
NUMBER = r"-?(?:\d[\d,]*(?:\.\d*)?(?:e[-+]?\d+)?|inf|nan)%?"  # what a field formatted as a number printed


@dataclass(frozen=True)
class Saying:
    """One of the package's texts: its English as a pattern whose groups are its fields, and its
    translation."""

    pattern: re.Pattern
    translation: str


def _pattern(english: str) -> re.Pattern:
    """The lines ``english`` prints, whatever its fields hold: a number where a field's format is a
    number's (``{gap:.3g}``), any text elsewhere; a field named twice holds one value."""
    pattern, names, at = "", set(), 0
    for field in FIELD.finditer(english):
        name = field.group(1)
        pattern += re.escape(english[at : field.start()])
        number = (field.group(2) or "")[-1:] in set("eEfFgGd%")
        pattern += f"(?P={name})" if name in names else f"(?P<{name}>{NUMBER if number else '.*?'})"
        names.add(name)
        at = field.end()
    return re.compile(pattern + re.escape(english[at:]), re.S)


@cache
def sayings(language: str) -> tuple[Saying, ...]:
    """The texts the package's Python says (not its scripts'), translated into ``language``, that
    hold more than their fields."""
    known = translations(language)
    texts = [(english, known[english]) for english in python_texts() if known.get(english)]
    return tuple(Saying(_pattern(english), text) for english, text in texts if FIELD.sub("", english).strip())


def translated_line(line: str, language: str) -> str:
    """``line`` in ``language`` if it is one of the package's texts as printed; else ``line``."""
    return _reading(line, language)[1]


@cache
def _reading(text: str, language: str) -> tuple[tuple[int, int], str]:
    """How much of ``text`` the package's texts explain (their words, not their fields' values), and
    its translation by the reading that explains the most, of those that explain enough
    (``OWN_WORDS``): ``"✓ {right}"`` holding a checker's
    sentence, not ``"{low} and {high}"`` cutting it at its "and". Of two that explain as much, the
    one whose outer text explains more: "a finite number {allowed}" holding "greater than 0 and at
    most 1", not "{low} and {high}" holding "a finite number greater than 0"."""
    best = ((0, 0), text)
    for saying in sayings(language):
        match = saying.pattern.fullmatch(text)
        if match is None:
            continue
        outer = len(text) - sum(len(value) for value in match.groupdict().values())
        explained, values = outer, {}
        for name, value in match.groupdict().items():
            # a sentence of the package's is read the same way; a number the package wrote counts
            # as its own; a word (a tensor's name, which may also be a figure's label) is kept
            if " " in value.strip():
                inner = _reading(value, language)
            else:
                inner = ((len(value) if re.fullmatch(NUMBER, value) else 0, 0), value)
            explained += inner[0][0]
            values[name] = inner[1]
        if outer < OWN_WORDS and 2 * explained < len(text):
            continue  # mostly not the package's words: "{low} and {high}" is not any line with an "and"
        best = max(best, ((explained, outer), _filled(saying.translation, values)), key=lambda read: read[0])
    return best


def _filled(translation: str, values: dict[str, str]) -> str:
    """``translation`` with each field replaced by the value it printed in English."""
    return FIELD.sub(lambda field: values[field.group(1)], translation)


def translated_text(text: str, language: str) -> str:
    """What a cell printed, ``text``, with each of the package's texts in ``language``: a whole
    line, or a paragraph a cell wrapped (``textwrap``: indented lines, one text cut at spaces) where
    reading it as one text explains more than reading its lines one by one, wrapped again as wide
    as its longest English line."""
    lines, out, at = text.split("\n"), [], 0
    while at < len(lines):
        indent = INDENT.match(lines[at]).group()
        end = at + 1
        while (
            indent and end < len(lines) and INDENT.match(lines[end]).group() == indent and lines[end].strip()
        ):
            end += 1
        paragraph = [line[len(indent) :] for line in lines[at:end]]
        each = [_reading(line, language) for line in paragraph]
        joined = " ".join(paragraph)
        width = max(map(len, paragraph))
        wrapped = len(paragraph) > 1 and textwrap.wrap(joined, width) == paragraph
        whole = _reading(joined, language) if wrapped else ((0, 0), joined)
        if whole[0][0] > sum(read[0][0] for read in each):
            out += textwrap.wrap(whole[1], width, initial_indent=indent, subsequent_indent=indent)
        else:
            out += [indent + read[1] for read in each]
        at = end
    return "\n".join(out)


class TranslatePackageLines(SphinxPostTransform):
    """In a translated edition, write the package's printed lines in the edition's language."""

    default_priority = 4  # after the cells' own printed strings (code_text), before MyST-NB's formats

    def run(self, **kwargs: Any) -> None:
        language = self.app.config.language
        if self.app.builder.name == "gettext" or not translated(language):
            return
        for _, printed in cells(self.document):
            for block in printed:
                text = block.astext()
                translation = translated_text(text, language)
                if translation != text:
                    set_text(block, translation)


def live_language(app: Sphinx, config: Config) -> None:
    """A translated edition's live kernels speak its language: the setup every new kernel runs
    names it before the package is imported."""
    if translated(config.language):
        config.live_code_setup = (
            f"import os\nos.environ[{LANGUAGE_ENV!r}] = {config.language!r}\n{config.live_code_setup}"
        )


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", live_language)
    app.add_post_transform(TranslatePackageLines)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
