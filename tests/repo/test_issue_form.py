"""The bug report form (.github/ISSUE_TEMPLATE), checked offline: GitHub's schema for issue forms,
and the fields the pages' issue button and ``python -m selfattn doctor`` fill."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from _ext.editions.edition_links import EDITIONS
from _ext.theme.issue_button import FORM, PAGE_FIELD
from bookbuild import ROOT
from selfattn.__main__ import parser

TEMPLATES = ROOT / ".github" / "ISSUE_TEMPLATE"


def fields() -> dict[str, dict]:
    """The form's fields by id."""
    body = yaml.safe_load((TEMPLATES / FORM).read_text(encoding="utf-8"))["body"]
    return {field["id"]: field for field in body if "id" in field}


def test_the_forms_match_github_s_schema_for_issue_forms():
    forms = sorted(path for path in TEMPLATES.glob("*.yml") if path.name != "config.yml")
    assert [path.name for path in forms] == [FORM]
    check = str(Path(sys.executable).with_name("check-jsonschema"))
    result = subprocess.run(
        [check, "--builtin-schema", "vendor.github-issue-forms", *map(str, forms)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_page_field_is_the_one_the_issue_button_fills():
    page = fields()[PAGE_FIELD]
    assert page["type"] == "input" and page["validations"]["required"]


def test_the_edition_field_offers_each_edition_by_its_own_name():
    edition = fields()["edition"]
    assert edition["type"] == "dropdown"
    assert edition["attributes"]["options"] == [name for name, _ in EDITIONS.values()]


def test_the_doctor_s_lines_are_asked_for_as_plain_text():
    doctor = fields()["doctor"]
    assert doctor["type"] == "textarea" and doctor["attributes"]["render"] == "text"
    assert "python -m selfattn doctor" in doctor["attributes"]["label"]
    assert parser().parse_args(["doctor"]).command == "doctor", "the command the form names"


def test_the_form_asks_how_the_code_ran_and_what_was_expected():
    asked = fields()
    assert {"how", "what-happened", "expected"} <= asked.keys()
    assert any("Binder" in option for option in asked["how"]["attributes"]["options"])
