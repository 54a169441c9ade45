"""The language the package speaks to a reader, and its words in every language but English.

A line the package prints or raises for a reader (a checker's verdict, a setting's error, a
training run's announcements) is written once in English and passed through :func:`say`, which
gives it in the language ``SELFATTN_LANGUAGE`` names (``zh_CN``; English when unset). An English
text said later, from a table, is marked where it is written with :func:`words`. The translations
are ``locale/<language>.json`` beside this module: each English text with its translation, the
figures' and live code's scripts' texts (their ``phrase("...")``) among them. ``python -m
bookbuild.catalogs update`` keeps that file in step with the package (:func:`python_texts` reads
what the modules say), and ``check`` holds every text translated with its ``{fields}`` kept.
"""

from __future__ import annotations

import ast
import json
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGE_ENV = "SELFATTN_LANGUAGE"
ENGLISH = "en"
PACKAGE = Path(__file__).parent
LOCALE = PACKAGE / "locale"


def texts_file(language: str) -> Path:
    """Where the package's words in ``language`` are kept."""
    return LOCALE / f"{language}.json"


@cache
def languages() -> tuple[str, ...]:
    """The languages the package speaks: English and each one it has translations for."""
    return (ENGLISH, *sorted(path.stem for path in LOCALE.glob("*.json")))


def language() -> str:
    """The language ``SELFATTN_LANGUAGE`` names; English when it is unset or empty, or names a
    language the package does not speak (said once, so a run in progress is never stopped by it)."""
    chosen = os.environ.get(LANGUAGE_ENV) or ENGLISH
    if chosen in languages():
        return chosen
    _unknown(chosen)
    return ENGLISH


@cache
def _unknown(chosen: str) -> None:
    print(
        f"{LANGUAGE_ENV}={chosen!r} is not a language the book speaks ({', '.join(languages())}): "
        f"speaking English. Set it to one of those, or unset it.",
        file=sys.stderr,
    )


@cache
def translations(language: str) -> dict[str, str]:
    """Each English text the package says, with its translation in ``language`` ("" if none yet)."""
    if language == ENGLISH:
        return {}
    return json.loads(texts_file(language).read_text(encoding="utf-8"))


def words(english: str) -> str:
    """Mark ``english`` as a text the package says later through :func:`say`; it is returned as is."""
    return english


def say(english: str, **values: Any) -> str:
    """``english`` in the reader's language, its ``{fields}`` filled in from ``values``."""
    text = translations(language()).get(english) or english  # untranslated: the English
    return text.format(**values)


def said(source: str) -> list[str]:
    """The string literals a module's ``source`` passes first to ``say`` or ``words``, in order."""
    calls = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("say", "words")
    ]
    calls.sort(key=lambda call: (call.lineno, call.col_offset))
    return [
        call.args[0].value
        for call in calls
        if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)
    ]


@cache
def python_texts() -> tuple[str, ...]:
    """Every text the package's modules say, each once (not its scripts' texts)."""
    texts = [
        text for path in sorted(PACKAGE.rglob("*.py")) for text in said(path.read_text(encoding="utf-8"))
    ]
    return tuple(dict.fromkeys(texts))
