"""What "Choosing the next character" claims, against what the package computes.

The chapter uses the small GPT of Part IV from the run cache; these tests load the same run and
recompute what the page printed or glued.
"""

from __future__ import annotations

import json
import re

import pytest
import torch

from selfattn import fit, load_corpus
from selfattn.runs import LADDER
from selfattn.sampling import Sampling, distinct_share, real_word_share, words
from tests.helpers import chapter, shows_source

PROMPT = "GLOUCESTER:\nNow is the winter of our "  # the chapter's
pytestmark = pytest.mark.book


@pytest.fixture(scope="module")
def gpt():
    rung = LADDER["small-gpt"]
    model, history = fit(rung.kind, rung.config)
    return model.eval(), history


@pytest.fixture(scope="module")
def page(built_book):
    return chapter(built_book, "sampling")


def test_the_page_shows_the_packages_sampling_code(page):
    path, _ = page
    assert shows_source(path, Sampling.probabilities) and shows_source(path, Sampling.choose)


def test_the_figure_carries_the_small_gpts_scores_for_the_prompt(page, gpt):
    path, _ = page
    model, _ = gpt
    tokenizer = load_corpus().tokenizer
    [data] = re.findall(
        r'data-kind="next-token".*?<script type="application/json" class="sa-data">(.*?)</script>',
        path.read_text(encoding="utf-8"),
        flags=re.S,
    )
    with torch.no_grad():
        logits, _ = model(torch.tensor([tokenizer.encode(PROMPT[-model.block_size :])]))
    assert json.loads(data)["logits"] == [round(x, 4) for x in logits[0, -1].tolist()]


def test_the_glued_distribution_is_the_models(page, gpt):
    _, text = page
    model, _ = gpt
    tokenizer = load_corpus().tokenizer
    with torch.no_grad():
        logits, _ = model(torch.tensor([tokenizer.encode(PROMPT[-model.block_size :])]))
    probs = torch.softmax(logits[0, -1], dim=-1)
    assert f"with probability {probs.max():.2f}" in text
    assert f"{int((probs > 0.01).sum())} characters have a probability above 1%" in text


def test_the_nucleus_is_larger_than_k_where_a_word_starts_and_smaller_after_kin(page, gpt):
    """The two nucleus sizes the page glues, recomputed, on either side of the prose's ``k = 5``."""
    _, text = page
    model, _ = gpt
    tokenizer = load_corpus().tokenizer
    kept = []
    for context in (PROMPT, PROMPT + "kin"):
        with torch.no_grad():
            logits, _ = model(torch.tensor([tokenizer.encode(context[-model.block_size :])]))
        kept.append(int((Sampling(top_p=0.9).probabilities(logits[:, -1, :]) > 0).sum()))
    start, sure = kept
    assert f"the nucleus holds {start} characters where a word starts and {sure} after" in text
    assert "A fixed k cannot do both: k = 5 is too few for the first" in text
    assert sure < 5 < start, "5 is too few where a word starts and more than is needed after 'kin'"


def test_the_tables_plain_sampling_row_is_what_the_package_writes(page, gpt):
    """The row recomputed from eight texts of 300 characters, and the prose's claim about it."""
    _, text = page
    model, history = gpt
    corpus = load_corpus()
    encode, decode = corpus.tokenizer.encode, corpus.tokenizer.decode
    start = torch.tensor([encode(PROMPT)] * 8)  # (8, T)
    ids = model.generate(start, 300, torch.Generator().manual_seed(1337))[:, start.shape[1] :]  # (8, 300)
    texts = [decode(row) for row in ids.tolist()]
    T = model.block_size
    windows = ids.unfold(1, T + 1, T).reshape(-1, T + 1)  # as the page cuts them: (8 * n, T + 1)
    with torch.no_grad():
        _, loss = model(windows[:, :-1], windows[:, 1:])
    real = real_word_share(" ".join(texts), set(words(decode(corpus.train.tolist()))))
    variety = sum(distinct_share(text) for text in texts) / len(texts)
    assert f"plain sampling {real:.1%} {variety:.3f} {loss.item():.3f}" in " ".join(text.split())
    assert abs(loss.item() - history.final_val) < 0.2, "about as surprising as the validation text"
