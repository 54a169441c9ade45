"""The built pages' issue buttons open the book's bug report form with their own page filled in, in
both editions (``_ext/theme/issue_button.py``)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import yaml

from _ext.theme.issue_button import FORM, PAGE_FIELD, form_url
from bookbuild import ROOT
from tests.helpers import issue_links
from tools import page_downloads

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
REPOSITORY, SITE = CONFIG["repository"]["url"], CONFIG["html"]["baseurl"]


def test_every_page_s_issue_button_opens_the_form_for_that_page(built_book):
    problems, chapters = [], {"": 0, "zh/": 0}
    for path in page_downloads.site_pages(built_book):
        name = path.relative_to(built_book).as_posix()
        edition = "zh/" if name.startswith("zh/") else ""
        language = "zh_CN" if edition else "en"
        wanted = form_url(REPOSITORY, SITE, language, name.removeprefix(edition).removesuffix(".html"))
        links = issue_links(path.read_text(encoding="utf-8"))
        if links != [wanted]:
            problems.append(f"{name}: {links}, not [{wanted}]")
        chapters[edition] += name.startswith(f"{edition}book/")
    assert all(chapters.values()), f"the chapters of both editions are read: {chapters}"
    assert not problems, "pages whose issue button does not open the form:\n" + "\n".join(problems)


def test_a_chinese_page_s_button_names_its_page_in_the_chinese_edition(built_book):
    (link,) = issue_links((built_book / "zh" / "book" / "intro.html").read_text(encoding="utf-8"))
    query = parse_qs(urlsplit(link).query)
    assert link.startswith(f"{REPOSITORY}/issues/new?")
    assert query["template"] == [FORM] and query[PAGE_FIELD] == [f"{SITE}zh/book/intro.html"]
