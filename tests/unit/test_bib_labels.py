"""The bibliography's author-year labels read like the citations, and two alike are told apart."""

from __future__ import annotations

from pybtex.database import Entry, Person

from _ext.content.bib_labels import AuthorYearLabels


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
