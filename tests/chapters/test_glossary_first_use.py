"""Every glossary term is explained where a reader first meets it: read in the table of contents'
order, the first use of each term in the prose is a ``{term}`` link to the glossary, the word
set in italics or bold where its sentence defines it, or followed in its sentence by a link to the
chapter or section that explains it (the introduction's tour of the parts). Code, headings,
captions' options and the "In this chapter you will" boxes (a preview of the page that explains
the word) are not prose here. The Chinese edition keeps each link and emphasis (its catalogs'
markup check)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import yaml

from bookbuild import ROOT

PREVIEW = "{admonition} In this chapter you will"
PROSE_DIRECTIVES = {
    "{figure}",
    "{glue:figure}",
    "{admonition}",
    "{note}",
    "{tip}",
    "{warning}",
    "{important}",
}
PROSE_DIRECTIVES |= {"{exercise}", "{solution}", "{margin}", "{seealso}", "{dropdown}", "{caution}", "{hint}"}
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
LINKS = {"doc", "ref", "numref"}


@dataclass(frozen=True)
class Use:
    """Where a term is first met, and how: ``term`` (a glossary link), ``defined`` (emphasised
    where its sentence defines it), ``linked`` (a link to where it is explained follows in the
    sentence) or ``plain``."""

    term: str
    doc: str
    line: int
    how: str
    text: str


def glossary_terms() -> list[str]:
    """The glossary's terms and their aliases, in its order."""
    source = (ROOT / "book/glossary.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\{glossary\}\n(.*?)```", source, re.S)
    return [line for block in blocks for line in block.splitlines() if line and not line.startswith(" ")]


def reading_order() -> list[str]:
    """The pages a reader reads, as ``book/name``, in the table of contents' order (the glossary
    and the references are where terms are explained and cited, not used)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages = [toc["root"]] + [entry["file"] for part in toc["parts"] for entry in part["chapters"]]
    return [page for page in pages if page not in ("book/glossary", "book/references")]


def prose(source: str) -> Iterator[tuple[int, str]]:
    """The source's prose paragraphs (a list item is one) with the number of their first line:
    no front matter, code, directive options, headings, targets, comments, display maths or
    preview boxes."""
    fence, skipping, preview = "", False, False
    paragraph: list[str] = []
    first = 0
    lines = source.splitlines()
    start = lines.index("---", 1) + 1 if lines and lines[0] == "---" else 0
    for number, line in enumerate([*lines[start:], ""], start + 1):
        text = line.strip()
        opening = re.match(r"^(`{3,}|~{3,})\s*(\S*)", text)
        if fence and text == fence:
            fence = ""
            text = ""
        elif fence and skipping:
            continue
        elif not fence and opening:
            fence, skipping = opening.group(1), opening.group(2) not in PROSE_DIRECTIVES
            text = ""
        elif not fence and text.startswith(":::"):
            preview = text[3:].startswith(PREVIEW)
            text = ""
        elif preview or re.match(r"^(:[\w-]+:|#|\(.*\)=$|\+\+\+|<!--|%|\$\$)", text):
            text = ""
        if paragraph and (not text or re.match(r"^([-*]|\d+\.) ", text)):
            yield first, " ".join(paragraph)
            paragraph = []
        if text:
            first = first if paragraph else number
            paragraph.append(text)


def word(term: str) -> re.Pattern[str]:
    """The term as a whole word, plural allowed; case counts for names written with capitals or
    underscores (``LayerNorm``, ``block_size``)."""
    stem = re.escape(term)
    forms = f"(?:{stem}|{re.escape(term[:-1])}ies)" if term.endswith("y") else stem
    exact = term != term.lower() or "_" in term
    return re.compile(rf"(?<![\w-]){forms}(?:s|es)?(?![\w-])", 0 if exact else re.I)


def how_used(term: str, line: str, start: int, end: int) -> str | None:
    """How the term at ``line[start:end]`` is used, or None where it is not prose (code, maths, a
    role that is not a glossary link)."""
    for role in ROLE.finditer(line):
        if role.start() <= start < role.end():
            return "term" if role.group(1) == "term" else None
    before, after = line[:start], line[end:]
    if before.count("$") % 2 or ("_" not in term and before.count("`") % 2):
        return None
    if re.search(r"(?<![\w*])\*{1,2}(?:[^*\s][^*]*)?$", before) and re.match(r"[^*]*\*", after):
        return "defined"
    sentence = re.split(r"(?<=[.;:?!])\s", after, maxsplit=1)[0]
    if any(role.group(1) in LINKS for role in ROLE.finditer(sentence)):
        return "linked"
    return "plain"


def first_uses(pages: dict[str, str], terms: list[str]) -> dict[str, Use]:
    """Each term's first use in the pages (name to source, in reading order); a term never used
    (an alias the prose does not write) is absent."""
    found: dict[str, Use] = {}
    patterns = {term: word(term) for term in terms}
    for doc, source in pages.items():
        for number, line in prose(source):
            for term, pattern in patterns.items():
                if term in found:
                    continue
                for match in pattern.finditer(line):
                    how = how_used(term, line, match.start(), match.end())
                    if how:
                        found[term] = Use(term, doc, number, how, line.strip())
                        break
    return found


def test_every_glossary_term_is_explained_where_it_is_first_used():
    pages = {doc: (ROOT / f"{doc}.md").read_text(encoding="utf-8") for doc in reading_order()}
    uses = first_uses(pages, glossary_terms())
    plain = [
        f"{use.term!r}: {use.doc}.md:{use.line}: {use.text}" for use in uses.values() if use.how == "plain"
    ]
    assert not plain, "first used with no {term} link, definition or link:\n" + "\n".join(plain)


def test_the_check_sees_a_term_met_before_it_is_explained():
    terms = ["query", "key", "softmax", "block_size"]
    later = "Its *query* asks; a {term}`key <key>` answers.\n"
    first = {"a": "# Queries\n\nEach token has a query.\n", "b": later}
    assert first_uses(first, terms)["query"] == Use("query", "a", 3, "plain", "Each token has a query.")
    assert first_uses({"a": later}, terms)["query"].how == "defined"
    assert first_uses({"a": later}, terms)["key"].how == "term"
    tour = {"a": "It ends with softmax ({doc}`prerequisites`). Then softmax again.\n"}
    assert first_uses(tour, terms)["softmax"].how == "linked"
    assert first_uses({"a": "Softmax. It ends ({doc}`prerequisites`).\n"}, terms)["softmax"].how == "plain"
    code = "```{code-cell} ipython3\nquery = key\n```\n"
    hidden = code + ":::{admonition} In this chapter you will\n- a query\n:::\n"
    assert first_uses({"a": hidden + "`query` and $key$, then a query.\n"}, terms)["query"].line == 7
    assert "key" not in first_uses({"a": hidden}, terms)
    assert first_uses({"a": "Take `block_size` ids.\n"}, terms)["block_size"].how == "plain"
    assert first_uses({"a": "Two queries.\n"}, terms)["query"].how == "plain"
