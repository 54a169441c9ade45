"""The PDF editions as ``make book`` builds them (``built_pdfs``), with the tools that read them.

What holds for both editions is tested on both (``edition``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pdf.reading import checked


@pytest.fixture(scope="module")
def pdf(built_pdfs) -> Path:
    return checked(built_pdfs["en"])


@pytest.fixture(scope="module")
def pdf_zh(built_pdfs) -> Path:
    return checked(built_pdfs["zh_CN"])


@pytest.fixture(scope="module", params=["pdf", "pdf_zh"])
def edition(request) -> Path:
    """Each PDF edition in turn: the English, then the Chinese."""
    return request.getfixturevalue(request.param)
