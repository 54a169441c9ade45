"""Author-year labels for the bibliography, so the list reads like the citations in the text.

The text cites "(Vaswani et al., 2017)" (``bibtex_reference_style: author_year``); pybtex's
default labels would list that entry as "[VSP+17]". This registers a pybtex style, named
``authoryear``, whose labels are "Vaswani et al., 2017" and whose entries are sorted by author.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from string import ascii_lowercase

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle


class AuthorYearLabels(BaseLabelStyle):
    """ "Surname, 2017", "Surname and Other, 2017" or "Surname et al., 2017"."""

    def format_labels(self, sorted_entries) -> Iterator[str]:
        """The labels in order; two entries with the same label become "…, 2024a" and "…, 2024b"."""
        labels = list(self._labels(sorted_entries))
        lettered = Counter()  # how many letters each repeated label has handed out
        for label in labels:
            if labels.count(label) == 1:
                yield label
            else:
                yield label + ascii_lowercase[lettered[label]]
                lettered[label] += 1

    def _labels(self, sorted_entries) -> Iterator[str]:
        for entry in sorted_entries:
            people = entry.persons.get("author") or entry.persons.get("editor") or []
            names = [" ".join(person.last_names) for person in people]
            if not names:
                who = entry.fields.get("organization", entry.key)
            elif len(names) == 1:
                who = names[0]
            elif len(names) == 2:
                who = f"{names[0]} and {names[1]}"
            else:
                who = f"{names[0]} et al."
            yield f"{who}, {entry.fields.get('year', 'n.d.')}"


class AuthorYearStyle(UnsrtStyle):
    default_label_style = "authoryear"
    default_sorting_style = "author_year_title"


def setup(app) -> dict:
    register_plugin("pybtex.style.labels", "authoryear", AuthorYearLabels)
    register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
