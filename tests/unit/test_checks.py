"""The "write it yourself" checkers: a right answer passes, each known slip is named, and whatever
goes wrong inside the reader's function becomes one printed line, never a traceback."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from selfattn import checks
from selfattn.checks import (
    Verdict,
    buggy_head,
    buggy_loss,
    buggy_mask,
    buggy_scores,
    buggy_weights,
    check_bigram_loss,
    check_causal_mask,
    check_head,
    check_scaled_scores,
    check_softmax_rows,
    head_with,
)
from selfattn.models import Head


# A reader's answers, written as a reader writes them (not from the checkers' own steps).
def reader_head(scale: bool = True, mask: str = "tril", dim: int = -1):
    def head(x, key, query, value):
        T = x.shape[1]
        k, q, v = key(x), query(x), value(x)
        wei = q @ k.transpose(-2, -1)
        if scale:
            wei = wei / math.sqrt(k.shape[-1])
        ones = torch.ones(T, T)
        if mask != "none":
            keep = torch.tril(ones) if mask == "tril" else torch.triu(ones)
            wei = wei.masked_fill(keep == 0, float("-inf"))
        return F.softmax(wei, dim=dim) @ v

    return head


def reader_loss(logits, targets):
    B, T, V = logits.shape
    return F.cross_entropy(logits.view(B * T, V), targets.view(B * T))


def verdict_of(check, fn, capsys) -> Verdict:
    """Run ``check`` on ``fn`` and hold it to its promise: one printed line, the verdict's own."""
    verdict = check(fn)
    out, err = capsys.readouterr()
    assert out == verdict.message + "\n", out
    assert "Traceback" not in out + err and len(out.splitlines()) == 1
    assert bool(verdict) is verdict.ok is verdict.message.startswith("✓")
    return verdict


@pytest.mark.parametrize(
    "mask",
    [
        lambda T: torch.tril(torch.ones(T, T)),
        lambda T: torch.ones(T, T, dtype=torch.bool).tril(),
        lambda T: torch.tril(torch.ones(T, T, dtype=torch.int64)),
    ],
    ids=["floats", "bools", "ints"],
)
def test_a_right_mask_passes_whatever_its_dtype(mask, capsys):
    verdict = verdict_of(check_causal_mask, mask, capsys)
    assert verdict.ok and "tril" in verdict.message


@pytest.mark.parametrize(
    ("mask", "named"),
    [
        (buggy_mask, "triu"),
        (lambda T: torch.triu(torch.ones(T, T, dtype=torch.bool)), "sees the future, not its past; use tril"),
        (lambda T: torch.ones(T, T), "nothing is masked"),
        (lambda T: torch.ones(T, T).triu(diagonal=1), "inverted"),
        (lambda T: torch.tril(torch.ones(T, T)) == 0, "inverted"),
    ],
)
def test_each_slip_of_the_mask_is_named(mask, named, capsys):
    verdict = verdict_of(check_causal_mask, mask, capsys)
    assert not verdict.ok and verdict.message.startswith("✗ mask differs: ") and named in verdict.message


def test_a_mask_of_the_wrong_size_or_values_says_so(capsys):
    wide = verdict_of(check_causal_mask, lambda T: torch.tril(torch.ones(T, T + 1)), capsys)
    assert wide.message == "✗ mask has shape (8, 9); the book's has (8, 8)"
    halves = verdict_of(check_causal_mask, lambda T: torch.tril(torch.ones(T, T)) / 2, capsys)
    assert halves.message.startswith("✗ mask[0, 0] differs: yours is 0.5, the book's 1 ")


def test_right_scores_pass_and_each_slip_of_the_scale_is_named(capsys):
    assert verdict_of(check_scaled_scores, lambda q, k: q @ k.transpose(-2, -1) / 4, capsys)
    slips = {
        buggy_scores: "not scaled",
        lambda q, k: q @ k.mT: "not scaled",
        lambda q, k: q @ k.mT / k.shape[-1]: "divided by head_size, not its square root",
        lambda q, k: k @ q.mT / math.sqrt(k.shape[-1]): "transposed",
    }
    for fn, named in slips.items():
        verdict = verdict_of(check_scaled_scores, fn, capsys)
        assert not verdict.ok and verdict.message.startswith("✗ wei differs: ") and named in verdict.message


def test_right_weights_pass_and_softmax_over_the_queries_is_named(capsys):
    assert verdict_of(check_softmax_rows, lambda wei: torch.softmax(wei, dim=2), capsys)

    def by_hand(wei):
        return wei.exp() / wei.exp().sum(dim=-1, keepdim=True)

    assert verdict_of(check_softmax_rows, by_hand, capsys)
    for fn in (buggy_weights, lambda wei: wei.softmax(dim=1)):
        verdict = verdict_of(check_softmax_rows, fn, capsys)
        assert verdict.message == (
            "✗ wei differs: softmax ran over dim=1, so each column of wei sums to 1; "
            "use dim=-1, one row per query"
        )


def test_a_slip_is_named_even_when_the_function_changed_its_input_in_place(capsys):
    def columns(wei):  # dim=1 again, by hand, writing into its input
        wei.exp_()
        return wei / wei.sum(dim=1, keepdim=True)

    assert "dim=1" in verdict_of(check_softmax_rows, columns, capsys).message


def test_an_unnamed_difference_gives_its_first_place_and_the_largest_gap(capsys):
    batch = verdict_of(check_softmax_rows, lambda wei: wei.softmax(dim=0), capsys).message
    assert batch.startswith("✗ wei[0, 0, 0] differs: yours is ") and batch.endswith("of yours are nan)")

    def nudged(x, key, query, value):
        out = reader_head()(x, key, query, value)
        out[1, 2, 3] += 0.5
        out[2, 0, 0] -= 0.25
        return out

    verdict = verdict_of(check_head, nudged, capsys)
    assert verdict.message.startswith("✗ out[1, 2, 3] differs: yours is ")
    assert verdict.message.endswith("(the largest difference is 0.5)")


def test_a_right_head_passes_and_each_slip_of_a_head_is_named(capsys):
    verdict = verdict_of(check_head, reader_head(), capsys)
    assert verdict.message == "✓ your head matches the book's on 4 sequences of 8 positions"
    slips = {
        buggy_head: "not scaled",
        reader_head(scale=False): "not scaled",
        reader_head(mask="triu"): "the mask is triu",
        reader_head(dim=1): "softmax ran over dim=1",
        reader_head(mask="none"): "nothing is masked, so each position sees the future",
    }
    for fn, named in slips.items():
        verdict = verdict_of(check_head, fn, capsys)
        assert not verdict.ok and verdict.message.startswith("✗ out differs: ") and named in verdict.message


def test_the_slipped_heads_are_the_books_head_with_one_step_swapped():
    torch.manual_seed(0)
    head, x = Head(12, 6, 5), torch.randn(3, 5, 12)
    book = head(x)
    assert torch.allclose(head_with()(x, head.key, head.query, head.value), book, atol=1e-6)
    for slip, _ in checks.HEAD_SLIPS:
        assert not torch.allclose(slip(x, head.key, head.query, head.value), book, atol=1e-3, equal_nan=True)


@pytest.mark.parametrize(
    ("check", "slips"),
    [
        (check_causal_mask, checks.MASK_SLIPS),
        (check_scaled_scores, checks.SCORE_SLIPS),
        (check_softmax_rows, checks.WEIGHT_SLIPS),
        (check_head, checks.HEAD_SLIPS),
        (check_bigram_loss, checks.LOSS_SLIPS),
    ],
)
def test_no_slip_hides_another_on_the_checkers_inputs(check, slips, capsys):
    for slip, says in slips:
        assert verdict_of(check, slip, capsys).message.endswith(f": {says}")


def test_a_right_loss_passes_and_each_slip_of_the_loss_is_named(capsys):
    assert verdict_of(check_bigram_loss, reader_loss, capsys)

    def summed(logits, targets):
        return reader_loss(logits, targets) * targets.numel()

    def probabilities(logits, targets):
        return reader_loss(logits.softmax(dim=-1), targets)

    summed_verdict = verdict_of(check_bigram_loss, summed, capsys)
    assert "sum over the B*T positions, not their mean" in summed_verdict.message
    for fn in (buggy_loss, probabilities):
        assert "softmax ran before cross_entropy" in verdict_of(check_bigram_loss, fn, capsys).message
    flat = verdict_of(check_bigram_loss, lambda logits, targets: F.cross_entropy(logits, targets), capsys)
    assert flat.message == (
        "✗ your function raised RuntimeError: cross_entropy takes (B*T, V) logits and (B*T,) targets; "
        "reshape both first"
    )


def test_an_error_in_the_readers_function_is_one_line_with_its_type(capsys):
    def boom(x, key, query, value):
        raise ValueError("head_size is odd\nand here is more")

    def half_reshaped(logits, targets):
        return F.cross_entropy(logits.view(-1, 65), targets)

    raised = verdict_of(check_head, boom, capsys).message
    assert raised == "✗ your function raised ValueError: head_size is odd"
    deep = verdict_of(check_head, lambda x, key, query, value: x @ key.weight, capsys)
    assert deep.message.startswith("✗ your function raised RuntimeError: mat1 and mat2 shapes cannot be")
    half = verdict_of(check_bigram_loss, half_reshaped, capsys)
    assert half.message.startswith("✗ your function raised ValueError: Expected input batch_size (32)")


def test_a_wrong_shape_a_wrong_dtype_or_no_tensor_says_which(capsys):
    def weights(x, key, query, value):
        k, q = key(x), query(x)
        return F.softmax((q @ k.mT).masked_fill(torch.ones(8, 8).tril() == 0, float("-inf")), dim=-1)

    shape = verdict_of(check_head, weights, capsys)
    assert shape.message == "✗ out has shape (4, 8, 8); the book's has (4, 8, 16)"

    def per_position(logits, targets):
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")

    each = verdict_of(check_bigram_loss, per_position, capsys)
    assert each.message == "✗ loss has shape (32,); the book's has ()"
    double = verdict_of(check_head, lambda *args: reader_head()(*args).double(), capsys)
    assert double.message == "✗ out is torch.float64; the book's is torch.float32"
    half = verdict_of(check_scaled_scores, lambda q, k: (q @ k.mT / 4).half(), capsys)
    assert half.message == "✗ wei is torch.float16; the book's is torch.float32"
    nothing = verdict_of(check_softmax_rows, lambda wei: None, capsys)
    assert nothing.message == "✗ your function returned NoneType, not a tensor: is its return missing?"


def test_the_checkers_leave_the_global_random_state_as_it_was(capsys):
    torch.manual_seed(7)
    before = torch.random.get_rng_state()
    check_head(reader_head())
    check_bigram_loss(reader_loss)
    check_causal_mask(buggy_mask)
    assert torch.equal(torch.random.get_rng_state(), before)


def test_a_verdict_is_its_line_and_its_truth():
    assert Verdict(True, "✓ fine") and not Verdict(False, "✗ not")
    assert str(Verdict(False, "✗ not")) == "✗ not"
