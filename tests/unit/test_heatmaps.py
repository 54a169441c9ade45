"""heatmap: masked cells are marked, finite cells are written, labels name the positions."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch

from selfattn.heatmaps import MASKED_COLOR, heatmap


def test_masked_cells_are_grey_and_marked_minus_infinity():
    scores = torch.tensor([[0.5, float("-inf")], [-0.04, 1.25]])  # (2, 2)
    fig, ax = plt.subplots()
    image = heatmap(ax, scores, ["a", "b"], cmap="RdBu_r", vmin=-2, vmax=2)
    texts = {(round(t.get_position()[0]), round(t.get_position()[1])): t.get_text() for t in ax.texts}
    assert texts == {(0, 0): "0.5", (1, 0): "−∞", (0, 1): "0.0", (1, 1): "1.2"}, "no '−0.0', −∞ marked"
    rgba = image.to_rgba(image.get_array())  # (2, 2, 4)
    assert np.allclose(rgba[0, 1, :3], matplotlib.colors.to_rgb(MASKED_COLOR))
    assert not np.allclose(rgba[1, 1, :3], matplotlib.colors.to_rgb(MASKED_COLOR))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    plt.close(fig)


def test_no_numbers_when_fmt_is_none():
    fig, ax = plt.subplots()
    heatmap(ax, torch.randn(4, 6), fmt=None)
    assert len(ax.texts) == 0
    plt.close(fig)
