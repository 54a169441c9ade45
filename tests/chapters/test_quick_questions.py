"""Every chapter of Parts I and II ends with three to five quick questions, after its summary, each
with one answer (``_ext/content/quick_questions.py``). What each answer says is held by its
chapter's test, which computes the answer's numbers again and finds them in the built page."""

from __future__ import annotations

import re

import pytest

from bookbuild import ROOT
from tests.helpers import part_chapters

HEADING = "## Quick questions"
QUESTION = re.compile(r"^::::\{question\}\n(.*?)^::::$", re.S | re.M)


def question_problems(source: str) -> list[str]:
    """What is wrong with a chapter's quick questions: the section missing, not after the
    summary or not last, too few or too many questions, or a question without one answer."""
    if HEADING not in source.splitlines():
        return [f"no {HEADING!r} section"]
    section = source[source.index(HEADING) :]
    problems = []
    if "## Summary" in source and source.index("## Summary") > source.index(HEADING):
        problems.append("the questions come before the summary")
    if re.search(r"^#{1,2} ", section[len(HEADING) :], re.M):
        problems.append("a section follows the questions")
    questions = QUESTION.findall(section)
    if not 3 <= len(questions) <= 5:
        problems.append(f"{len(questions)} questions, not three to five")
    for number, body in enumerate(questions, 1):
        if (
            not re.fullmatch(r"\S.*?\n\n:::\{answer\}\n\S.*?\n:::\n", body, re.S)
            or body.count(":::{answer}") != 1
        ):
            problems.append(f"question {number}: not its text, a blank line, then one answer")
    return problems


@pytest.mark.parametrize("docname", part_chapters("Part I:", "Part II:"))
def test_a_chapter_ends_with_quick_questions_each_answered(docname):
    problems = question_problems((ROOT / f"{docname}.md").read_text(encoding="utf-8"))
    assert not problems, f"{docname}.md: " + "; ".join(problems)


def test_the_check_sees_missing_misplaced_and_unanswered_questions():
    one = "::::{question}\nWhy?\n\n:::{answer}\nBecause.\n:::\n::::\n"
    good = f"## Summary\n\n- a point\n\n{HEADING}\n\n{one}\n{one}\n{one}"
    assert question_problems(good) == []
    assert question_problems("## Summary\n") == ["no '## Quick questions' section"]
    assert "before the summary" in question_problems(f"{HEADING}\n\n{one * 3}\n## Summary\n")[0]
    assert "a section follows" in question_problems(good + "\n## More\n")[0]
    assert "2 questions" in question_problems(good.replace(one, "", 1))[0]
    assert "6 questions" in question_problems(good + one * 3)[0]
    unanswered = good.replace(":::{answer}\nBecause.\n:::\n", "", 1)
    assert question_problems(unanswered) == ["question 1: not its text, a blank line, then one answer"]
