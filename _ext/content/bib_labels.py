"""Author-year labels for the bibliography, so the list reads like the citations in the text.

The text cites "[Vaswani et al., 2017]"; pybtex's default labels would list that entry as
"[VSP+17]". This registers a pybtex style, named ``authoryear``, whose labels are "Vaswani et al.,
2017" and whose entries are sorted by author, and a sphinxcontrib-bibtex referencing style, named
``author_lettered_year``, that cites an author's two works of one year as the list labels them,
"Raschka, 2024a" and "Raschka, 2024b", where upstream's ``author_year`` cites both as "2024".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from string import ascii_lowercase

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.template import join, node
from sphinxcontrib.bibtex.plugin import register_plugin as register_reference_style
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
from sphinxcontrib.bibtex.style.referencing.basic_author_year import (
    BasicAuthorYearParentheticalReferenceStyle,
    BasicAuthorYearTextualReferenceStyle,
)
from sphinxcontrib.bibtex.style.template import join2, post_text, pre_text, reference


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


@node
def lettered_year(children, data) -> Text:
    """The year as the entry's label in the bibliography has it: "2024a" where the label is lettered."""
    assert not children
    return Text(data["formatted_entry"].label.rpartition(", ")[2])


@dataclass
class LetteredParenthetical(BasicAuthorYearParentheticalReferenceStyle):
    """``{cite}`` and ``{cite:p}``: "[Raschka, 2024a]"."""

    def inner(self, role_name: str):
        who = self.person.author_or_editor_or_title(full="s" in role_name)
        return join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
            pre_text, reference[join(sep=self.author_year_sep)[who, lettered_year]], post_text
        ]


@dataclass
class LetteredTextual(BasicAuthorYearTextualReferenceStyle):
    """``{cite:t}``: "Raschka [2024a]"."""

    def inner(self, role_name: str):
        who = self.person.author_or_editor_or_title(full="s" in role_name)
        year = join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
            pre_text, reference[lettered_year], post_text
        ]
        return join(sep=self.text_reference_sep)[who, join[self.bracket.left, year, self.bracket.right]]


@dataclass
class AuthorLetteredYear(AuthorYearReferenceStyle):
    """Upstream's ``author_year``, whose parenthetical and textual citations letter their years."""

    def __post_init__(self) -> None:
        super().__post_init__()
        lettered = [
            LetteredParenthetical(
                bracket=self.bracket_parenthetical,
                person=self.person,
                author_year_sep=self.author_year_sep,
                pre_text_sep=self.pre_text_sep,
                post_text_sep=self.post_text_sep,
            ),
            LetteredTextual(
                bracket=self.bracket_textual,
                person=self.person,
                text_reference_sep=self.text_reference_sep,
                pre_text_sep=self.pre_text_sep,
                post_text_sep=self.post_text_sep,
            ),
        ]
        # role_style maps each role to the style that formats it (built from styles above)
        self.role_style.update((role, style) for style in lettered for role in style.role_names())


def setup(app) -> dict:
    register_plugin("pybtex.style.labels", "authoryear", AuthorYearLabels)
    register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)
    # sphinxcontrib-bibtex's documented way to add a referencing style
    register_reference_style(
        "sphinxcontrib.bibtex.style.referencing", "author_lettered_year", AuthorLetteredYear
    )
    return {"parallel_read_safe": True, "parallel_write_safe": True}
