"""The built site: a strict build, and pages that show what the code computed."""

from __future__ import annotations

import inspect

from conftest import code_blocks, page_text
from selfattn import BigramLanguageModel, TrainConfig, fit


def test_bigram_chapter_shows_the_numbers_its_code_computes(built_book):
    text = page_text(built_book / "book" / "bigram.html")
    model, history = fit("bigram", TrainConfig())
    assert abs(history.final_val - 2.49) < 0.02
    assert f"settles at {history.final_val:.3f}" in text
    assert "4,225" in text
    assert "Traceback" not in text
    source = inspect.getsource(BigramLanguageModel).strip()
    assert any(block.strip() == source for block in code_blocks(built_book / "book" / "bigram.html")), (
        "the page shows the package's BigramLanguageModel source, unchanged"
    )
