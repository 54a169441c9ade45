"""Code cells' words: their comments, their docstrings and what they print.

The gettext build offers, for every code cell a page shows, each comment's text, each one-line
docstring, and the text of each string a ``print`` call is given (a plain string, or an f-string
as written, its fields ``{…}`` included) as messages of the chapter's catalog. A translated build
writes their translations into the cell's source, the code a reader sees and a live page runs,
and into what the chapter's cells printed, each f-string's fields holding the values the English
edition printed. Nothing is executed again, and the code stays the same: only comments,
docstrings and printed strings change.

A string written as literals side by side (``f"step {i}: " f"loss {loss:.4f}"``, one string to
Python) is one message, its literals' bodies joined; the translation is written back as literals
side by side again, cut before the fields that began the English literals.

A field whose value is a string written in it (a column's title, ``{'val loss':>9}``) counts as
the string's words: its translation may change that string, and its width (a Chinese character
takes two columns).
A comment or string without a word of two letters (``# (B, T, C)``, or an f-string's words all
in its other fields) is kept as it is; so is a string of literals with other quotes or prefixes than
f, or with a comment between them, and all of a cell that is not Python.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from _ext.content.joined_streams import STREAMS
from _ext.editions.translation import catalog, chapter_of
from _ext.editions.translation.figure_words import offer

# A word a reader reads: two letters, not part of a name_with_underscores or a call.
WORD = re.compile(r"(?<![\w.])[^\W\d_]{2,}(?![\w(])")
CODE = re.compile(r"`[^`]*`")
# A string literal: its prefix, its quotes and what is between them.
LITERAL = re.compile(r"^([rRbBuUfF]{0,2})('''|\"\"\"|'|\")(.*)\2$", re.S)
logger = logging.getLogger(__name__)


def has_words(text: str) -> bool:
    """Whether ``text`` has a word a reader reads, outside `code`."""
    return bool(WORD.search(CODE.sub(" ", text)))


@dataclass(frozen=True)
class Piece:
    """One comment's text or one printed string's body in a cell's source, where it stands."""

    start: int  # offsets into the source
    end: int
    text: str
    prefix: str = ""  # a string's prefix and quotes; "" for a comment
    quote: str = ""
    in_function: bool = False  # printed by a function, so by whichever cell calls it
    # literals side by side: where each literal after the first begins in ``text``, and what the
    # source has between them; start and end then hold all of them, quotes and prefixes included
    splits: tuple[int, ...] = ()
    joins: tuple[str, ...] = ()
    docstring: bool = False  # a function's or a class's own words, never printed

    @property
    def is_fstring(self) -> bool:
        return "f" in self.prefix.lower()

    def written(self, translation: str) -> str:
        """What the source holds from ``start`` to ``end`` with ``translation`` as the text."""
        if not self.splits:
            return translation
        cuts, at = [], 0
        fields = _fields(self.text)
        for split in self.splits:  # before the field that began an English literal, if it is there
            first = next((self.text[a:b] for a, b in fields if a >= split), None)
            found = translation.find(first, at) if first else -1
            if found > at:
                cuts.append(found)
                at = found
        bodies = [translation[a:b] for a, b in zip([0, *cuts], [*cuts, len(translation)], strict=True)]
        return "".join(
            join + self._literal(body) for join, body in zip(["", *self.joins], bodies, strict=False)
        )

    def _literal(self, body: str) -> str:
        """``body`` of the joined text as a literal: an f-string if it has a field."""
        if self.is_fstring and not _fields(body):
            return self.quote + body.replace("{{", "{").replace("}}", "}") + self.quote
        return self.prefix + self.quote + body + self.quote


def _offsets(source: str, in_bytes: bool = True) -> Callable[[int, int], int]:
    """A (line, column) position of ``source`` as an offset into it: the column in UTF-8 bytes
    (as ``ast`` counts), or in characters (as ``tokenize`` does)."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        if not in_bytes:
            return starts[line - 1] + column
        text = source[starts[line - 1] : starts[line] if line < len(starts) else len(source)]
        return starts[line - 1] + len(text.encode()[:column].decode(errors="ignore"))

    return offset


def _comments(source: str) -> Iterator[Piece]:
    offset = _offsets(source, in_bytes=False)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return
    for token in tokens:
        if token.type == tokenize.COMMENT:
            text = token.string[1:].strip()
            if has_words(text):
                start = offset(*token.start) + token.string.index(text)
                yield Piece(start, start + len(text), text)


def _printed(source: str, tree: ast.Module, offset: Callable[[int, int], int]) -> Iterator[Piece]:
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    in_functions = {id(node) for f in ast.walk(tree) if isinstance(f, functions) for node in ast.walk(f)}
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"):
            continue
        for arg in call.args:
            string = isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            if not (string or isinstance(arg, ast.JoinedStr)):
                continue
            start, end = offset(arg.lineno, arg.col_offset), offset(arg.end_lineno, arg.end_col_offset)
            piece = _string(source[start:end], start, id(call) in in_functions)
            if piece is not None and has_words(_outside_fields(piece)):
                yield piece


def _string(written: str, start: int, in_function: bool) -> Piece | None:
    """The string ``written`` at ``start`` as a piece: one literal, or literals side by side."""
    literal = LITERAL.match(written)
    if literal is not None and literal.group(2) not in literal.group(3):  # one literal
        prefix, quote, body = literal.groups()
        at = start + len(prefix) + len(quote)
        return Piece(at, at + len(body), body, prefix, quote, in_function)
    tokens = list(tokenize.generate_tokens(io.StringIO(written).readline))
    strings = [token for token in tokens if token.type == tokenize.STRING]
    offset = _offsets(written, in_bytes=False)
    bounds = [(offset(*token.start), offset(*token.end)) for token in strings]
    joins = tuple(written[a:b] for (_, a), (b, _) in zip(bounds, bounds[1:], strict=False))
    literals = [LITERAL.match(token.string) for token in strings]
    if any(join.strip() for join in joins) or not all(literals):
        return None  # a comment between them, or a literal of its own kind
    prefixes = {m.group(1).lower() for m in literals}
    quotes = {m.group(2) for m in literals}
    if len(quotes) > 1 or not prefixes <= {"", "f"} or any(m.group(2) in m.group(3) for m in literals):
        return None
    fstring = "f" in prefixes
    bodies = [
        m.group(3) if m.group(1) or not fstring else m.group(3).replace("{", "{{").replace("}", "}}")
        for m in literals
    ]
    splits = tuple(len("".join(bodies[:at])) for at in range(1, len(bodies)))
    prefix = "f" if fstring else ""
    return Piece(
        start, start + len(written), "".join(bodies), prefix, quotes.pop(), in_function, splits, joins
    )


def _outside_fields(piece: Piece) -> str:
    """What ``piece`` prints besides its fields' values (a constant field's text included)."""
    return " ".join(text for kind, text in _parts(piece, piece.text) if kind == "text")


def _constant(field: str, quote: str) -> str | None:
    """What a field of an f-string prints when its value is a string written in it (a column's
    title, ``{'val loss':>9}``); None for any other field."""
    try:
        (value,) = ast.parse(f"f{quote}{field}{quote}", mode="eval").body.values
    except (SyntaxError, ValueError):
        return None
    spec = value.format_spec
    if not (isinstance(value.value, ast.Constant) and isinstance(value.value.value, str)):
        return None
    if spec is not None and not all(isinstance(part, ast.Constant) for part in spec.values):
        return None
    text = {-1: str, 115: str, 114: repr, 97: ascii}[value.conversion](value.value.value)
    return format(text, "".join(part.value for part in spec.values) if spec else "")


def _docstrings(source: str, tree: ast.Module, offset: Callable[[int, int], int]) -> Iterator[Piece]:
    """The one-line docstrings of the functions and classes ``source`` defines."""
    defined = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in ast.walk(tree):
        first = (
            node.body[0].value if isinstance(node, defined) and isinstance(node.body[0], ast.Expr) else None
        )
        if (
            isinstance(first, ast.Constant)
            and isinstance(first.value, str)
            and first.lineno == first.end_lineno
        ):
            start, end = (
                offset(first.lineno, first.col_offset),
                offset(first.end_lineno, first.end_col_offset),
            )
            piece = _string(source[start:end], start, in_function=False)
            if piece is not None and has_words(piece.text):
                yield replace(piece, docstring=True)


def pieces(source: str) -> list[Piece]:
    """The comments, docstrings and printed strings of a cell's ``source`` that hold words, in order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython's own syntax (%timeit): comments only
        return list(_comments(source))
    offset = _offsets(source)
    found = [*_comments(source), *_docstrings(source, tree, offset), *_printed(source, tree, offset)]
    return sorted(found, key=lambda p: p.start)


def translated_source(source: str, translations: dict[Piece, str]) -> str:
    """``source`` with each of its pieces replaced by its translation in ``translations``."""
    for piece in sorted(translations, key=lambda p: p.start, reverse=True):
        source = source[: piece.start] + piece.written(translations[piece]) + source[piece.end :]
    return source


def _fields(body: str) -> list[tuple[int, int]]:
    """Where an f-string's body has its fields ``{…}`` (not its ``{{``/``}}``)."""
    found, depth, at, start = [], 0, 0, 0
    while at < len(body):
        char = body[at]
        if depth == 0 and body.startswith(("{{", "}}"), at):
            at += 2
            continue
        if char == "{":
            depth += 1
            start = at if depth == 1 else start
        elif char == "}":
            depth -= 1
            if depth == 0:
                found.append((start, at + 1))
        at += 1
    return found


def _parts(piece: Piece, body: str) -> list[tuple[str, str]]:
    """``body`` as ("text", its value as printed) and ("field", its source) parts; a field whose
    value is a string written in it is text."""

    prefix = piece.prefix.replace("f", "").replace("F", "")

    def value(text: str) -> str:
        printed = ast.literal_eval(prefix + piece.quote + text + piece.quote)
        return printed.replace("{{", "{").replace("}}", "}") if piece.is_fstring else printed

    if not piece.is_fstring:
        return [("text", value(body))]
    parts, at = [], 0
    for start, end in _fields(body):
        constant = _constant(body[start:end], piece.quote)
        field = ("field", body[start:end]) if constant is None else ("text", constant)
        parts += [("text", value(body[at:start])), field]
        at = end
    merged: list[tuple[str, str]] = []
    for kind, text in [*parts, ("text", value(body[at:]))]:
        if merged and kind == "text" == merged[-1][0]:
            merged[-1] = ("text", merged[-1][1] + text)
        elif (kind, text) != ("text", ""):
            merged.append((kind, text))
    return merged


def field_sources(piece: Piece, body: str) -> list[str]:
    """The fields of ``body``, a translation of ``piece`` or its own text, sorted."""
    return sorted(text for kind, text in _parts(piece, body) if kind == "field")


def translated_output(text: str, piece: Piece, translation: str) -> str:
    """``text``, a cell's printed output, with what ``piece`` printed in its translation: the
    values its fields printed kept."""
    english = _parts(piece, piece.text)
    pattern = ""
    for at, (kind, part) in enumerate(english):
        if kind == "text":
            pattern += re.escape(part)
        elif at == 0:
            pattern += r"(?m:^)([^\n]*?)"
        else:
            pattern += r"(.*?)" if at + 1 < len(english) else r"([^\n]*)"
    # a whole word at each end: "loss" is not translated inside "losses"
    before = r"(?<!\w)" if re.match(r"\w", pattern) else ""
    pattern = before + pattern + (r"(?!\w)" if pattern[-1:].isalnum() else "")
    fields = [part for kind, part in english if kind == "field"]

    def swap(match: re.Match) -> str:
        values = dict(zip(fields, match.groups(), strict=True))
        return "".join(values[part] if kind == "field" else part for kind, part in _parts(piece, translation))

    return re.sub(pattern, swap, text, flags=re.S)


def cells(document: nodes.document) -> Iterator[tuple[nodes.literal_block, list[nodes.literal_block]]]:
    """Each code cell a page shows: its source's block and its printed outputs' blocks."""
    for cell in document.findall(nodes.container):
        if cell.get("nb_element") != "cell_code":
            continue
        sources = [
            block
            for part in cell.children
            if part.get("nb_element") == "cell_code_source"
            for block in part.findall(nodes.literal_block)
        ]
        printed = [
            block
            for part in cell.children
            if part.get("nb_element") == "cell_code_output"
            for block in part.findall(nodes.literal_block)
            if any(c in block["classes"] for c in STREAMS)
        ]
        if sources:
            yield sources[0], printed


def set_text(block: nodes.literal_block, text: str) -> None:
    block[:] = [nodes.Text(text)]
    block.rawsource = text


class TranslateCodeText(SphinxPostTransform):
    """Offer code cells' comments and printed strings for translation (gettext build), or write
    them translated into the cells and their printed outputs."""

    default_priority = 3  # with the figures' words, before MyST-NB picks each output's format

    def run(self, **kwargs: Any) -> None:
        found = [(source, printed, pieces(source.astext())) for source, printed in cells(self.document)]
        if self.app.builder.name == "gettext":
            for source, _, cell_pieces in found:
                if cell_pieces:
                    offer(source, [piece.text for piece in cell_pieces])
            return
        by_chapter: dict[str, list] = {}
        for cell in found:
            by_chapter.setdefault(chapter_of(cell[0], self.env.docname), []).append(cell)
        for chapter, chapter_cells in by_chapter.items():
            translations = catalog(self.app, chapter)
            if translations is not None:
                self._translate(chapter_cells, translations.gettext)

    def _translate(self, found: list, translate: Callable[[str], str]) -> None:
        """Write the translations into one chapter's cells, and into what they printed."""
        shared: list[tuple[Piece, str]] = []
        for source, printed, cell_pieces in found:
            chosen = {piece: self._translation(piece, translate(piece.text)) for piece in cell_pieces}
            set_text(source, translated_source(source.astext(), chosen))
            strings = [(piece, text) for piece, text in chosen.items() if piece.quote and not piece.docstring]
            shared += [(piece, text) for piece, text in strings if piece.in_function]
            # what the cell printed itself, and what a function of this cell or an earlier one printed
            mine = sorted(
                dict([*shared, *strings]).items(), key=lambda string: len(string[0].text), reverse=True
            )
            for block in printed:
                text = block.astext()
                for piece, translation in mine:
                    text = translated_output(text, piece, translation)
                set_text(block, text)

    def _translation(self, piece: Piece, translation: str) -> str:
        """``translation`` of ``piece``, or its English where the translation would change the code."""
        try:
            keeps = (
                field_sources(piece, translation) == field_sources(piece, piece.text)
                if piece.quote
                else "\n" not in translation
            )
        except (SyntaxError, ValueError):  # not a string Python reads
            keeps = False
        if not keeps:
            logger.warning(
                f"the translation of {piece.text!r} must keep its fields {{…}}, escapes and quotes: "
                f"{translation!r}",
                location=self.env.docname,
            )
        return translation if keeps else piece.text


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_post_transform(TranslateCodeText)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
