"""What "Prerequisite concepts" and "From text to vectors" claim, against what the package computes,
and on the built pages."""

from __future__ import annotations

import inspect
import math
import re
import textwrap
from collections import Counter
from pathlib import Path

import pytest
import torch
import torch.nn as nn
import yaml

from bookbuild import ROOT
from selfattn import AttentionLanguageModel, get_batch, gpt2_tokenizer
from selfattn.batches import split_train_val
from selfattn.corpus import load_corpus
from selfattn.data import TINY_SHAKESPEARE, fetch, load_text
from selfattn.models import generate
from selfattn.tokenizers import CharTokenizer
from tests.helpers import chapter, code_blocks, figure_alts, shows_source

TEXT_TO_VECTORS = ROOT / "book" / "text-to-vectors.md"

FLOAT_INDEX_ERROR = (
    "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
    "but got torch.FloatTensor instead"
)


@pytest.fixture(scope="module")
def gpt2():
    return gpt2_tokenizer()


def test_leading_space_and_capitals_change_the_gpt2_token(gpt2):
    variants = {v: gpt2.encode(v) for v in ["Your", " Your", "your", " your"]}
    assert variants == {"Your": [7120], " Your": [3406], "your": [14108], " your": [534]}
    assert gpt2.encode(" journey") == [7002], "with its space, the word is one token"
    assert [gpt2.decode([i]) for i in gpt2.encode("journey")] == ["j", "ourney"], "without it, two"


def test_characters_keep_every_table_row_trained_and_gpt2_does_not(corpus, gpt2):
    char_counts = Counter(corpus.text)
    assert set(char_counts) == set(corpus.tokenizer.chars), "every character of the vocabulary occurs"
    assert sorted(ch for ch, n in char_counts.items() if n < 100) == ["$", "&", "3"]
    book_ids = gpt2.encode(corpus.text)
    gpt2_counts = Counter(book_ids)
    assert len(book_ids) == 338_025
    assert len(gpt2_counts) == 11_706, "most of GPT-2's 50,257 ids never occur in tiny Shakespeare"
    assert sum(n < 5 for n in gpt2_counts.values()) == 7_144


def _two_orders(gpt2) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The token vectors of "The dog bites the man today" and of "The man bites the dog today",
    and the position vectors, drawn as "From text to vectors" draws them."""
    a = gpt2.encode("The dog bites the man today")
    b = gpt2.encode("The man bites the dog today")
    assert a != b and sorted(a) == sorted(b) and a[-1] == b[-1]
    torch.manual_seed(123)  # as the chapter draws its token table, then its position table
    tok_table = nn.Embedding(gpt2.n_vocab, 6)
    tok_a, tok_b = (tok_table(torch.tensor(ids)).detach() for ids in (a, b))
    torch.manual_seed(123)
    pos = nn.Embedding(6, 6)(torch.arange(6)).detach()
    return tok_a, tok_b, pos


def weighted_sum(x: torch.Tensor) -> torch.Tensor:
    """The chapter's barest weighted sum: shares from each row's match with the last row."""
    return torch.softmax(x @ x[-1], dim=0) @ x


def gap(u: torch.Tensor, v: torch.Tensor) -> float:
    """The largest difference, entry by entry, signs dropped."""
    return (u - v).abs().max().item()


def test_an_average_cannot_tell_word_order_and_positions_let_a_weighted_sum_tell_it(gpt2):
    tok_a, tok_b, pos = _two_orders(gpt2)
    assert gap(tok_a.mean(dim=0), tok_b.mean(dim=0)) < 1e-6, "the same tokens, the same average"
    assert gap((tok_a + pos).mean(dim=0), (tok_b + pos).mean(dim=0)) < 1e-6, "positions move both alike"
    assert gap(weighted_sum(tok_a), weighted_sum(tok_b)) < 1e-6, "weights from the vectors alone"
    assert gap(weighted_sum(tok_a + pos), weighted_sum(tok_b + pos)) > 1e-2, "with positions, they differ"


def test_reading_the_file_gives_the_corpus_and_its_vocabulary(corpus):
    with open(fetch(TINY_SHAKESPEARE), encoding="utf-8") as f:
        text = f.read()
    assert text == corpus.text == load_text()
    assert sorted(set(text)) == corpus.tokenizer.chars


# The package's code that "From text to vectors" shows only in part: (object, first line, last
# line), as its literalinclude's :start-at: and :end-at: pick them.
EXCERPTS = [
    (AttentionLanguageModel.forward, "T = idx.shape[1]", "x = tok_emb + pos_emb"),
    (generate, "# crop to the context window", "idx_cond = idx[:, -model.block_size :]"),
]


def _excerpt(obj, first: str, last: str) -> str:
    """The lines of ``obj``'s source from the one holding ``first`` to the next holding ``last``,
    flush left: what literalinclude shows with ``:pyobject:``, ``:start-at:``, ``:end-at:`` and
    ``:dedent:``."""
    lines = inspect.getsource(obj).splitlines()
    start = next(i for i, line in enumerate(lines) if first in line)
    end = next(i for i, line in enumerate(lines) if i >= start and last in line)
    return textwrap.dedent("\n".join(lines[start : end + 1]))


def test_text_to_vectors_excerpts_pick_unique_lines_of_the_package():
    pattern = (
        r"```\{literalinclude\} \.\./code/selfattn/(\w+)\.py\n:pyobject: ([\w.]+)\n"
        r":start-at: (.+)\n:end-at: (.+)\n:dedent: (\d+)\n"
    )
    found = re.findall(pattern, TEXT_TO_VECTORS.read_text(encoding="utf-8"))
    # MyST reads a directive's options as YAML: a quoted value is the text inside the quotes
    picked = [
        (module, name, yaml.safe_load(start), yaml.safe_load(end)) for module, name, start, end, _ in found
    ]
    assert picked == [
        (obj.__module__.rsplit(".", 1)[1], obj.__qualname__, first, last) for obj, first, last in EXCERPTS
    ]
    for (obj, first, last), (*_, dedent) in zip(EXCERPTS, found, strict=True):
        lines = inspect.getsource(obj).splitlines()
        assert [sum(text in line for line in lines) for text in (first, last)] == [1, 1], obj.__qualname__
        start = next(i for i, line in enumerate(lines) if first in line)
        end = next(i for i, line in enumerate(lines) if last in line)
        assert 0 < start <= end < len(lines) - 1, f"{obj.__qualname__}: a part, not the whole"
        indent = min(len(line) - len(line.lstrip()) for line in lines[start : end + 1] if line.strip())
        assert indent == int(dedent), f"{obj.__qualname__}: :dedent: makes the excerpt flush left"


# --- the built pages ------------------------------------------------------------------------------------


def _number_after(text: str, phrase: str) -> float:
    match = re.search(re.escape(phrase) + r"\s*(-?[\d,]+(?:\.\d+)?(?:e-?\d+)?)", text)
    assert match, f"the page says {phrase!r} followed by a number"
    return float(match.group(1).replace(",", ""))


def _printed(path: Path, label: str) -> str:
    """What the one cell that prints ``label`` shows after it, in its own output."""
    blocks = code_blocks(path)
    cells = [i for i, block in enumerate(blocks) if f'print("{label}"' in block]
    assert len(cells) == 1, f"one cell prints {label!r}"
    output = blocks[cells[0] + 1] if cells[0] + 1 < len(blocks) else ""
    values = [line[len(label) :].strip() for line in output.splitlines() if line.startswith(f"{label} ")]
    assert len(values) == 1, f"the output of the cell that prints {label!r} shows it once:\n{output}"
    return values[0]


# What each check in "From text to vectors" prints, as the prose around it says: calling the
# embedding is indexing its table, the two sentences are the same tokens, X is tok + pos, the
# file's distinct characters are the tokenizer's vocabulary, yb is xb moved by one.
TEXT_TO_VECTORS_CHECKS = {
    "token_embedding(ids) equals token_embedding.weight[ids]:": "True",
    "same tokens:": "True",
    "X[0] equals tok[0] + pos[0]:": "True",
    "every entry:": "True",
    "the same as the corpus's tokenizer:": "True",
    "yb is xb moved one to the left:": "True",
}


@pytest.mark.book
def test_prerequisites_page_shows_its_computed_numbers_and_errors(built_book):
    path, text = chapter(built_book, "prerequisites")
    assert "become 0.659, 0.242 and 0.099." in text
    assert "[4, 5, 6] is 32." in text
    assert "5 × 3 = 15 parameters" in text and "plus 2 biases = 8." in text
    assert _number_after(text, "a chance of") == pytest.approx(0.024, abs=1e-3)
    for message in [
        "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)",
        "at non-singleton dimension 1",
        "shape '[5, 2]' is invalid for input of size 12",
        "(4x5 and 3x2)",
    ]:
        assert message in text
    assert _number_after(text, "doubled the gradient (ratio") == 2.0
    with_zero_grad = _number_after(text, "instead of")
    without = _number_after(text, "ends at a loss of")
    assert without > 10 * with_zero_grad, "forgetting zero_grad visibly hurts"
    alts = figure_alts(path)
    assert len(alts) == 9 and all(len(alt) > 40 for alt in alts), "every figure has real alt text"


@pytest.mark.book
def test_text_to_vectors_page_shows_ids_errors_and_numbers(built_book, corpus):
    path, text = chapter(built_book, "text-to-vectors")
    megabytes, lines = len(corpus.text.encode("utf-8")) / 1e6, corpus.text.count("\n")
    assert f"one plain text file of about {megabytes:.1f} MB: {lines:,} lines" in text
    assert "[7120, 7002, 4940, 351, 530, 2239]" in text
    assert '"Your" is token 7120' in text
    assert "vocabulary of 50,257 tokens" in text
    assert "That is the whole vocabulary: 65 symbols" in text
    assert "62 of the 65 characters occur at least 100 times" in text
    assert "use only 11,706 different ids, 7,144 of them fewer than five times: 38,551 rows" in text
    assert "4,225 numbers for characters, 2,525,766,049 for GPT-2's vocabulary" in text
    assert FLOAT_INDEX_ERROR in text
    assert "IndexError: index out of range in self" in text
    assert "asks the model for 32 predictions" in text
    # the averages and the weighted sum without positions agree up to rounding; with them, not
    for same in ["largest difference:", "keeps the largest difference:", "plain average, with positions:"]:
        assert _number_after(text, same) < 1e-6, same
    assert _number_after(text, "weighted sum, no positions:") < 1e-6
    assert _number_after(text, "weighted sum, with positions:") > 0.01
    assert _number_after(text, "the two weighted sums differ, by up to") > 0.01
    alts = figure_alts(path)
    assert len(alts) == 4 and all(len(alt) > 40 for alt in alts)


@pytest.mark.book
def test_text_to_vectors_checks_print_what_the_chapter_says_they_print(built_book):
    path, _ = chapter(built_book, "text-to-vectors")
    shown = {label: _printed(path, label) for label in TEXT_TO_VECTORS_CHECKS}
    assert shown == TEXT_TO_VECTORS_CHECKS


@pytest.mark.book
def test_text_to_vectors_page_shows_the_data_preparation_as_the_package_has_it(built_book, corpus):
    path, text = chapter(built_book, "text-to-vectors")
    shown = [CharTokenizer, load_corpus, split_train_val, get_batch]
    assert [obj.__qualname__ for obj in shown if not shows_source(path, obj)] == []
    blocks = [block.strip() for block in code_blocks(path)]
    excerpts = [(obj, _excerpt(obj, first, last).strip()) for obj, first, last in EXCERPTS]
    assert [obj.__qualname__ for obj, excerpt in excerpts if excerpt not in blocks] == []
    whole = [load_text, AttentionLanguageModel.forward, generate]
    assert [obj.__qualname__ for obj in whole if shows_source(path, obj)] == [], "only the lines it explains"
    assert any('with open(path, encoding="utf-8") as f:' in block for block in blocks)
    assert any("chars = sorted(set(text))" in block for block in blocks)
    share = len(corpus.train) / (len(corpus.train) + len(corpus.val))
    assert f"The first {share:.0%} of the ids, {len(corpus.train):,} of them, are for training." in text
    assert text.index("class CharTokenizer") < text.index("That is the whole vocabulary")
    assert text.index("def load_corpus") < text.index("def split_train_val") < text.index("def get_batch")


def _fit_line(zero_grad: bool) -> list[float]:
    """The losses of the chapter's line fit: its data, its model, its 60 steps of SGD at 0.1."""
    data_gen = torch.Generator().manual_seed(0)
    x = torch.linspace(-1, 1, 20).unsqueeze(1)
    y = 2 * x + 1 + 0.2 * torch.randn(20, 1, generator=data_gen)
    torch.manual_seed(0)
    line = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(line.parameters(), lr=0.1)
    losses = []
    for _ in range(60):
        loss = nn.functional.mse_loss(line(x), y)
        if zero_grad:
            optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


@pytest.mark.book
def test_prerequisites_quick_questions_answer_with_the_computed_numbers(built_book):
    _, text = chapter(built_book, "prerequisites")
    # the hand-made table's chances along each sentence: the, cat/dog, sat, on, the, mat, .
    p_cat, p_dog = math.prod([0.4, 0.6, 0.5, 1.0, 0.2, 1.0]), math.prod([0.4, 0.3, 0.5, 1.0, 0.2, 1.0])
    assert p_dog == pytest.approx(p_cat / 2)
    assert f"{p_dog:.3f}, half as much." in text
    cat, dog = torch.tensor([0.9, 0.1]), torch.tensor([0.85, 0.2])
    cosines = [nn.functional.cosine_similarity(cat, d, dim=0).item() for d in (dog, 2 * dog)]
    assert f"{cosines[0]:.3f}" == f"{cosines[1]:.3f}"
    assert f"{cosines[1]:.3f}, the same as before." in text
    lin = nn.Linear(32, 16)
    shape, weight = tuple(lin(torch.zeros(4, 8, 32)).shape), tuple(lin.weight.shape)
    n_params = sum(p.numel() for p in lin.parameters())
    assert shape == (4, 8, 16) and weight == (16, 32) and n_params == 32 * 16 + 16
    assert f"{shape}: the layer changes only the last axis" in text
    assert f"It holds {n_params} parameters: a weight of shape {weight}" in text
    with_it, without = _fit_line(zero_grad=True), _fit_line(zero_grad=False)
    assert without[-1] > with_it[-1]
    assert (
        f"After {len(with_it)} steps the loss was {without[-1]:.3f} without zero_grad, "
        f"against {with_it[-1]:.3f} with it"
    ) in text
    shares = torch.softmax(torch.tensor([2.0, 1.0, 0.1]), dim=-1).tolist()
    assert "give the shares {:.3f}, {:.3f} and {:.3f}.".format(*shares) in text
    doubled = torch.softmax(torch.tensor([4.0, 2.0, 0.2]), dim=-1)[0].item()
    assert doubled > shares[0]
    assert f"sharper: the largest share grows to {doubled:.3f}" in text


@pytest.mark.book
def test_text_to_vectors_quick_questions_answer_with_the_computed_numbers(built_book, corpus, gpt2):
    _, text = chapter(built_book, "text-to-vectors")
    chars, n_vocab = corpus.tokenizer.vocab_size, gpt2.n_vocab
    unused = n_vocab - len(set(gpt2.encode(corpus.text)))
    assert (
        f"A bigram table holds {chars * chars:,} numbers for the {chars} characters but "
        f"{n_vocab * n_vocab:,} for GPT-2's vocabulary, and {unused:,} of GPT-2's ids never occur"
    ) in text
    tok_a, tok_b, pos = _two_orders(gpt2)
    assert gap(tok_a.mean(dim=0), tok_b.mean(dim=0)) < 1e-6
    assert f"the two differ by up to {gap(weighted_sum(tok_a + pos), weighted_sum(tok_b + pos)):.3f}" in text
    xb, yb = get_batch(corpus.train, 4, 8, torch.Generator().manual_seed(1337))
    assert xb.shape == yb.shape == (4, 8)
    assert f"Both are {tuple(xb.shape)}, that is (B, T)" in text
    assert f"so the batch asks for {xb.numel()} predictions at once" in text
    torch.manual_seed(1337)
    model = AttentionLanguageModel(chars, block_size=8)
    with torch.no_grad():
        logits, _ = model(torch.zeros((1, 5), dtype=torch.long))
        with pytest.raises(IndexError):
            model(torch.zeros((1, 9), dtype=torch.long))
    assert tuple(logits.shape) == (1, 5, chars)
    assert f"(1, 5, vocab_size): one sequence, five positions, and {logits.shape[-1]} scores at each" in text
