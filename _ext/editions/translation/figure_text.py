"""Drawn figures' words.

Every figure a chapter draws with matplotlib reaches the book twice: as PNG, which the editions
show, and as SVG whose words are text (``selfattn.plotting.use_book_style``; an interactive
figure's PNG twin comes with its SVG too). The gettext build offers each figure's words as
messages of the chapter's catalog. A translated build writes them into the SVG in their
translation, draws it as PNG at the English PNG's pixel size (``rsvg-convert``, Debian's
librsvg2-bin, with Noto Sans CJK for the characters DejaVu Sans lacks) and shows that PNG in
its place, on the site and in the PDF. Nothing is executed again: a catalog's change redraws.
The page also carries its figures' messages with their translations (``FIGURE_WORDS``), so a
figure that a live cell draws again is written in the page's language too (``live-code.js``).

A translation that runs past its legend's frame is a build warning (:func:`legend_overflows`,
which measures the drawn words with the fonts ``rsvg-convert`` draws them with): the catalog
should word it shorter.

A message is a text's words with each number in it written ``{0}``, ``{1}``…, filled in after
translation, so a catalog never holds a computed value. Tick labels, mathematics and texts
without a word of two letters are kept as drawn; code and tokens are messages too (a flow
chart's line of code may be words), which a translation keeps as they are.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from functools import cache
from itertools import groupby
from pathlib import Path
from typing import Any

from docutils import nodes
from PIL import Image, ImageFont
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from _ext.editions.translation import catalog
from _ext.editions.translation.figure_words import offer

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"(?<![\w.-])[-−]?\d+(?:[.,]\d+)*(?![\w])")
WORD = re.compile(r"[^\W\d_]{2,}")
TICKS = re.compile(r"[xy]tick_\d+$")
# Latin glyphs from the font matplotlib drew with, the rest from the CJK font the PDF uses.
FONTS = "font-family: 'DejaVu Sans', 'Noto Sans CJK SC', sans-serif"
MONO_FONTS = "font-family: 'DejaVu Sans Mono', 'Noto Sans Mono CJK SC', monospace"
LEGEND = re.compile(r"legend_\d+$")  # matplotlib's id for a legend's group
POINT = re.compile(r"(-?[\d.]+) (-?[\d.]+)")  # an x y pair of an SVG path
FONT_SIZE = re.compile(r"font-size:\s*([\d.]+)px")
CJK_FROM = 0x2E80  # from here on (CJK, full-width punctuation) rsvg-convert draws with Noto Sans CJK
# A translated page's figure words, for the live code's script (live-code.js), which writes a
# figure a live cell draws again in the page's language, as this module writes the built ones.
FIGURE_WORDS = "figure-words"
logger = logging.getLogger(__name__)
ET.register_namespace("", SVG[1:-1])  # a translated SVG written with the prefixes it was read with
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")


def _texts(root: ET.Element) -> Iterator[ET.Element]:
    """The ``<text>`` elements of a drawn figure that hold words a reader reads."""

    def walk(element: ET.Element, in_ticks: bool) -> Iterator[ET.Element]:
        in_ticks = in_ticks or bool(TICKS.match(element.get("id", "")))
        if element.tag == f"{SVG}text":
            if len(element) == 0 and not in_ticks and WORD.search(element.text or ""):  # tspans: maths
                yield element
            return
        for child in element:
            yield from walk(child, in_ticks)

    return walk(root, False)


def template(text: str) -> tuple[str, list[str]]:
    """``text`` as a message, its numbers as ``{0}``, ``{1}``…, and the numbers."""
    numbers: list[str] = []

    def place(found: re.Match) -> str:
        numbers.append(found.group())
        return f"{{{len(numbers) - 1}}}"

    return NUMBER.sub(place, text.replace("{", "{{").replace("}", "}}")), numbers


def messages(svg: str) -> list[str]:
    """The messages of a figure drawn as ``svg``, in order."""
    return [template(element.text)[0] for element in _texts(ET.fromstring(svg))]


def translated_svg(svg: str, change: Callable[[str], str]) -> str | None:
    """``svg`` with ``change`` applied to each of its messages, or None if no word changed."""
    root = ET.fromstring(svg)
    changed = False
    for element in _texts(root):
        message, numbers = template(element.text)
        translation = change(message)
        if translation != message:
            element.text = translation.format(*numbers)
            style = element.get("style", "")
            fonts = MONO_FONTS if "monospace" in style else FONTS
            element.set("style", re.sub(r"font-family:[^;]*", fonts, style))
            changed = True
    return ET.tostring(root, encoding="unicode") if changed else None


@cache
def _font(family: str) -> ImageFont.FreeTypeFont:
    """The font fontconfig gives for ``family``, as rsvg-convert finds it, at 100 px."""
    found = subprocess.run(["fc-match", "-f", "%{file}", family], capture_output=True, text=True, check=True)
    return ImageFont.truetype(found.stdout, 100)


def text_width(text: str, size: float) -> float:
    """The width of ``text`` drawn at ``size`` px: Latin in DejaVu Sans, CJK in Noto Sans CJK SC."""
    width = 0.0
    for cjk, run in groupby(text, key=lambda char: ord(char) >= CJK_FROM):
        width += _font("Noto Sans CJK SC" if cjk else "DejaVu Sans").getlength("".join(run))
    return width * size / 100


def legend_overflows(svg: str) -> list[tuple[str, float]]:
    """Each legend text of ``svg`` that ends past its legend's frame (a legend without one: past the
    figure's edge), with how far past (px)."""
    root = ET.fromstring(svg)
    figure_right = float(root.get("viewBox", "0 0 0 0").split()[2])
    found = []
    for legend in root.iter(f"{SVG}g"):
        if not LEGEND.match(legend.get("id", "")):
            continue
        texts = list(legend.iter(f"{SVG}text"))
        first = legend.find(f"{SVG}g/{SVG}path")  # a framed legend's first patch is its frame
        right = max(float(x) for x, _ in POINT.findall(first.get("d", ""))) if first is not None else 0
        if not all(float(text.get("x", 0)) < right for text in texts):  # no frame: the figure's edge
            right = figure_right
        for text in texts:
            size = float(FONT_SIZE.search(text.get("style", "")).group(1))
            past = float(text.get("x", 0)) + text_width(text.text or "", size) - right
            if past > 0:
                found.append((text.text, past))
    return found


def draw(svg: str, png: Path, folder: Path) -> Path:
    """``svg`` drawn as a PNG the size of ``png``, in ``folder`` (named for its content)."""
    with Image.open(png) as image:
        width, height = image.size
    name = hashlib.sha256(f"{svg}{width}x{height}".encode()).hexdigest()[:24]
    out = folder / f"{name}.png"
    if not out.exists():
        if shutil.which("rsvg-convert") is None:
            raise ExtensionError(
                "the Chinese edition draws its figures' words with rsvg-convert, which is missing: "
                "sudo apt-get install --no-install-recommends librsvg2-bin"
            )
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["rsvg-convert", "--width", str(width), "--height", str(height), "--output", str(out)],
            input=svg.encode(),
            check=True,
        )
    return out


def _formats(bundle: nodes.Element) -> dict[str, nodes.image]:
    """The images of an output's bundle of formats, by format."""
    return {
        child["mime_type"]: image
        for child in bundle.children
        for image in child.findall(nodes.image)
        if "mime_type" in child
    }


class TranslateFigureText(SphinxTransform):
    """Offer drawn figures' words for translation (gettext build), or draw them translated."""

    default_priority = 700  # while reading: the images a translated build draws are collected after

    def apply(self, **kwargs: Any) -> None:
        bundles = [
            (bundle, images)
            for bundle in self.document.findall(nodes.container)
            if bundle.get("nb_element") == "mime_bundle"
            and {"image/svg+xml", "image/png"} <= (images := _formats(bundle)).keys()
        ]
        if not bundles:
            return
        if self.app.builder.name == "gettext":
            for bundle, images in bundles:
                offer(bundle, messages(self._read(images["image/svg+xml"])))
            return
        translations = catalog(self.app, self.env.docname)
        if translations is None:
            return
        folder = Path(self.app.doctreedir, "figure-text")
        words: dict[str, str] = {}

        def change(message: str) -> str:
            translation = translations.gettext(message)
            if translation != message:
                words[message] = translation
            return translation

        for _, images in bundles:
            svg = translated_svg(self._read(images["image/svg+xml"]), change)
            if svg is not None:
                for text, past in legend_overflows(svg):
                    logger.warning(
                        f"a figure's legend: {text!r} runs {past:.0f} px past its frame; word it shorter",
                        location=self.env.docname,
                    )
                png = images["image/png"]
                # as MyST-NB writes it: a path from the source folder, after a "/"
                png["uri"] = "/" + os.path.relpath(draw(svg, self._path(png), folder), self.app.srcdir)
        if words:  # for the figures a live cell draws again
            payload = json.dumps(words, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")
            script = f'<script type="application/json" class="{FIGURE_WORDS}">{payload}</script>'
            self.document += nodes.raw("", script, format="html")

    def _path(self, image: nodes.image) -> Path:
        return Path(self.app.srcdir, image["uri"].lstrip("/"))

    def _read(self, image: nodes.image) -> str:
        return self._path(image).read_text(encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(TranslateFigureText)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
