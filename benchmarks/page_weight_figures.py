"""Bytes the interactive figures add to each built page: their script, their data, their markup.

Every figure output carries its data (JSON) and a copy of the shared figure script (with its
stylesheet inside); the browser runs the first copy and skips the rest. So a page pays the
script once per figure in raw bytes, and close to once after compression.

    python benchmarks/page_weight_figures.py [PATH ...]     # built pages or folders; default _build/html
    python benchmarks/page_weight_figures.py --figures      # the eight figures of the reference models

Prints one row per page (or per figure) that holds figures.
"""

from __future__ import annotations

import argparse
import gzip
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURE = re.compile(r'<figure class="sa-fig".*?</figure>', re.S)
DATA = re.compile(r'<script type="application/json" class="sa-data">(.*?)</script>', re.S)
CODE = re.compile(r"<script data-selfattn-figures>(.*?)</script>", re.S)
PART = re.compile(f"{FIGURE.pattern}|{CODE.pattern}", re.S)


@dataclass(frozen=True)
class PageWeight:
    """Bytes (UTF-8) of the figures on one page."""

    figures: int
    code: int  # every copy of the script
    code_unique: int  # one copy of each distinct script
    data: int  # the embedded JSON
    markup: int  # the figures' own elements, without their data
    gzipped: int  # all of the above in page order, gzip-compressed as a server would send it

    @property
    def total(self) -> int:
        return self.code + self.data + self.markup


def size(text: str) -> int:
    return len(text.encode("utf-8"))


def measure(html: str) -> PageWeight:
    """The figure bytes in one page's HTML."""
    figures = FIGURE.findall(html)
    data = [m for f in figures for m in DATA.findall(f)]
    code = CODE.findall(html)
    return PageWeight(
        figures=len(figures),
        code=sum(map(size, code)),
        code_unique=sum(map(size, set(code))),
        data=sum(map(size, data)),
        markup=sum(map(size, figures)) - sum(map(size, data)),
        gzipped=len(gzip.compress("".join(m.group(0) for m in PART.finditer(html)).encode())),
    )


def pages(paths: list[Path]) -> list[Path]:
    found = []
    for path in paths:
        found += sorted(path.rglob("*.html")) if path.is_dir() else [path]
    return found


def print_table(rows: list[tuple[str, PageWeight]]) -> None:
    header = (
        f"{'':<34}{'figures':>8}{'code':>10}{'(1 copy)':>10}{'data':>10}{'markup':>9}{'total':>10}{'gzip':>9}"
    )
    print(header)
    for name, w in rows:
        print(
            f"{name:<34}{w.figures:>8}{w.code:>10,}{w.code_unique:>10,}{w.data:>10,}{w.markup:>9,}"
            f"{w.total:>10,}{w.gzipped:>9,}"
        )


def reference_figures() -> list[tuple[str, PageWeight]]:
    """The eight figures built from the reference models (about a minute of training)."""
    import torch

    from selfattn import ATTENTION, BIGRAM, fit, get_batch, load_corpus, make_model
    from selfattn.figures import (
        batch_grid,
        before_after,
        context_window,
        heatmap_steps,
        mixing_values,
        score_table,
        shape_walk,
        training_curve,
    )
    from selfattn.toy import run_toy

    corpus = load_corpus()
    model, history = fit("attention", ATTENTION)
    _, bigram = fit("bigram", BIGRAM)
    initial = make_model("attention", corpus.tokenizer.vocab_size, ATTENTION)
    xb, _ = get_batch(corpus.train, 4, 8, torch.Generator().manual_seed(1337))
    toy = run_toy()
    figures = [
        context_window(corpus.text[:9]),
        batch_grid(corpus, model),
        shape_walk(model, xb, corpus.tokenizer),
        score_table(model, corpus.tokenizer, "First Ci"),
        mixing_values(model, corpus.tokenizer, "First Ci"),
        training_curve(history, bigram),
        before_after(initial, model),
        heatmap_steps([(s, toy.losses[s], w) for s, w in sorted(toy.snapshots.items())], toy.tokens),
    ]
    rows = [(f.kind, measure(f.to_html())) for f in figures]
    return rows + [("all eight on one page", measure("".join(f.to_html() for f in figures)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[ROOT / "_build" / "html"])
    parser.add_argument("--figures", action="store_true", help="measure the eight reference figures instead")
    args = parser.parse_args()
    if args.figures:
        print_table(reference_figures())
        return
    rows = []
    for page in pages(args.paths):
        weight = measure(page.read_text(encoding="utf-8"))
        if weight.figures:
            rows.append((str(page.relative_to(page.parents[1])), weight))
    if rows:
        print_table(rows)
    else:
        print("No page with interactive figures under", ", ".join(map(str, args.paths)))


if __name__ == "__main__":
    main()
