"""Each page's issue button opens the book's bug report form with the page filled in.

The theme's button (``use_issues_button`` in ``_config.yml``) opens a blank issue titled with the
page's name. The book's form, ``.github/ISSUE_TEMPLATE/bug.yml``, asks for what a report needs
(the page, the edition, how the code ran, ``python -m selfattn doctor``'s lines). GitHub opens a
form named by the ``template`` query parameter, and fills a field of it from the parameter named
by the field's ``id``: "If provided, the ``id`` is the canonical identifier for the field in URL
query parameter prefills" (GitHub Docs, "Syntax for GitHub's form schema"). So the button links
to ``<repository>/issues/new?template=bug.yml&page=<the page's address>&title=...`` in both
editions, and the address of a page of the Chinese edition (``zh/``) says which edition it is.
The form's edition field is a dropdown, which the link leaves alone: GitHub's documentation says
nothing of filling a dropdown from a link, and one filled that way is reported to open a blank
issue instead of the form.

sphinx-book-theme makes its header buttons in ``html-page-context`` at priority 501, into the
page's ``header_buttons``; this runs after it and changes the issue button's link alone, so the
button keeps the theme's icon, text and translations ("创建议题"). A build whose theme makes no
such button while ``use_issues_button`` is on stops, rather than publish buttons that open a blank
issue; ``tests/site/test_issue_button.py`` reads the built pages' links.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from _ext.editions.edition_links import EDITIONS

FORM = "bug.yml"  # in .github/ISSUE_TEMPLATE
PAGE_FIELD = "page"  # the form's field for the page, by its id
THEME_BUTTON = "source-issues-button"  # the label sphinx-book-theme gives its issue button
AFTER_THE_THEME = 600  # html-page-context priority: the theme adds its buttons at 501


def page_path(language: str | None, pagename: str) -> str:
    """The page's path within the site (``zh/book/x.html`` in the Chinese edition)."""
    folder = EDITIONS.get(language or "en", EDITIONS["en"])[1]
    return f"{folder}{pagename}.html"


def form_url(repository: str, site: str, language: str | None, pagename: str) -> str:
    """The link that opens the form of ``repository`` (its URL) for ``pagename`` of the edition in
    ``language``, the page's field filled with its address on ``site`` (its path, without a site)."""
    path = page_path(language, pagename)
    page = site.rstrip("/") + "/" + path if site else path
    query = {"template": FORM, PAGE_FIELD: page, "title": f"Issue on page /{path}"}
    return f"{repository.rstrip('/')}/issues/new?{urlencode(query, safe='/:', quote_via=quote)}"


def _every_button(buttons: list[dict]) -> Iterator[dict]:
    """The header's buttons, and those inside its groups."""
    for button in buttons:
        yield button
        yield from _every_button(button.get("buttons", []))


def _point_at_form(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    options = app.config.html_theme_options
    if str(options.get("use_issues_button")).lower() != "true":
        return
    if "header_buttons" not in context:  # a builder without the theme's header (the EPUB's)
        return
    found = [b for b in _every_button(context["header_buttons"]) if b.get("label") == THEME_BUTTON]
    if not found:
        raise ExtensionError(
            f"{pagename}: the theme made no {THEME_BUTTON!r} header button to point at the issue form "
            f"(_ext/theme/issue_button.py): check the installed sphinx-book-theme"
        )
    url = form_url(options["repository_url"], app.config.html_baseurl, app.config.language, pagename)
    for button in found:
        button["url"] = url


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", _point_at_form, priority=AFTER_THE_THEME)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
