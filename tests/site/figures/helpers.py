"""Reading a figure on the figure page: its element, its data, its status line, its numbers."""

from __future__ import annotations

import json

from selfattn.figures import FIGURES

KINDS = [kind for kind, _ in FIGURES]  # every interactive figure, each once on the figure page


def fig(page, kind: str):
    return page.locator(f'.sa-fig[data-kind="{kind}"]')


def data_of(page, kind: str) -> dict:
    return json.loads(fig(page, kind).locator("script.sa-data").text_content())


def status(figure) -> str:
    return figure.locator(".sa-status").inner_text()


def number(text: str) -> float:
    return float(text.replace("\u2212", "-"))


def classes(locator) -> list[list[str]]:
    return locator.evaluate_all("(nodes) => nodes.map((n) => [...n.classList])")
