"""Quick questions at the end of a chapter, answered on a click on the site and at the back of the PDF.

A chapter writes each question as a ``{question}`` block holding the question's text and one
``{answer}`` block::

    ::::{question}
    What shape do the logits have?

    :::{answer}
    `(B, T, vocab_size)`: one score per character, at every position of every sequence.
    :::
    ::::

On the site a question is a box titled "Question N" (numbered in its chapter) and its answer sits
in a ``<details>`` element, shown when the reader clicks "Answer": it works with no script. The
PDF prints the questions where they are and gathers the answers in a chapter at the back, "Answers
to the quick questions", under each chapter's title, so a reader tries first and checks after: just
before the page ``quick_questions_answers_before`` names (the book's glossary), or last. The
titles' words are the edition's (``_ext.editions.translation.say``); the questions and answers are
the chapter's own text, extracted and translated with it.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective
from sphinx.writers.html5 import HTML5Translator

from _ext.editions.translation import say


class question(nodes.Admonition, nodes.Element):
    """A quick question: an admonition titled "Question N", its answer inside."""


class answer(nodes.General, nodes.Element):
    """The answer to the question it sits in."""


class QuestionDirective(SphinxDirective):
    """``{question}``: the question's text, then exactly one ``{answer}``."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        node = question(classes=["admonition", "quick-question"], docname=self.env.docname)
        self.set_source_info(node)
        self.state.nested_parse(self.content, self.content_offset, node)
        answers = [child for child in node.children if isinstance(child, answer)]
        if len(answers) != 1 or node.children[-1] is not answers[0] or len(node.children) < 2:
            raise self.error("a {question} holds its text, then one {answer} block, last")
        return [node]


class NumberQuestions(SphinxTransform):
    """Number a chapter's questions from one and title each "Question N"."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        for number, node in enumerate(self.document.findall(question), 1):
            node["number"] = number
            node["ids"] = [f"quick-question-{number}"]
            title = say(self.config.language, "Question {number}", number=number)
            node.insert(0, nodes.title(title, title))  # no source: the edition's words, not a message


class AnswerDirective(SphinxDirective):
    """``{answer}``: the answer, inside its ``{question}``."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        node = answer()
        self.set_source_info(node)
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def visit_answer_html(self: HTML5Translator, node: answer) -> None:
    words = say(self.builder.config.language, "Answer")
    self.body.append(f'<details class="quick-answer"><summary>{self.encode(words)}</summary>\n')


def depart_answer_html(self: HTML5Translator, node: answer) -> None:
    self.body.append("</details>\n")


def visit_question(self: Any, node: question) -> None:
    self.visit_admonition(node)


def depart_question(self: Any, node: question) -> None:
    self.depart_admonition(node)


def skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


class AnswersAtTheBack(SphinxPostTransform):
    """PDF: take every answer out of its question and print them all in one chapter at the back,
    each under its chapter's title and its question's number."""

    default_priority = 900
    builders = ("latex",)

    def run(self, **kwargs: Any) -> None:
        answers = list(self.document.findall(answer))
        if not answers:
            return
        language = self.config.language
        words = say(language, "Answers to the quick questions")
        back = nodes.section("", nodes.title(words, words), ids=["quick-question-answers"])
        chapter = None
        for node in answers:
            asked = node.parent
            if asked["docname"] != chapter:
                chapter = asked["docname"]
                title = self.env.titles[chapter].astext()
                back += nodes.rubric(title, title)
            node.parent.remove(node)
            for link in node.findall(nodes.reference):  # a link within its page: name the page
                uri = link.get("refuri", "")
                if link.get("refid") and not uri:
                    link["refuri"] = f"%{chapter}#{link['refid']}"
                elif uri.startswith("#"):
                    link["refuri"] = f"%{chapter}{uri}"
            label = say(language, "Question {number}", number=asked["number"])
            entry = nodes.paragraph("", "", nodes.strong(label, label))
            back += entry
            back += node.children
        before = self.config.quick_questions_answers_before
        pages = [page for page in self.document.findall(addnodes.start_of_file) if page["docname"] == before]
        if pages:
            pages[0].parent.insert(pages[0].parent.index(pages[0]), back)
        else:
            self.document += back


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(question, html=(visit_question, depart_question), latex=(visit_question, depart_question))
    app.add_node(answer, html=(visit_answer_html, depart_answer_html), latex=(skip, None))
    app.add_directive("question", QuestionDirective)
    app.add_directive("answer", AnswerDirective)
    app.add_transform(NumberQuestions)
    app.add_post_transform(AnswersAtTheBack)
    app.add_config_value("quick_questions_answers_before", None, "env", types=[str, type(None)])
    return {"parallel_read_safe": True, "parallel_write_safe": True}
