"""No number is typed into a chapter's prose or alt text where code could compute it.

The scan reads each chapter's source as a reader reads the page: it skips code cells, code
blocks, inline code, math and every role (``{glue:text}`` values come from executed cells), and
keeps headings, paragraphs, captions and alt texts. A number found there must be one of:

- a counting word: a whole number below 10 ("row 0", "3 blocks");
- a value the code states: a literal in the chapter's own code cells (the reader sees it there,
  and changing the code without the prose fails here), or in the package's run definitions
  (``selfattn.runs``, ``selfattn.config``, ``selfattn.toy``, ``selfattn.batches``);
- a published figure in ``CITED``, each with where it comes from.

Anything else, a measured loss, a time or a count, belongs in a ``glue`` from an executed cell.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bookbuild import ROOT

BOOK = ROOT / "book"
RUN_DEFINITIONS = [
    ROOT / "code" / "selfattn" / name for name in ("runs.py", "config.py", "toy.py", "batches.py")
]

# Published figures the book cites, not computes: the text next to each names its source.
CITED = {
    "GPT-2": "the model's name",
    "A4": "the PDF's paper size",
    "2.28": "the lecture's reported val loss for four heads (many-heads)",
    "2.24": "the lecture's reported val loss with a feed-forward layer (feed-forward)",
    "2.08": "the lecture's reported val loss with residual connections (going-deep)",
    "2.06": "the lecture's reported val loss with LayerNorm (going-deep)",
    "1.48": "the lecture's reported val loss for its GPU-scale GPT (small-gpt)",
    "10.8": "the lecture's GPT's parameter count, in millions (small-gpt)",
    "124": "GPT-2 small's parameter count as released, in millions (small-gpt)",
    "355": "GPT-2 medium's parameter count as released, in millions (small-gpt)",
    "774": "GPT-2 large's parameter count as released, in millions (small-gpt)",
    "1,558": "GPT-2 XL's parameter count as released, in millions (small-gpt)",
    "117": "GPT-2 small's parameter count in the GPT-2 paper, in millions (small-gpt)",
    "345": "GPT-2 medium's parameter count in the GPT-2 paper, in millions (small-gpt)",
    "762": "GPT-2 large's parameter count in the GPT-2 paper, in millions (small-gpt)",
    "1,542": "GPT-2 XL's parameter count in the GPT-2 paper, in millions (small-gpt)",
    "3,072": "GPT's feed-forward width, from its paper (feed-forward)",
    "5.4": "the section of the transformer paper on its dropout (dropout)",
    "50,257": "GPT-2's vocabulary size",
    "1,024": "GPT-2's context length and GPT-2 medium's width",
    "768": "GPT-2 small's width",
    "12": "GPT-2 small's layers",
    "1,280": "GPT-2 large's width",
    "1,600": "GPT-2 XL's width",
    "24": "GPT-2 medium's layers",
    "36": "GPT-2 large's layers",
    "48": "GPT-2 XL's layers",
    "0.8": "nanoGPT's sample.py default temperature (sampling)",
    "4,096": "Mistral 7B's attention window, and the longest context attention-cost measures",
    "200": "nanoGPT's sample.py default top_k (sampling)",
    "0.95": "nanoGPT's train.py default beta2 (training-well)",
    "16": "bfloat16's and float16's width in bits (beyond-one-machine, glossary)",
    "250": "nanoGPT's README: milliseconds per iteration before torch.compile (beyond-one-machine)",
    "135": "nanoGPT's README: milliseconds per iteration with torch.compile (beyond-one-machine)",
    "1.4697": "nanoGPT's README: best val loss of its Shakespeare run on one A100 (beyond-one-machine)",
    "3.1": "Llama 3.1, the model's name (attention-cost)",
    "1.2": "CTRL's repetition penalty, from its paper (sampling)",
    "2.49": "the lecture's bigram.py: its val loss at its last evaluation (attention-model)",
    "2.41": "one head's val loss in the lecture's code and tutorials built on it (attention-model)",
    "1.46": "Llama 3.1's model card: millions of H100 hours to train the 8B model (beyond-one-machine)",
    "30.84": "Llama 3.1's model card: millions of H100 hours to train the 405B model (beyond-one-machine)",
    "405": "Llama 3.1's largest model, in billions of parameters (beyond-one-machine)",
    "25": "DDP's default bucket size in MB, from its paper (beyond-one-machine)",
    "11": "TF32's significant bits (10 stored), from NVIDIA's format (beyond-one-machine)",
    "80": "the memory of the largest A100 and H100 GPUs, in GB (beyond-one-machine)",
    "40": "the size of GPT-2's training text, WebText, in GB, from its paper (byte-pairs)",
    "618": "the first year of the Tang dynasty (tang-poems)",
    "907": "the last year of the Tang dynasty (tang-poems)",
    "1950": "the decade China's character simplification began, the 1950s (tang-poems)",
}

FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\{[^}]*\})?")
# Fenced blocks whose body is code or data, not prose.
NOT_PROSE = ("", "{code-cell}", "{literalinclude}", "{code-block}", "{code}", "{math}", "{raw}", "{glue}")
OPTION = re.compile(r"^\s*:([\w-]+):\s?")
INLINE = [
    re.compile(r"<!--.*?-->"),
    re.compile(r"\{[\w:-]+\}`[^`]*`"),  # roles: {glue:text}`name`, {ref}`label`, {term}`word` ...
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"\$\$.*?\$\$|\$[^$]*\$"),  # math
    re.compile(r"\]\([^)]*\)"),  # a link's address
    re.compile(r"^\(\S+\)=$"),  # a label
]
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?%?")
LITERAL = re.compile(r"(?<![\w.])\d[\d_]*(?:\.\d+)?(?:e-?\d+)?")


def prose_lines(source: str) -> list[tuple[int, str]]:
    """(line number, text) of every line a reader reads as prose, caption or alt text."""
    lines = source.split("\n")
    start = lines.index("---", 1) + 1 if lines[0] == "---" else 0
    fences: list[tuple[str, bool]] = []  # open fences: (marker, body is prose)
    kept = []
    for number, line in enumerate(lines[start:], start + 1):
        match = FENCE.match(line.strip())
        if match and fences and line.strip() == fences[-1][0]:
            fences.pop()
            continue
        if match and (not fences or fences[-1][1]):
            directive = match.group(2) or ""
            fences.append((match.group(1), directive not in NOT_PROSE))
            continue
        if fences and not fences[-1][1]:
            continue
        option = OPTION.match(line)
        if option and option.group(1) != "alt":
            continue
        text = OPTION.sub("", line) if option else line
        for pattern in INLINE:
            text = pattern.sub(" ", text)
        kept.append((number, text))
    return kept


def code_cells(source: str) -> str:
    """The text of a chapter's code cells."""
    return "\n".join(re.findall(r"^```\{code-cell\}[^\n]*\n(.*?)^```", source, flags=re.S | re.M))


def values(text: str, pattern: re.Pattern) -> set[float]:
    """The numbers written in ``text``: 5,000 and 5_000 are 5000, 90% is also 0.9."""
    found = set()
    for token in pattern.findall(text):
        number = float(token.rstrip("%").replace(",", "").replace("_", ""))
        found.add(number)
        if token.endswith("%"):
            found.add(number / 100)
    return found


RUN_VALUES = set().union(*(values(path.read_text(), LITERAL) for path in RUN_DEFINITIONS))


def typed_numbers(path: Path) -> list[str]:
    """Each number in the chapter's prose that nothing computes or holds, with its line."""
    source = path.read_text(encoding="utf-8")
    stated = RUN_VALUES | values(code_cells(source), LITERAL)
    found = []
    for number, text in prose_lines(source):
        for token in NUMBER.findall(re.sub(r"GPT-2|\bA4\b", " ", text)):
            token = token.rstrip(",")
            if token in CITED:
                continue
            value = values(token, NUMBER)
            if value & stated or (value < {10.0, *range(10)} and "." not in token):
                continue
            found.append(f"{path.name}:{number}: {token!r} in {' '.join(text.split())[:120]!r}")
    return found


CHAPTERS = sorted(BOOK.glob("*.md"))


@pytest.mark.parametrize("path", CHAPTERS, ids=[path.stem for path in CHAPTERS])
def test_no_number_in_prose_is_typed(path):
    typed = typed_numbers(path)
    assert not typed, "typed numbers (glue them from a cell, or cite them in CITED):\n" + "\n".join(typed)


def test_the_scan_finds_a_typed_number_and_skips_code_math_and_glue():
    source = """---
front: 1
---
# A chapter

The loss fell to 2.41 in 12 seconds, at $\\ln 65 = 4.17$, see {glue:text}`loss:.2f` and `x[3.5]`.

```{code-cell} ipython3
max_iters = 5000
```

```{figure} a.png
:name: fig-7
:alt: A curve that falls from 4.2 to 2.4.

Caption with 5,000 steps.
```
"""
    lines = prose_lines(source)
    text = " ".join(t for _, t in lines)
    assert "2.41" in text and "12" in text and "4.2 to 2.4" in text and "5,000" in text
    assert "4.17" not in text and "x[3.5]" not in text and "loss:.2f" not in text
    assert "max_iters" not in text and "fig-7" not in text and "front" not in text
    assert values(code_cells(source), LITERAL) == {5000.0}
