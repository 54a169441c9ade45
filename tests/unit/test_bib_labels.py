"""The bibliography's author-year labels read like the citations, and two alike are told apart."""

from __future__ import annotations

import os
import subprocess
import sys

from pybtex.database import Entry, Person

from _ext.content.bib_labels import AuthorYearLabels
from bookbuild import ROOT


def entry(year: str, *authors: str) -> Entry:
    made = Entry("misc", fields={"year": year, "title": "t"})
    made.persons["author"] = [Person(name) for name in authors]
    return made


def test_labels_name_up_to_two_authors_and_letter_the_same_label():
    entries = [
        entry("2017", "Vaswani, Ashish", "Shazeer, Noam", "Parmar, Niki"),
        entry("2016", "Ba, Jimmy", "Kiros, Jamie"),
        entry("2024", "Raschka, Sebastian"),
        entry("2024", "Raschka, Sebastian"),
        entry("2025", "Raschka, Sebastian"),
    ]
    assert list(AuthorYearLabels().format_labels(entries)) == [
        "Vaswani et al., 2017",
        "Ba and Kiros, 2016",
        "Raschka, 2024a",
        "Raschka, 2024b",
        "Raschka, 2025",
    ]


BIB = """
@misc{raschka2024build, author = {Sebastian Raschka}, title = {Build}, year = {2024}}
@misc{raschka2024mha, author = {Sebastian Raschka}, title = {Attention}, year = {2024}}
@misc{ba2016layer, author = {Jimmy Ba and Jamie Kiros}, title = {Layer}, year = {2016}}
"""


def test_the_text_cites_two_works_of_one_year_as_the_list_labels_them(tmp_path):
    """A Sphinx build with the book's two bibliography settings: "[Raschka, 2024a]", not "2024"."""
    (tmp_path / "refs.bib").write_text(BIB)
    (tmp_path / "conf.py").write_text(
        "extensions = ['sphinxcontrib.bibtex', '_ext.content.bib_labels']\n"
        "bibtex_bibfiles = ['refs.bib']\n"
        "bibtex_reference_style = 'author_lettered_year'\n"
        "bibtex_default_style = 'authoryear'\n"
    )
    (tmp_path / "index.rst").write_text(
        "Text\n====\n\n"
        "One :cite:p:`raschka2024build`, two :cite:p:`raschka2024mha,ba2016layer`, "
        "as :cite:t:`raschka2024mha` says.\n\n.. bibliography::\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "-b", "text", str(tmp_path), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    text = " ".join((tmp_path / "out" / "index.txt").read_text().split())
    # the list sorts by author, year and title: "Attention" is 2024a, "Build" 2024b
    assert "One [Raschka, 2024b], two [Ba and Kiros, 2016, Raschka, 2024a], as Raschka [2024a] says." in text
    assert "[Raschka, 2024a] Sebastian Raschka. Attention." in text
