"""What "Watching attention learn", "Recap" and "Exercises" show, and the references they cite,
checked against the package's runs on the built pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from selfattn.toy import SNAPSHOT_STEPS
from tests.helpers import JOURNEY, chapter

pytestmark = pytest.mark.slow


def test_watching_attention_learn_prints_what_the_toy_runs_print(built_book, toy_run, masked_toy_run):
    path, text = chapter(built_book, "watching-attention-learn")
    assert "journey attends to: Your journey starts with one step" in text
    for step in SNAPSHOT_STEPS:
        row = " ".join(f"{w:.2f}" for w in toy_run.snapshots[step][JOURNEY].tolist())
        assert f"step {step} loss {toy_run.losses[step]:.4f} {row}" in text
    assert f"falls from {toy_run.losses[0]:.4f} to {toy_run.final_loss:.1e}" in text
    assert f"the loss stops at {masked_toy_run.final_loss:.3f}" in text
    assert "every weight on a future token is exactly 0: True" in text
    assert "ConfigError: learning_rate=-0.1" in text
    html = path.read_text(encoding="utf-8")
    for name in ("fig-toy-snapshots", "fig-toy-journey", "fig-toy-masked", "fig-toy-losses"):
        assert f'id="{name}"' in html
    assert 'href="references.html#' in html, "citations link to the bibliography"


def test_recap_labels_the_diagram_with_measured_shapes(built_book):
    path, text = chapter(built_book, "recap")
    assert 'id="fig-recap-pipeline"' in path.read_text(encoding="utf-8")
    for shape in ("(32, 8)", "(32, 8, 32)", "(32, 8, 8)", "(32, 8, 65)"):
        assert shape in text
    assert "same logits and loss as model(xb, yb): True" in text
    assert "7,553" in text


def test_every_exercise_has_an_executed_solution_right_after_it(built_book):
    path, _ = chapter(built_book, "exercises")
    html = path.read_text(encoding="utf-8")
    blocks = re.findall(r'<div class="(exercise|solution dropdown)[^"]* admonition" id="([^"]+)"', html)
    kinds = [kind for kind, _ in blocks]
    assert len(kinds) >= 18
    assert kinds == ["exercise", "solution dropdown"] * (len(kinds) // 2)
    solutions = re.split(r'<div class="solution dropdown admonition"', html)[1:]
    for solution in solutions:
        body = re.split(r'<div class="exercise[^"]* admonition"', solution)[0]
        assert "cell_output" in body, "each solution shows the output of its code"


def exercises(page: Path) -> list[tuple[list[str], str]]:
    """Each exercise on a built page: its classes, and its HTML up to the next exercise or the
    next heading (the exercise, then its solution)."""
    html = page.read_text(encoding="utf-8")
    found = []
    for piece in re.split(r'(?=<div class="exercise[^"]* admonition")', html)[1:]:
        classes = re.match(r'<div class="([^"]*)"', piece).group(1).split()
        found.append((classes, re.split(r"<h[1-6]\b", piece)[0]))
    return found


def test_the_book_has_19_exercises_with_solutions_and_6_ask_for_code(built_book):
    """Every exercise in the book is followed by its solution with executed output; the ones that
    ask the reader to write code carry the class ``write-code`` and say "Write code"."""
    total, write_code = 0, 0
    for page in sorted((built_book / "book").glob("*.html")):
        for classes, html in exercises(page):
            total += 1
            exercise, _, solution = html.partition('<div class="solution dropdown admonition"')
            assert solution, f"{page.name}: an exercise without its solution right after it"
            assert "cell_output" in solution, f"{page.name}: a solution without executed output"
            if "write-code" in classes:
                write_code += 1
                assert "Write code." in reader_text_of(exercise), f"{page.name}: unmarked in words"
    assert total >= 19
    assert write_code >= 6


def reader_text_of(html: str) -> str:
    """A piece of a page as its reader sees it: tags removed, whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_references_list_the_works_cited(built_book):
    _, text = chapter(built_book, "references")
    for title in ("Attention is all you need", "Adam: a method for stochastic optimization"):
        assert title in text
