"""One interactive figure as a notebook output: an HTML view and a PNG of the same data.

The HTML is self-contained. It carries the figure's data as JSON and, after it,
the figure script (``figures.js``, with ``figures.css`` inside it). The script
defines ``window.selfattnFigures`` only once per page and then watches every
figure not yet drawn, drawing each when it comes within a screen of the visible
part of the page (so a page opens without drawing the figures far below), so
several figures on a page share one copy, and a figure re-run in live mode
(Thebe inserts the new output into the page) is drawn too. Once loaded, the
script also watches the page for figures inserted without running their
scripts. Nothing is fetched from the network.

The PNG is a matplotlib drawing of the same data, for the PDF build and for
any viewer without JavaScript; an SVG of it keeps its words as text, for the
book's translated editions to redraw.

A translated edition of the book translates what the figure's HTML says in
words (its title, description and fallback, and the data's strings under
:data:`TEXT_KEYS`; the book's build does it, in ``_ext/editions/translation/figure_words.py``);
the labels the script writes itself come from the page (``window.selfattnText``,
see ``figures.js``). Words that carry computed values are :class:`Words`: the
HTML keeps their English template and values, the translation is of the
template, and the values are filled in after, so one catalog fits every build's
numbers.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import math
import uuid
from collections.abc import Callable
from functools import cache, cached_property
from importlib import resources
from typing import Union

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure as MplFigure

from selfattn.plotting import STYLE

PNG_DPI = 150
# The keys of a figure's data under which every string is words a reader reads (button labels,
# legends, the notes a step or state shows): translated with the title and description.
TEXT_KEYS = ("label", "note", "notes")
FALLBACK = "This interactive figure needs JavaScript; the description above gives what it shows."

Value = Union[str, int, float, "Words", list["Value"]]


class Words:
    """Words a reader reads, kept as an English template and the values computed for them.

    ``Words("from {first:.2f} to {last:.3f}", first=4.2, last=2.41)`` reads "from 4.20 to 2.410".
    A translation translates the template, never the values (they are filled in after), so the
    same catalog fits every machine's and every seed's numbers. A value may be Words itself: a
    phrase the data picks, translated in its turn; a list of values reads as a list, with commas.
    """

    def __init__(self, template: str, **values: Value) -> None:
        for name, value in values.items():
            _check(name, value)
        self.template, self.values = template, values

    def render(self, change: Callable[[str], str] = str) -> str:
        """The text, with ``change`` (a translation) applied to every template before it is filled."""
        return change(self.template).format(**{name: _filled(v, change) for name, v in self.values.items()})

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"Words({self.render()!r})"

    def to_json(self) -> dict:
        return {"words": self.template, "values": {name: _json(v) for name, v in self.values.items()}}

    @classmethod
    def from_json(cls, data: dict) -> Words:
        return cls(data["words"], **{name: _value(v) for name, v in data["values"].items()})


def _check(name: str, value) -> None:
    if isinstance(value, list):
        for item in value:
            _check(name, item)
    elif isinstance(value, bool) or not isinstance(value, (str, int, float, Words)):
        raise TypeError(f"{name}={value!r}: a value of Words is a str, a number, Words or a list of them")


def _filled(value: Value, change: Callable[[str], str]):
    if isinstance(value, list):
        return ", ".join(str(_filled(item, change)) for item in value)
    return value.render(change) if isinstance(value, Words) else value


def _json(value: Value):
    if isinstance(value, list):
        return [_json(item) for item in value]
    return value.to_json() if isinstance(value, Words) else value


def _value(data) -> Value:
    if isinstance(data, list):
        return [_value(item) for item in data]
    return Words.from_json(data) if isinstance(data, dict) else data


def _english(value, found: list, path: tuple = ()):
    """``value`` (a figure's data) with its Words rendered in English; ``found`` collects each one's
    path and JSON."""
    if isinstance(value, Words):
        found.append([list(path), value.to_json()])
        return value.render()
    if isinstance(value, (list, tuple)):
        return [_english(item, found, (*path, i)) for i, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: _english(item, found, (*path, key)) for key, item in value.items()}
    return value


@cache
def script() -> str:
    """The figure script with its stylesheet inside and a version stamp (same text every call)."""
    folder = resources.files("selfattn.figures")
    js = folder.joinpath("figures.js").read_text(encoding="utf-8")
    css = folder.joinpath("figures.css").read_text(encoding="utf-8")
    version = hashlib.sha256((js + css).encode()).hexdigest()[:12]
    return js.replace('"__CSS__"', json.dumps(css)).replace("__VERSION__", version)


def embedded_json(data: dict) -> str:
    """``data`` as JSON safe inside a ``<script>`` element."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def rounded(values, digits: int = 3):
    """Nested lists of floats rounded to ``digits`` decimals; -inf and nan become None (JSON null)."""
    array = np.asarray(values, dtype=float)
    if array.ndim > 0:
        return [rounded(row, digits) for row in array]
    value = float(array)
    return round(value, digits) if math.isfinite(value) else None


def shown(char: str) -> str:
    """A character as a figure labels it: newline and space made visible."""
    return {"\n": "↵", " ": "␣", "\t": "⇥"}.get(char, char)


class InteractiveFigure:
    """A figure a notebook shows as HTML (web) or PNG (PDF), built from one set of data.

    ``kind`` names the view in ``figures.js``; ``data`` is what the view and
    ``draw`` both render; ``title`` is the visible caption and ``description``
    the text alternative screen readers get.
    """

    def __init__(
        self,
        kind: str,
        data: dict,
        title: str | Words,
        description: str | Words,
        draw: Callable[[MplFigure, dict], None],
        size: tuple[float, float] = (6.4, 3.6),
    ) -> None:
        self.kind, self.title, self.description = kind, str(title), str(description)
        self.words = {"title": title, "description": description}  # as translations see them
        self._templates: list = []
        self.data = _english(data, self._templates)  # what the views and ``draw`` read
        self._draw, self._size = draw, size

    def __repr__(self) -> str:
        return f"<{self.kind} figure: {self.title}>"

    def data_json(self) -> str:
        """The embedded data, safe inside a ``<script>`` element."""
        return embedded_json(self.data)

    def to_html(self) -> str:
        """The interactive view: the figure's markup, its data, then the shared script."""
        uid = "sa-" + uuid.uuid4().hex[:10]
        title, description = html.escape(self.title), html.escape(self.description)
        kept = {
            name: f' data-words="{html.escape(json.dumps(words.to_json(), ensure_ascii=False))}"'
            if isinstance(words, Words)
            else ""
            for name, words in self.words.items()
        }
        templates = (
            f'<script type="application/json" class="sa-words">{embedded_json(self._templates)}</script>'
            if self._templates
            else ""
        )
        return (
            f'<figure class="sa-fig" id="{uid}" data-kind="{self.kind}" '
            f'aria-labelledby="{uid}-t" aria-describedby="{uid}-d">'
            f'<figcaption class="sa-title" id="{uid}-t"{kept["title"]}>{title}</figcaption>'
            f'<p class="sa-sr" id="{uid}-d"{kept["description"]}>{description}</p>'
            f'<div class="sa-body"><p class="sa-fallback">{FALLBACK}</p></div>'
            f'<script type="application/json" class="sa-data">{self.data_json()}</script>'
            f"{templates}</figure>"
            f"<script data-selfattn-figures>{script()}</script>"
        )

    @cached_property
    def _drawings(self) -> tuple[bytes, str]:
        """The same data drawn with matplotlib: as PNG, and as SVG with its words as text."""
        with mpl.rc_context(STYLE):
            fig = MplFigure(figsize=self._size, dpi=PNG_DPI, layout="constrained")
            self._draw(fig, self.data)
            png, svg = io.BytesIO(), io.StringIO()
            FigureCanvasAgg(fig).print_png(png)
            fig.savefig(svg, format="svg", metadata={"Date": None})
        return png.getvalue(), svg.getvalue()

    def to_png(self) -> bytes:
        """The static rendering: the same data drawn with matplotlib."""
        return self._drawings[0]

    def to_svg(self) -> str:
        """The static rendering as SVG, its words kept as text (a translated edition's, redrawn)."""
        return self._drawings[1]

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        return {
            "text/html": self.to_html(),
            "image/png": base64.b64encode(self.to_png()).decode("ascii"),
            "image/svg+xml": self.to_svg(),
            "text/plain": f"{self.title}. {self.description}",
        }
