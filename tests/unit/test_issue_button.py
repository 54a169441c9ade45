"""The pages' issue button opens the book's bug report form with the page filled in, in both editions."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import pytest
from sphinx.errors import ExtensionError

from _ext.theme import issue_button
from _ext.theme.issue_button import FORM, PAGE_FIELD, THEME_BUTTON, form_url
from bookbuild import ROOT
from tests.helpers import issue_links

REPOSITORY = "https://github.com/selfattn-book/self-attention-from-scratch"
SITE = "https://selfattn-book.github.io/self-attention-from-scratch/"


def opened(url: str) -> tuple[str, dict[str, str]]:
    """The page a link opens, and its query, one value a parameter."""
    parts = urlsplit(url)
    query = parse_qs(parts.query, strict_parsing=True)
    assert all(len(values) == 1 for values in query.values()), query
    return f"{parts.scheme}://{parts.netloc}{parts.path}", {name: values[0] for name, values in query.items()}


@pytest.mark.parametrize(
    ("language", "address"),
    [
        (None, f"{SITE}book/attention.html"),
        ("en", f"{SITE}book/attention.html"),
        ("zh_CN", f"{SITE}zh/book/attention.html"),
    ],
)
def test_the_link_opens_the_form_with_the_page_of_its_edition(language, address):
    page, query = opened(form_url(REPOSITORY, SITE, language, "book/attention"))
    assert page == f"{REPOSITORY}/issues/new"
    assert query == {
        "template": FORM,
        PAGE_FIELD: address,
        "title": "Issue on page /" + address.removeprefix(SITE),
    }


def test_without_a_site_the_page_is_named_by_its_path():
    assert opened(form_url(REPOSITORY + "/", "", "zh_CN", "index"))[1][PAGE_FIELD] == "zh/index.html"


def app(use_issues_button=True, language="zh_CN") -> SimpleNamespace:
    options = {"repository_url": REPOSITORY, "use_issues_button": use_issues_button}
    return SimpleNamespace(
        config=SimpleNamespace(html_theme_options=options, html_baseurl=SITE, language=language)
    )


def theme_buttons() -> list[dict]:
    """The header's buttons as sphinx-book-theme makes them: the source buttons in a group."""
    issue = {"type": "link", "url": f"{REPOSITORY}/issues/new?title=x&body=y", "label": THEME_BUTTON}
    repository = {"type": "link", "url": REPOSITORY, "label": "source-repository-button"}
    return [{"type": "group", "label": "source-buttons", "buttons": [repository, issue]}]


def test_the_theme_s_issue_button_is_pointed_at_the_form_and_nothing_else_changes():
    context = {"header_buttons": theme_buttons()}
    issue_button._point_at_form(app(), "book/attention", "page.html", context, None)
    repository, issue = context["header_buttons"][0]["buttons"]
    assert issue["url"] == form_url(REPOSITORY, SITE, "zh_CN", "book/attention")
    assert repository == theme_buttons()[0]["buttons"][0]


def test_a_theme_without_the_issue_button_stops_the_build():
    with pytest.raises(ExtensionError, match=THEME_BUTTON):
        issue_button._point_at_form(app(), "index", "page.html", {"header_buttons": []}, None)
    off = {"header_buttons": theme_buttons()}
    issue_button._point_at_form(app(use_issues_button=False), "index", "page.html", off, None)
    assert off == {"header_buttons": theme_buttons()}, "the button left as the theme made it when it is off"
    issue_button._point_at_form(app(), "index", "page.html", {}, None)  # a builder without the header


def test_a_site_built_with_the_theme_links_its_issue_button_to_the_form(tmp_path):
    """The installed sphinx-book-theme's button, in a small site, as ``_config.yml`` configures it."""
    (tmp_path / "conf.py").write_text(
        "html_theme = 'sphinx_book_theme'\n"
        "extensions = ['_ext.theme.issue_button']\n"
        f"html_baseurl = {SITE!r}\n"
        f"html_theme_options = {{'repository_url': {REPOSITORY!r}, 'use_repository_button': True,"
        " 'use_edit_page_button': True, 'use_issues_button': True}\n"
    )
    (tmp_path / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n   book/attention\n")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "attention.rst").write_text("Attention\n=========\n\nA page.\n")
    out = tmp_path / "html"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(tmp_path), str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    page = (out / "book" / "attention.html").read_text(encoding="utf-8")
    assert issue_links(page) == [form_url(REPOSITORY, SITE, "en", "book/attention")]
