"""Figure 13: how temperature, top-k and top-p reshape a model's next-character distribution.

The figure carries the model's real scores for one prompt; the view reshapes them in the
browser exactly as :meth:`selfattn.sampling.Sampling.probabilities` does, and the PNG draws the
same scores reshaped by the package itself.
"""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.figure import Figure as MplFigure

from selfattn.errors import ConfigError
from selfattn.figures.output import InteractiveFigure, Words, rounded, shown
from selfattn.language import say
from selfattn.sampling import Sampling
from selfattn.tokenizers import CharTokenizer

# How many of the likeliest characters get a bar of their own; the rest share one.
BARS = 12
# The settings the PNG draws side by side, as (label, Sampling).
PANELS = (
    ("as the model gives it", Sampling()),
    ("temperature 0.5", Sampling(temperature=0.5)),
    ("top-k, k = 5", Sampling(top_k=5)),
    ("top-p, p = 0.9", Sampling(top_p=0.9)),
)


@torch.no_grad()
def next_token_choice(model, tokenizer: CharTokenizer, prompt: str) -> InteractiveFigure:
    """Figure 13: the model's next-character distribution after ``prompt``, reshaped by sliders.

    The sliders set the temperature, k and p; the bars show each likely character's probability
    before and after, and which characters can still be drawn. The model reads the prompt's last
    ``block_size`` characters, as ``generate`` does.
    """
    if not prompt:
        raise ConfigError(say("prompt is empty; give at least one character for the model to continue."))
    idx = torch.tensor([tokenizer.encode(prompt[-model.block_size :])])  # (1, T)
    was_training = model.training
    model.eval()
    logits, _ = model(idx)  # (1, T, V)
    model.train(was_training)
    scores = logits[0, -1]  # (V,): the scores for the character after the prompt
    probs = torch.softmax(scores, dim=-1)  # (V,)
    top = probs.argmax().item()
    data = {
        "prompt": [shown(c) for c in prompt[-16:]],
        "tokens": [shown(c) for c in tokenizer.chars],
        "logits": rounded(scores, 4),
        "bars": BARS,
    }
    description = Words(
        "The model's probabilities for the character after {prompt!r}, the {bars} likeliest as bars, "
        "with sliders for the temperature, top-k and top-p that reshape them and mark which characters can "
        "still be drawn. As the model gives it, the likeliest is {char!r} with probability {p:.2f}.",
        prompt=prompt[-16:],
        bars=BARS,
        char=tokenizer.chars[top],
        p=probs[top].item(),
    )
    title = "Reshaping the next character's distribution"
    return InteractiveFigure("next-token", data, title, description, _draw_choice, (10, 3.2))


def _draw_choice(fig: MplFigure, d: dict) -> None:
    logits = torch.tensor([d["logits"]])  # (1, V)
    order = torch.softmax(logits[0], dim=-1).argsort(descending=True)[: d["bars"]].tolist()
    axes = np.atleast_1d(fig.subplots(1, len(PANELS), sharey=True))
    for ax, (label, sampling) in zip(axes, PANELS, strict=True):
        probs = sampling.probabilities(logits)[0]  # (V,)
        values = [probs[i].item() for i in order]
        colors = ["#0062a3" if v > 0 else "#c8d1da" for v in values]
        ax.barh(range(len(order)), values, color=colors)
        ax.set_title(label, fontsize=9)
        ax.set_xlim(0, 1)
        ax.set_xlabel("probability", fontsize=8)
    axes[0].set_yticks(range(len(order)), [d["tokens"][i] for i in order], fontsize=8)
    axes[0].invert_yaxis()
