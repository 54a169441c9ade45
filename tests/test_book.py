"""The built site: a strict build, and pages that show what the code computed."""

from __future__ import annotations

from conftest import page_text, shows_source
from selfattn import BIGRAM, BigramLanguageModel, fit


def test_bigram_chapter_shows_the_numbers_its_code_computes(built_book):
    text = page_text(built_book / "book" / "bigram.html")
    model, history = fit("bigram", BIGRAM)
    assert abs(history.final_val - 2.49) < 0.02
    assert f"settles at {history.final_val:.3f}" in text
    assert "4,225" in text
    assert "Traceback" not in text
    assert shows_source(built_book / "book" / "bigram.html", BigramLanguageModel), (
        "the page shows the package's BigramLanguageModel source, unchanged"
    )
