"""The built site and the crawl of it that the site tests share, each made once a session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.site.crawl import PageReport, crawl_site
from tools.serve import serve


@pytest.fixture(scope="session")
def site(request) -> Path:
    """The built site: SELFATTN_SITE if set, else a fresh strict build of the book."""
    override = os.environ.get("SELFATTN_SITE")
    if override:
        return Path(override)
    return request.getfixturevalue("built_book")


@pytest.fixture(scope="session")
def server(site):
    with serve(site) as site_server:
        yield site_server


@pytest.fixture(scope="session")
def crawl(site, server, browser) -> dict[str, PageReport]:
    """One visit to every page of the site (``crawl_site``), shared by the site tests."""
    return crawl_site(site, server, browser)
