"""The book's interactive figures: HTML for the web, PNG for the PDF, from real data.

Each function returns an :class:`InteractiveFigure`; make it the last line of a
code cell (or ``glue`` it) and the notebook shows it::

    context_window(corpus.text[:9])                       # 1. the context window
    batch_grid(corpus, model)                             # 2. a batch of ids and their embeddings
    shape_walk(model, xb, corpus.tokenizer)               # 3. ids -> ... -> logits, (B, T, C)
    score_table(model, corpus.tokenizer, "First Ci")      # 4. raw, scaled, masked, softmax
    mixing_values(model, corpus.tokenizer, "First Ci")    # 5. out[i] = sum_j wei[i, j] v[j]
    training_curve(history, bigram_history)               # 6. the loss curve against the bigram
    before_after(initial_model, model)                    # 7. weight matrices before and after
    heatmap_steps(snapshots, tokens)                      # 8. (step, loss, weights) with a slider

See ``output.py`` for how the script reaches the page, and ``sphinxext.py``
for keeping one copy of it per built page.
"""

from selfattn.figures.learning import before_after, heatmap_steps, training_curve
from selfattn.figures.mechanism import batch_grid, context_window, mixing_values, score_table, shape_walk
from selfattn.figures.output import InteractiveFigure

__all__ = [
    "InteractiveFigure",
    "batch_grid",
    "before_after",
    "context_window",
    "heatmap_steps",
    "mixing_values",
    "score_table",
    "shape_walk",
    "training_curve",
]
