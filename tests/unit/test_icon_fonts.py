"""The site's icon fonts and its style sheets' icon rules keep the icons its pages name and its style
sheets draw, and only those."""

from __future__ import annotations

import shutil
from pathlib import Path

import pydata_sphinx_theme
from fontTools.ttLib import TTFont

from bookbuild.optimize import FONTS, cut, named_icons, named_rules, used_icons

THEME_STATIC = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"
CSS = (
    '.fa-rocket:before{content:"\\f135"}'
    '.fa-circle-down:before,.fa-arrow-alt-circle-down:before{content:"\\f358"}'
    '.fa-unused:before{content:"\\f999"}'
    ':root{--pst-icon-bell:"\uf0f3"}'
    '.dropdown:after{content:"\\f107";font:var(--fa-font-solid)}'
    '.katex .x:before{content:"\\2192"}'
)


PAGES = ['<i class="fa-solid fa-rocket"></i>', 'icon.className = "fa-arrow-alt-circle-down";']


def test_the_icons_kept_are_those_pages_name_and_style_sheets_draw():
    assert used_icons(CSS, named_icons(PAGES)) == {0xF135, 0xF358, 0xF0F3, 0xF107}


def test_a_style_sheet_keeps_the_icon_rules_of_the_classes_pages_name():
    css = named_rules(CSS, named_icons(PAGES))
    assert '.fa-rocket:before{content:"\\f135"}' in css
    assert '}.fa-arrow-alt-circle-down:before{content:"\\f358"}' in css, "a shared rule keeps its named part"
    assert "fa-unused" not in css and "fa-circle-down" not in css
    assert css.endswith(CSS[CSS.index(":root") :]), "every other rule stays"
    assert used_icons(css, named_icons(PAGES)) == used_icons(CSS, named_icons(PAGES)), "cut again, the same"
    inside = '.a,.fa-unused:before{content:"x"}.b .fa-unused:before{content:"y"}'
    assert named_rules(inside, set()) == inside, "a selector list or a descendant selector is not cut"


def test_a_cut_font_holds_the_kept_icons_and_nothing_else(tmp_path):
    (original,) = [p for p in THEME_STATIC.glob(FONTS) if p.name == "fa-solid-900.woff2"]
    font = tmp_path / original.name
    shutil.copy(original, font)
    cut(font, {0xF135, 0xF002})
    assert set(TTFont(font).getBestCmap()) == {0xF135, 0xF002}
    assert font.stat().st_size < original.stat().st_size / 20
