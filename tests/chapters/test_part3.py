"""What "Watching attention learn", "Recap" and "Exercises" show, and the references they cite,
checked against the package's runs on the built pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from selfattn.anatomy import stages
from selfattn.toy import SNAPSHOT_STEPS, run_toy, untrained_toy
from tests.helpers import JOURNEY, YOUR, chapter, figure_alts, shows_source

pytestmark = pytest.mark.book


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


def _says(text: str, claim: str) -> bool:
    """Whether the page says ``claim``, ignoring spaces (a glued value is a span of its own)."""
    return claim.replace(" ", "") in text.replace(" ", "")


def _printed_tensor(text: str, label: str) -> torch.Tensor:
    """The numbers of ``print(label, tensor)`` on a page."""
    match = re.search(re.escape(label) + r" tensor\(\[([^\]]*)\]\)", text)
    assert match, f"the page prints {label!r} followed by a tensor"
    return torch.tensor([float(n) for n in match.group(1).split(",")])


def test_the_untrained_head_by_hand_is_the_toys_head_before_training(built_book, toy_run):
    path, text = chapter(built_book, "watching-attention-learn")
    assert shows_source(path, untrained_toy) and shows_source(path, run_toy) and shows_source(path, stages)
    toy = untrained_toy()
    T, C = toy.x.shape
    hs = toy.query.out_features
    assert _says(text, f"T = {T}, C = {C}, head size = {hs}")
    wei, out = toy.attend()  # (T, T), (T, C)
    assert torch.equal(wei, toy_run.snapshots[0]), "training starts from the head the walk-through shows"
    assert not toy.config.causal

    # one query by hand: dot products with the weight's rows, and the layer itself
    x = toy.x[JOURNEY]
    by_hand = (toy.query.weight * x).sum(dim=1)  # (hs,): each row of the weight times x, added up
    with torch.no_grad():
        q = toy.query(toy.x)  # (T, hs)
        v = toy.value(toy.x)  # (T, C)
    assert torch.allclose(by_hand, q[JOURNEY], atol=1e-6)
    for label in ("by hand:", "query(x):", "query:"):
        assert torch.allclose(_printed_tensor(text, label), q[JOURNEY], atol=1e-4)
    assert text.count("the same: True") == 2 and "the same weights as the head's: True" in text

    # the weights are not all 1/T: near even in the row of journey, far from it in the row of Your
    with torch.no_grad():
        s = stages(toy, toy.x, causal=False)
    spread = s.scaled.max(dim=1).values - s.scaled.min(dim=1).values  # (T,)
    ratio = wei.max(dim=1).values / wei.min(dim=1).values  # (T,)
    assert torch.allclose(ratio, spread.exp()), "softmax: a score gap d is a weight ratio e^d"
    assert ratio[JOURNEY] < 2 < 10 < ratio[YOUR] and int(spread.argmax()) == YOUR
    assert _says(text, f"an even share of {1 / T:.2f}? No. They range")
    assert _says(text, f"They range from {wei.min():.2f} to {wei.max():.2f}.")
    assert _says(text, f"nearly even, between {wei[JOURNEY].min():.2f} and {wei[JOURNEY].max():.2f};")
    assert _says(text, f'the row of "Your" runs from {wei[YOUR].min():.2f} to {wei[YOUR].max():.2f}.')
    assert _says(text, f"within {spread[JOURNEY]:.2f} of each other")
    assert _says(text, f"only {ratio[JOURNEY]:.1f} times its smallest")
    assert _says(text, f"span {spread[YOUR]:.2f}, a ratio of {ratio[YOUR]:.0f}.")
    x_len, q_len = toy.x.norm(dim=1), q.norm(dim=1)
    assert int(x_len.argmin()) == JOURNEY and int(x_len.argmax()) == YOUR and (q_len < x_len).all()
    shortest = f"has the shortest ({x_len[JOURNEY]:.2f}) and gets a query of length {q_len[JOURNEY]:.2f};"
    assert _says(text, shortest)
    assert _says(text, f"longest ({x_len[YOUR]:.2f}) and gets {q_len[YOUR]:.2f}.")
    assert _says(text, f"scores lie between {s.scaled.min():.2f} and {s.scaled.max():.2f}:")
    bound = C**-0.5
    assert _says(text, f"here ±{bound:.2f})")
    assert max(toy.query.weight.abs().max(), toy.key.weight.abs().max()) < bound
    # what the figures' alt texts say in words
    alts = " ".join(figure_alts(path))
    assert "journey is nearly even, while in the row of Your some weights are many times larger" in alts
    assert ratio[JOURNEY] < 2 and ratio[YOUR] > 10 and "none close to 1" in alts and wei.max() < 0.5

    # the zoom: the output of journey is the weighted sum of the values
    weighted_sum = sum(w * v[j] for j, w in enumerate(wei[JOURNEY].tolist()))
    assert torch.allclose(weighted_sum, out[JOURNEY], atol=1e-6)
    assert torch.allclose(_printed_tensor(text, "weights:"), wei[JOURNEY], atol=1e-4)
    for label in ("output by hand:", "head's output:"):
        assert torch.allclose(_printed_tensor(text, label), out[JOURNEY], atol=1e-4)


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
