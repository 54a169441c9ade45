"""A PDF build that fails says LaTeX's errors, not only that it failed (latexmk runs silent)."""

from __future__ import annotations

import subprocess

import pytest

from bookbuild.build import latex_errors


@pytest.mark.tex
def test_a_failed_latex_run_shows_each_error_and_its_source_line(tmp_path):
    tex = tmp_path / "broken.tex"
    tex.write_text("\\documentclass{article}\n\\begin{document}\nHello \\undefinedmacro\n\\end{document}\n")
    subprocess.run(
        ["latexmk", "-pdf", "-xelatex", "-silent", tex.name], cwd=tmp_path, capture_output=True, check=False
    )
    said = latex_errors(tmp_path / "broken.log")
    assert "! Undefined control sequence.\nl.3 Hello \\undefinedmacro" in said
    assert "never \\def'ed" not in said, "the error and its line, not TeX's help text"


def test_without_a_log_it_says_where_the_log_should_be(tmp_path):
    assert str(tmp_path / "missing.log") in latex_errors(tmp_path / "missing.log")
