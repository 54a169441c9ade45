"""Where the book's files are: the repository's root, its config, and each edition's PDF and EPUB
as the build leaves them. The extensions read them here, and so does the build (``bookbuild``
imports them from here: the extensions need nothing of the build)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "_config.yml"
SETTINGS = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
# PDF_NAME: the PDF editions' file name, as latex_documents' targetname names it; EPUB_NAME: the
# EPUB editions', as epub_basename does.
PDF_NAME = Path(SETTINGS["latex"]["latex_documents"]["targetname"])
EPUB_NAME = Path(f"{SETTINGS['sphinx']['config']['epub_basename']}.epub")


def pdf_build(language: str) -> Path:
    """The folder the PDF edition in ``language`` ("en", "zh_CN") is built into.

    A folder of its own, with doctrees of their own: the LaTeX extension changes a setting
    (``numfig_secnum_depth``) that the sites' builds read too, so with the site's doctrees each
    build would find the other's and read every chapter again.
    """
    return ROOT / "_build" / f"pdf-{language}"


def built_pdf(language: str) -> Path:
    """The PDF edition in ``language`` as ``make pdf`` leaves it."""
    return pdf_build(language) / "_build" / "latex" / PDF_NAME.with_suffix(".pdf").name


def epub_build(language: str) -> Path:
    """The folder the EPUB edition in ``language`` is built into: one of its own, as a PDF
    edition's, so that its build and the site's never find each other's doctrees."""
    return ROOT / "_build" / f"epub-{language}"


def built_epub(language: str) -> Path:
    """The EPUB edition in ``language`` as ``make epub`` leaves it."""
    return epub_build(language) / "_build" / "epub" / EPUB_NAME.name
