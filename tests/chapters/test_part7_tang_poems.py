"""What "A GPT that writes Tang poems" shows, against what the package computes.

The page must show the package's own poem code, the poem run's loss, and the poems the run writes
from the chapter's prompts, in both editions alike.
"""

from __future__ import annotations

import pytest
import torch

from selfattn import anatomy, fit, load_corpus, verse
from selfattn.poems import Poem
from selfattn.runs import POEMS
from selfattn.sampling import Sampling
from tests.helpers import chapter, source_shown_wrongly

PAGE = "tang-poems"
SHOWN = [Poem.couplets, anatomy.vocabulary_parameters, verse.attention_from_last_line, verse.write]
EDITIONS = ["", "zh"]
pytestmark = pytest.mark.book


def test_the_page_shows_the_package_s_own_poem_code(built_book):
    assert source_shown_wrongly(built_book, PAGE, SHOWN) == []


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_page_shows_the_run_s_loss_and_the_poems_it_writes(built_book, edition):
    """The chapter's prompts, drawn again here from the published run with the chapter's seed."""
    _, text = chapter(built_book / edition if edition else built_book, PAGE)
    model, history = fit(POEMS.kind, POEMS.config)
    model.eval()
    assert f"{history.final_val:.3f}" in text
    tokenizer = load_corpus(POEMS.config.corpus).tokenizer
    generator = torch.Generator().manual_seed(1337)
    for prompt in ["春", "月", "山"]:
        poem = verse.write(model, tokenizer, prompt, sampling=Sampling(top_p=0.8), generator=generator)
        assert " ".join(poem.split()) in text
