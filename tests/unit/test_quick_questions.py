"""Quick questions: numbered per chapter, answered behind a click on the site, and answered at the
back of the PDF, in each edition's words; a question without its answer stops the build."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from bookbuild import ROOT

CONF = (
    "extensions = ['myst_parser', '_ext.content.quick_questions']\n"
    "myst_enable_extensions = ['colon_fence']\n"
    "project = 'quiz'\n"
)
FIRST = """# First chapter

(sec-a)=
## A section

::::{question}
What shape do the logits have?

:::{answer}
`(B, T, 65)`: see {ref}`sec-a`.
:::
::::

::::{question}
Is softmax's output a distribution?

:::{answer}
Yes: it is positive and sums to one.
:::
::::

```{toctree}
second
```
"""
SECOND = """# Second chapter

(sec-b)=
## The mask

::::{question}
Does the mask look ahead?

:::{answer}
Never, as {ref}`sec-b` shows.
:::
::::
"""


def build(
    folder: Path, builder: str, first: str = FIRST, language: str = "en", conf: str = ""
) -> subprocess.CompletedProcess[str]:
    (folder / "conf.py").write_text(CONF + f"language = {language!r}\n" + conf)
    (folder / "index.md").write_text(first)
    (folder / "second.md").write_text(SECOND)
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "-b", builder, str(folder), str(folder / builder)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_the_site_numbers_each_chapters_questions_and_hides_each_answer_behind_a_click(tmp_path):
    result = build(tmp_path, "html")
    assert result.returncode == 0, result.stderr
    first = (tmp_path / "html" / "index.html").read_text()
    second = (tmp_path / "html" / "second.html").read_text()
    assert re.findall(
        r'id="quick-question-(\d)">\s*<p class="admonition-title">Question (\d)</p>', first
    ) == [
        ("1", "1"),
        ("2", "2"),
    ]
    assert '<p class="admonition-title">Question 1</p>' in second, "each chapter counts from one"
    answers = re.findall(
        r'<details class="quick-answer"><summary>Answer</summary>\s*<p>(.*?)</p>', first, re.S
    )
    assert len(answers) == 2 and "Yes: it is positive" in answers[1]
    assert 'href="#sec-a"' in answers[0], "an answer's references resolve"


def test_the_pdf_asks_in_place_and_answers_at_the_back(tmp_path):
    result = build(tmp_path, "latex")
    assert result.returncode == 0, result.stderr
    tex = (tmp_path / "latex" / "quiz.tex").read_text()
    body, back = tex.split(r"\chapter{Answers to the quick questions}")
    assert body.count(r"\begin{sphinxadmonition}{note}{Question 1}") == 2  # one in each chapter
    assert "What shape" in body and "Does the mask" in body
    assert "positive" not in body and "Never," not in body, "no answer printed beside its question"
    assert (
        back.index("First chapter")
        < back.index("positive")
        < back.index("Second chapter")
        < back.index("Never,")
    )
    # a link to a section of the answer's own page still leads there from the back
    assert r"\hyperref[\detokenize{index:sec-a}]" in back and r"\hyperref[\detokenize{second:sec-b}]" in back
    assert re.findall(r"\\sphinxstylestrong\{(Question \d)\}", back) == [
        "Question 1",
        "Question 2",
        "Question 1",
    ]


def test_the_pdf_can_answer_before_a_page_of_the_back_matter(tmp_path):
    result = build(tmp_path, "latex", conf="quick_questions_answers_before = 'second'\n")
    assert result.returncode == 0, result.stderr
    tex = (tmp_path / "latex" / "quiz.tex").read_text()
    assert tex.index("Answers to the quick questions") < tex.index("Never,") < tex.index("Does the mask")


def test_the_chinese_edition_names_questions_and_answers_in_chinese(tmp_path):
    assert build(tmp_path, "html", language="zh_CN").returncode == 0
    page = (tmp_path / "html" / "index.html").read_text()
    assert '<p class="admonition-title">第 1 题</p>' in page and "<summary>答案</summary>" in page


def test_a_question_without_its_answer_last_stops_the_build(tmp_path):
    unanswered = FIRST.replace(":::{answer}\n`(B, T, 65)`: see {ref}`sec-a`.\n:::\n", "")
    result = build(tmp_path, "html", first=unanswered)
    assert result.returncode != 0
    assert "a {question} holds its text, then one {answer} block, last" in result.stderr
