"""Every chapter of Parts I to IV ends its teaching with the one idea a beginner should keep: one
paragraph that starts ``**In one sentence:**``, the first of the chapter's ``## Summary`` where
it has one, above its list, and with no digits in it (a number in prose comes from an executed cell, and this
sentence is the chapter's idea, not its measurements)."""

from __future__ import annotations

import re

import pytest

from bookbuild import ROOT
from tests.helpers import part_chapters

MARKER = "**In one sentence:**"
SUMMARY = "## Summary"
PARTS = ("Part I:", "Part II:", "Part III:", "Part IV:")


def sentence_problems(source: str) -> list[str]:
    """What is wrong with the source's one-sentence paragraph: missing or repeated, not a paragraph
    of its own, holding a digit, or not the first paragraph under ``## Summary`` when there is one."""
    lines = source.splitlines()
    count = source.count(MARKER)
    if count != 1:
        return [f"{count} paragraphs with {MARKER}, not one"]
    start = next(i for i, line in enumerate(lines) if MARKER in line)
    if not lines[start].startswith(MARKER) or (start and lines[start - 1].strip()):
        return [f"{MARKER} does not start a paragraph of its own (line {start + 1})"]
    end = start
    while end + 1 < len(lines) and lines[end + 1].strip():
        end += 1
    problems = []
    paragraph = " ".join(lines[start : end + 1])
    if re.search(r"\d", paragraph):
        problems.append(f"a digit in the sentence: {paragraph!r}")
    if SUMMARY in lines:
        between = lines[lines.index(SUMMARY) + 1 : start]
        if lines.index(SUMMARY) > start or any(line.strip() for line in between):
            problems.append(f"the sentence (line {start + 1}) is not the first paragraph under {SUMMARY}")
    return problems


@pytest.mark.parametrize("docname", part_chapters(*PARTS))
def test_a_chapter_ends_with_its_one_sentence(docname):
    problems = sentence_problems((ROOT / f"{docname}.md").read_text(encoding="utf-8"))
    assert not problems, f"{docname}.md: " + "; ".join(problems)


def test_the_check_sees_a_missing_misplaced_or_numbered_sentence():
    good = f"Text.\n\n{SUMMARY}\n\n{MARKER} Attention mixes the values\nof the past.\n\n- a point\n"
    assert sentence_problems(good) == []
    assert sentence_problems(f"Text.\n\n{MARKER} No summary here.\n") == []
    assert "0 paragraphs" in sentence_problems(f"Text.\n\n{SUMMARY}\n")[0]
    assert "2 paragraphs" in sentence_problems(good + f"\n{MARKER} Again.\n")[0]
    assert "own" in sentence_problems(f"{SUMMARY}\nText\n{MARKER} Glued on.\n")[0]
    assert "digit" in sentence_problems(good.replace("the past", "8 positions"))[0]
    early = f"{MARKER} Too early.\n\nMore text.\n\n{SUMMARY}\n"
    assert "not the first paragraph" in sentence_problems(early)[0]
    late = f"{SUMMARY}\n\n- a point\n\n{MARKER} Below the list.\n"
    assert "not the first paragraph" in sentence_problems(late)[0]
