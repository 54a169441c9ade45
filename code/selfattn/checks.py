"""Checkers for the code a reader writes: their function against the book's, on fixed inputs.

Each ``check_*`` runs the reader's function on small seeded tensors, compares its result with the
book's own computation (``Head``, ``anatomy.stages``, ``causal.future_keys``, ``next_token_loss``),
prints one line saying that it matches or where it first differs, and returns a :class:`Verdict`.
A known slip is recognised by running it on the same inputs. Each slip is written once, below, as
the function that makes it and the line that names it and its fix; the chapters' "find the bug"
examples (``buggy_mask``, ``buggy_scores``, ``buggy_weights``, ``buggy_head``, ``buggy_loss``) are
those same functions. ``Head.forward`` keeps a head's steps in one method, where no step can be
swapped, so ``head_with`` writes them once more as steps to swap, for the slipped heads; a test
holds ``head_with()`` equal to ``Head``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn as nn
from torch import Tensor
from torch.nn import functional as F

from selfattn.anatomy import AttentionStages, stages
from selfattn.causal import future_keys
from selfattn.language import say, words
from selfattn.models import Head, next_token_loss

BATCH, CONTEXT, N_EMBD, HEAD_SIZE, VOCAB = 4, 8, 24, 16, 65  # B, T, C, hs and V, as in the chapters
SEED = 1337
RTOL, ATOL = 1e-4, 1e-5  # a reader's own arithmetic may round differently from the book's

Slips = Sequence[tuple[Callable[..., Any], str]]  # each slip's function, and what it did wrong


@dataclass(frozen=True)
class Verdict:
    """What a checker found: ``ok``, and the one line it printed."""

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return self.message

    def _ipython_display_(self) -> None:
        """Show nothing as a cell's value: the checker printed its line already."""


# The slips, each once. A mask is 1 where a position may look, as the book's tril.
def buggy_mask(T: int) -> Tensor:
    """Find the bug: position t should see positions 0 .. t."""
    return torch.triu(torch.ones(T, T))  # (T, T)


def _no_mask(T: int) -> Tensor:
    return torch.ones(T, T)  # (T, T): every position sees every other


def _inverted_mask(T: int) -> Tensor:
    return future_keys(T, T).float()  # (T, T): 1 above the diagonal, where tril is 0


MASK_SLIPS: Slips = (
    (buggy_mask, words("the mask is triu, so each position sees the future, not its past; use tril")),
    (_no_mask, words("nothing is masked, so each position sees the future; hide where tril == 0")),
    (_inverted_mask, words("the mask is inverted, 1 where tril is 0; a position may look where tril is 1")),
)


def buggy_scores(q: Tensor, k: Tensor) -> Tensor:
    """Find the bug: step 5's score table, before the mask."""
    return q @ k.transpose(-2, -1)  # (B, T, hs) @ (B, hs, T) -> (B, T, T)


def _overscaled_scores(q: Tensor, k: Tensor) -> Tensor:
    return q @ k.transpose(-2, -1) / k.shape[-1]  # (B, T, T)


def _transposed_scores(q: Tensor, k: Tensor) -> Tensor:
    return k @ q.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, T): one row per key


SCORE_SLIPS: Slips = (
    (buggy_scores, words("the scores are not scaled; multiply q @ k.transpose(-2, -1) by head_size ** -0.5")),
    (
        _overscaled_scores,
        words("the scores are divided by head_size, not its square root; use head_size ** -0.5"),
    ),
    (_transposed_scores, words("the table is transposed, one row per key; use q @ k.transpose(-2, -1)")),
)


def buggy_weights(wei: Tensor) -> Tensor:
    """Find the bug: the masked scores (B, T, T) into attention weights."""
    return F.softmax(wei, dim=1)  # (B, T, T)


WEIGHT_SLIPS: Slips = (
    (
        buggy_weights,
        words("softmax ran over dim=1, so each column of wei sums to 1; use dim=-1, one row per query"),
    ),
)


def _tril(T: int) -> Tensor:
    return (~future_keys(T, T)).float()  # (T, T): the book's tril


def _scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    return q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, T)


def _row_softmax(wei: Tensor) -> Tensor:
    return F.softmax(wei, dim=-1)  # (B, T, T)


def head_with(
    mask: Callable[[int], Tensor] = _tril,
    scores: Callable[[Tensor, Tensor], Tensor] = _scaled_scores,
    weights: Callable[[Tensor], Tensor] = _row_softmax,
) -> Callable[..., Tensor]:
    """The book's head as ``fn(x, key, query, value) -> out``, with any step swapped for a slip."""

    def head(x: Tensor, key: nn.Module, query: nn.Module, value: nn.Module) -> Tensor:
        q, k, v = query(x), key(x), value(x)  # (B, T, hs) each
        tril = mask(x.shape[1])  # (T, T)
        wei = scores(q, k).masked_fill(tril == 0, float("-inf"))  # (B, T, T)
        return weights(wei) @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)

    return head


buggy_head = head_with(scores=buggy_scores)  # find the bug: a causal head with one step wrong
HEAD_SLIPS: Slips = (
    *[(head_with(mask=slip), says) for slip, says in MASK_SLIPS],
    *[(head_with(scores=slip), says) for slip, says in SCORE_SLIPS],
    *[(head_with(weights=slip), says) for slip, says in WEIGHT_SLIPS],
)


def buggy_loss(logits: Tensor, targets: Tensor) -> Tensor:
    """Find the bug: the cross-entropy of every position; logits (B, T, V), targets (B, T)."""
    B, T, V = logits.shape
    probs = F.softmax(logits, dim=-1)  # (B, T, V)
    return F.cross_entropy(probs.reshape(B * T, V), targets.reshape(B * T))


def _unreshaped_loss(logits: Tensor, targets: Tensor) -> Tensor:
    return F.cross_entropy(logits, targets)  # reads dim 1 of (B, T, V) as the classes


def _summed_loss(logits: Tensor, targets: Tensor) -> Tensor:
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="sum")


LOSS_SLIPS: Slips = (
    (
        buggy_loss,
        words("softmax ran before cross_entropy, which applies its own; pass it the logits themselves"),
    ),
    (_unreshaped_loss, words("cross_entropy takes (B*T, V) logits and (B*T,) targets; reshape both first")),
    (_summed_loss, words("it is the sum over the B*T positions, not their mean; keep cross_entropy's mean")),
)


def _run(fn: Callable[..., Any], inputs: Sequence[Any]) -> Any:
    """What ``fn`` gives on fresh copies of ``inputs`` (tensors and layers): its result, or its error."""
    try:
        with torch.no_grad():
            return fn(*copy.deepcopy(list(inputs)))
    except Exception as error:  # the reader's code: whatever it raises becomes one line
        return error


def _same(got: Any, slip: Any) -> bool:
    """Whether the reader's outcome is a slip's: the same error, or the same tensor."""
    if isinstance(got, Exception) and isinstance(slip, Exception):
        return type(got) is type(slip) and str(got) == str(slip)
    if not (isinstance(got, Tensor) and isinstance(slip, Tensor)):
        return False
    alike = got.shape == slip.shape and got.dtype == slip.dtype
    return alike and torch.allclose(got, slip, RTOL, ATOL, equal_nan=True)


def _difference(name: str, got: Any, want: Tensor) -> str | None:
    """One line on where ``got`` first differs from the book's ``want``; None if it matches."""
    if isinstance(got, Exception):
        first = next(iter(str(got).strip().splitlines()), "")  # torch's messages can run on
        return say(
            "✗ your function raised {error}: {first}", error=type(got).__name__, first=first
        ).removesuffix(": ")
    if not isinstance(got, Tensor):
        if got is None:
            return say("✗ your function returned NoneType, not a tensor: is its return missing?")
        return say("✗ your function returned {kind}, not a tensor", kind=type(got).__name__)
    if got.shape != want.shape:
        return say(
            "✗ {name} has shape {yours}; the book's has {want}",
            name=name,
            yours=tuple(got.shape),
            want=tuple(want.shape),
        )
    if got.dtype != want.dtype:
        return say("✗ {name} is {yours}; the book's is {want}", name=name, yours=got.dtype, want=want.dtype)
    close = torch.isclose(got, want, RTOL, ATOL)  # -inf is close to -inf
    if close.all():
        return None
    at = tuple(close.logical_not().nonzero()[0].tolist())  # the first place, in reading order
    where = f"{name}[{', '.join(map(str, at))}]" if at else name
    nans = int(got.isnan().sum())
    gap = (got - want).abs().masked_fill(close, 0).max().item()
    worst = (
        say("{nans} of yours are nan", nans=nans)
        if nans
        else say("the largest difference is {gap:.3g}", gap=gap)
    )
    yours, book = got[at].item(), want[at].item()
    return say(
        "✗ {where} differs: yours is {yours:.4g}, the book's {book:.4g} ({worst})",
        where=where,
        yours=yours,
        book=book,
        worst=worst,
    )


def _check(
    name: str, fn: Callable[..., Any], inputs: Sequence[Any], want: Tensor, slips: Slips, right: str
) -> Verdict:
    """Run ``fn`` on ``inputs``, name the slip it makes or its first difference, print and return it."""
    got = _run(fn, inputs)
    message = _difference(name, got, want)
    if message is not None:
        raised = isinstance(got, Exception)
        error = type(got).__name__
        failed = (
            say("your function raised {error}", error=error) if raised else say("{name} differs", name=name)
        )
        known = (says for slip, says in slips if _same(got, _run(slip, inputs)))
        message = next((say("✗ {failed}: {why}", failed=failed, why=say(says)) for says in known), message)
    verdict = Verdict(message is None, message or say("✓ {right}", right=right))
    print(verdict)
    return verdict


@torch.no_grad()
def _book_head() -> tuple[Tensor, Head, AttentionStages]:
    """The fixed input x (B, T, C), the head and its stages; the global random state is left as it was."""
    with torch.random.fork_rng():
        torch.manual_seed(SEED)
        head = Head(N_EMBD, HEAD_SIZE, CONTEXT)
        x = torch.randn(BATCH, CONTEXT, N_EMBD)  # (B, T, C)
    return x, head, stages(head, x)


def check_causal_mask(fn: Callable[[int], Tensor]) -> Verdict:
    """Check ``fn(T) -> (T, T)``: 1 or True where position t may look (positions 0 .. t), any dtype."""

    def as_floats(T: int) -> Any:  # True/False or 0/1 of any dtype, as 1.0/0.0
        mask = fn(T)
        return mask.float() if isinstance(mask, Tensor) else mask

    right = say(
        "your mask is the book's tril for T = {T}: each position sees itself and the ones before", T=CONTEXT
    )
    return _check("mask", as_floats, (CONTEXT,), _tril(CONTEXT), MASK_SLIPS, right)


def check_scaled_scores(fn: Callable[[Tensor, Tensor], Tensor]) -> Verdict:
    """Check ``fn(q, k) -> wei``, the scaled scores before the mask: (B, T, hs) each -> (B, T, T)."""
    _, _, st = _book_head()
    right = say(
        "your scores match the book's on {B} sequences of {T} positions, head_size {hs}",
        B=BATCH,
        T=CONTEXT,
        hs=HEAD_SIZE,
    )
    return _check("wei", fn, (st.q, st.k), st.scaled, SCORE_SLIPS, right)


def check_softmax_rows(fn: Callable[[Tensor], Tensor]) -> Verdict:
    """Check ``fn(scores) -> wei``: masked scores (B, T, T), -inf above the diagonal, into weights."""
    _, _, st = _book_head()
    right = say(
        "your weights match the book's on {B} tables of {T} × {T}: each row sums to 1", B=BATCH, T=CONTEXT
    )
    return _check("wei", fn, (st.masked,), st.wei, WEIGHT_SLIPS, right)


def check_head(fn: Callable[[Tensor, nn.Module, nn.Module, nn.Module], Tensor]) -> Verdict:
    """Check ``fn(x, key, query, value) -> out``: one causal head, x (B, T, C) -> out (B, T, hs)."""
    x, head, _ = _book_head()
    with torch.no_grad():
        out = head(x)  # (B, T, hs): Head.forward, the book's head
    right = say("your head matches the book's on {B} sequences of {T} positions", B=BATCH, T=CONTEXT)
    return _check("out", fn, (x, head.key, head.query, head.value), out, HEAD_SLIPS, right)


def check_bigram_loss(fn: Callable[[Tensor, Tensor], Tensor]) -> Verdict:
    """Check ``fn(logits, targets) -> loss``: logits (B, T, V), targets (B, T), one mean cross-entropy."""
    generator = torch.Generator().manual_seed(SEED)
    logits = torch.randn(BATCH, CONTEXT, VOCAB, generator=generator)  # (B, T, V)
    targets = torch.randint(VOCAB, (BATCH, CONTEXT), generator=generator)  # (B, T)
    right = say("your loss matches the book's next_token_loss on {B} × {T} positions", B=BATCH, T=CONTEXT)
    return _check("loss", fn, (logits, targets), next_token_loss(logits, targets), LOSS_SLIPS, right)
