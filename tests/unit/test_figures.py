"""The interactive figures (selfattn.figures) without a browser: every output carries an HTML view
and a valid PNG, asks for nothing over the network, shares one guarded script, and embeds the
model's own numbers. The figures are those of the figure page (tools.figure_page), drawn here."""

from __future__ import annotations

import base64
import html
import inspect
import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest
import torch

from _ext.content.figure_script import MARK, _page_context, _remove_unloaded, script_name
from _ext.editions.translation.figure_words import map_texts
from selfattn import AttentionLanguageModel, ConfigError, get_batch, make_model
from selfattn.anatomy import trace
from selfattn.figures import (
    FIGURES,
    averaging_matrix,
    before_after,
    context_window,
    heatmap_steps,
    projections,
    score_table,
    training_curve,
)
from selfattn.figures.mechanism import WALK_CODE, head_stages
from selfattn.figures.output import FALLBACK, Words, script
from tests.helpers import FIGURE_BIGRAM, FIGURE_RUN, figure_messages
from tools.figure_page import draw

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def names(figure_cells):
    return figure_cells[0]


@pytest.fixture(scope="module")
def figures(figure_cells):
    return figure_cells[1]


def test_every_figure_of_the_list_has_html_and_a_valid_png(figures):
    assert list(figures) == [kind for kind, _ in FIGURES]
    for kind, figure in figures.items():
        bundle = figure._repr_mimebundle_()
        assert figure.kind == kind
        assert f'data-kind="{kind}"' in bundle["text/html"]
        png = base64.b64decode(bundle["image/png"])
        assert png[:8] == PNG, kind
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert width >= 600 and height >= 300, (kind, width, height)
        assert figure.description in bundle["text/plain"]
        assert len(figure.description) > 80, "a real text alternative, not a label"


def test_html_asks_for_nothing_over_the_network(figures):
    for figure in figures.values():
        page = figure.to_html()
        assert not re.search(r"\b(src|href)\s*=", page)
        assert "https://" not in page and "@import" not in page
        assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")


def test_figures_share_one_guarded_script(figures):
    code = script()
    assert "</script" not in code.lower() and "__CSS__" not in code and "__VERSION__" not in code
    for figure in figures.values():
        page = figure.to_html()
        assert page.count(code) == 1
        assert page.index('class="sa-data"') < page.index(code), "data before the script that reads it"
    ids = {re.search(r'id="(sa-\w+)"', figures["batch"].to_html()).group(1) for _ in range(3)}
    assert len(ids) == 3, "every output gets its own element ids"


class SiteBuild:
    """What the figure-script extension reads of a Sphinx application, and the scripts it adds."""

    def __init__(self, outdir) -> None:
        self.outdir = str(outdir)
        self.builder = type("Builder", (), {"format": "html"})()
        self.scripts: list[tuple[str, dict]] = []

    def add_js_file(self, filename: str, **attributes) -> None:
        self.scripts.append((filename, attributes))


def test_a_built_page_loads_the_script_as_one_deferred_file_the_site_shares(figures, tmp_path):
    outputs = [figures["context-window"].to_html(), "<p>prose</p>", figures["batch"].to_html()]
    build = SiteBuild(tmp_path)
    context = {"body": "".join(outputs)}
    _page_context(build, "book/page", "page.html", context, None)
    assert "<script data-selfattn-figures>" not in context["body"]
    assert context["body"].count('class="sa-data"') == 2 and "<p>prose</p>" in context["body"]
    ((name, attributes),) = build.scripts
    assert attributes == {"loading_method": "defer", MARK: ""}
    assert (tmp_path / "_static" / name).read_text(encoding="utf-8") == script(), "the script as output"
    _page_context(build, "book/other", "page.html", {"body": outputs[2]}, None)
    assert build.scripts[1][0] == name, "every page loads the same file"
    unchanged = {"body": "<p>no figures</p>"}
    _page_context(build, "index", "page.html", unchanged, None)
    assert unchanged == {"body": "<p>no figures</p>"} and len(build.scripts) == 2


def test_a_script_no_page_loads_is_removed_once_the_site_is_written(tmp_path):
    (tmp_path / "_static").mkdir()
    loaded, stale = script_name("one();"), script_name("two();")
    for name in (loaded, stale):
        (tmp_path / "_static" / name).write_text("")
    (tmp_path / "page.html").write_text(f'<script defer src="_static/{loaded}?v=1"></script>')
    _remove_unloaded(SiteBuild(tmp_path), None)
    assert [p.name for p in (tmp_path / "_static").iterdir()] == [loaded]


def messages(figures: dict) -> list[str]:
    """What a translation is asked for, in order, on a page of ``figures``."""
    return figure_messages("".join(figure.to_html() for figure in figures.values()))


def template(words) -> str:
    return words.template if isinstance(words, Words) else words


def test_a_translation_changes_the_words_of_a_figure_and_nothing_else(figures):
    page = "<p>prose</p>" + "".join(figure.to_html() for figure in figures.values())
    assert map_texts(page, lambda text: text) == page
    seen = messages(figures)
    walk, ladder = figures["shape-walk"].data, figures["ladder"].data
    for figure in figures.values():
        assert {template(figure.words["title"]), template(figure.words["description"])} <= set(seen)
    assert seen.count(FALLBACK) == len(figures)
    assert {stop["label"] for stop in walk["stops"]} <= set(seen)
    assert "A batch of ids: B = {B} sequences of T = {T} positions, one integer per position." in seen
    assert {series["label"] for series in ladder["series"]} <= set(seen)
    assert "Before training: {total:,} random starting numbers in {tensors}. {drawn}." in seen
    assert not {m["name"] for m in figures["before-after"].data["mats"]} & set(seen), "names of code stay"
    marked = map_texts(page, lambda text: f"<{text}>")
    assert marked.count(f"&lt;{html.escape(FALLBACK)}&gt;") == len(figures)
    for figure in figures.values():
        assert f"&lt;{html.escape(figure.title)}&gt;</figcaption>" in marked, "titles, html-escaped"
    assert "<p>prose</p>" in marked
    walked = json.loads(
        re.search(r'data-kind="shape-walk".*?class="sa-data">(.*?)</script>', marked).group(1)
    )
    assert walked["stops"][0]["label"] == f"<{walk['stops'][0]['label']}>"
    assert walked["stops"][0]["note"].startswith("<A batch of ids: B = 4 sequences")
    assert walked["stops"][0]["values"] == walk["stops"][0]["values"]


def test_a_translation_fills_in_the_numbers_after_translating_the_words():
    words = Words(
        "from {first:.2f} to {last:.3f}, {when}: {names}",
        first=4.2,
        last=2.4071,
        when=Words("never below"),
        names=[Words("{name} {loss:.1f}", name="a", loss=1.25), "b"],
    )
    assert str(words) == "from 4.20 to 2.407, never below: a 1.2, b"
    assert Words.from_json(json.loads(json.dumps(words.to_json()))).render() == str(words)
    zh = {"from {first:.2f} to {last:.3f}, {when}: {names}": "从 {first:.2f} 到 {last:.3f}，{when}：{names}"}
    assert words.render(lambda text: zh.get(text, text)) == "从 4.20 到 2.407，never below：a 1.2, b"
    with pytest.raises(TypeError, match="shape="):
        Words("{shape}", shape=(8, 32))


def test_no_message_of_a_figure_holds_a_computed_value(figures):
    """Figures drawn from another run ask a translation for the very same messages, so a catalog made
    from one build's figures translates every build's (the numbers are filled in after)."""
    _, others = draw(replace(FIGURE_RUN, seed=FIGURE_RUN.seed + 1), FIGURE_BIGRAM)
    changed = [kind for kind in figures if figures[kind].description != others[kind].description]
    assert {"score-table", "qkv", "training", "before-after", "ladder", "head-maps"} <= set(changed)
    assert messages(others) == messages(figures)


def test_embedded_numbers_are_the_models(figures, names):
    corpus, model, history, config = names["corpus"], names["model"], names["history"], names["config"]
    s = head_stages(model, corpus.tokenizer, names["text"])
    data = figures["score-table"].data
    for name in ("raw", "scaled", "wei"):
        assert np.allclose(data["stages"][name], getattr(s, name)[0], atol=1e-3)
    masked = np.array([[math.inf if v is None else v for v in row] for row in data["stages"]["masked"]])
    assert (np.isinf(masked) == np.triu(np.ones((8, 8)), 1).astype(bool)).all()

    mix = figures["mix-values"].data
    out = np.array(mix["wei"]) @ np.array(mix["v"])
    x = trace(model, torch.tensor([corpus.tokenizer.encode(names["text"])]))["x"]
    assert np.allclose(out, model.sa_head(x)[0].detach(), atol=2e-3), (
        "wei @ v of the data is the head's output"
    )

    batch = figures["batch"].data
    assert np.allclose(batch["emb"], model.token_embedding_table.weight.detach(), atol=5e-3)
    excerpt = corpus.train[:2000]
    xb, _ = get_batch(excerpt, 4, 8, torch.Generator().manual_seed(1337))
    first = [corpus.tokenizer.encode(batch["text"][s : s + 8]) for s in batch["starts"]]
    assert first == xb.tolist(), "the first batch is get_batch's"

    walk = figures["shape-walk"].data["stops"]
    assert [stop["shape"] for stop in walk] == [[4, 8], [4, 8, 32], [4, 8, 32], [4, 8, 32], [4, 8, 65]]
    assert {stop["label"]: stop["code"] for stop in walk[1:]} == WALK_CODE

    curve = figures["training"].data
    assert curve["val"] == [round(v, 4) for v in history.val_loss] and curve["steps"] == history.steps
    level = curve["bigram"]
    before = [v for s, v in zip(history.steps, history.val_loss, strict=True) if s < curve["cross"]]
    assert min(before) >= level > history.final_val, "the curve crosses the line at the step reported"
    assert training_curve(history, 1.0).data["cross"] is None
    assert "never drops below" in training_curve(history, 1.0).description
    assert len(curve["batch"]) == 100 and curve["batch"][-1][0] == config.max_iters
    assert config.max_iters % curve["stride"] == 0, "the slider can reach the last step"

    mats = {m["name"]: m for m in figures["before-after"].data["mats"]}
    query = mats["sa_head.query.weight"]
    assert query["std"][1] == pytest.approx(model.sa_head.query.weight.std().item(), abs=1e-4)
    assert len(base64.b64decode(query["before"])) == 32 * 32
    assert sum(m["rows"] * m["cols"] for m in mats.values()) == 7488

    steps = figures["heatmap-steps"].data
    toy = names["toy"]
    assert [snap["step"] for snap in steps["snapshots"]] == sorted(toy.snapshots)
    assert steps["snapshots"][-1]["w"] == [[round(w, 3) for w in row] for row in toy.snapshots[200].tolist()]


def test_the_shape_walk_shows_lines_the_attention_model_runs():
    """Each stop's code is a line of AttentionLanguageModel.forward as written, its comment left out."""
    lines = inspect.getsource(AttentionLanguageModel.forward).splitlines()
    written = {line.split("  #")[0].strip() for line in lines}
    assert [code for code in WALK_CODE.values() if code not in written] == []


def test_averaging_figure_shows_the_torch_steps_and_the_product(figures, names):
    a, b, c = names["a"], names["b"], names["c"]
    T = a.shape[0]
    data = figures["averaging"].data
    stages = [torch.tensor(stage["a"]) for stage in data["stages"]]
    assert torch.equal(stages[0], torch.ones(T, T)) and torch.equal(stages[1], torch.tril(torch.ones(T, T)))
    assert torch.allclose(stages[2], a, atol=1e-4) and torch.equal(stages[3], stages[2])
    assert [stage["code"] for stage in data["stages"]] == [
        f"torch.ones({T}, {T})",
        f"torch.tril(torch.ones({T}, {T}))",
        "a / a.sum(dim=1, keepdim=True)",
        "c = a @ b",
    ]
    assert torch.allclose(torch.tensor(data["b"]), b, atol=1e-4)
    assert torch.allclose(torch.tensor(data["c"]), c, atol=1e-4) and torch.allclose(c, a @ b)
    assert "sets the 6 entries above the diagonal to 0" in figures["averaging"].description
    assert "(1, 2, 3, 4)" in figures["averaging"].description


def test_projection_figure_shows_the_heads_own_layers(figures, names):
    model, text = names["model"], names["text"]
    head = model.sa_head
    x = trace(model, torch.tensor([names["corpus"].tokenizer.encode(text)]))["x"]  # (1, T, C)
    data = figures["qkv"].data
    assert data["position"] == len(text) - 1
    assert np.allclose(data["x"], x[0], atol=1e-3)
    for name, layer in (("q", head.query), ("k", head.key), ("v", head.value)):
        assert np.allclose(data["out"][name], layer(x)[0].detach(), atol=1e-3), name
        assert np.allclose(data["w"][name], layer.weight.T.detach(), atol=1e-3), f"W_{name} = {name}.weight.T"
        q = np.array(data["x"]) @ np.array(data["w"][name])
        assert np.allclose(q, data["out"][name], atol=2e-3), "x W of the data is the output"
    other = projections(model, names["corpus"].tokenizer, text, position=2)
    assert other.data["position"] == 2 and f"For position 2 ({text[2]!r})" in other.description


def test_before_after_states_the_models_own_parameter_count(figures, names):
    """The figure draws the weight matrices only; its texts give the model's real total and say
    how many numbers the drawing leaves out, all counted by model.parameters()."""
    model = names["model"]
    figure = figures["before-after"]
    total = sum(p.numel() for p in model.parameters())
    tensors = len(list(model.parameters()))
    matrices = [p for p in model.parameters() if p.dim() == 2]
    drawn = sum(p.numel() for p in matrices)
    count = figure.data["count"]
    assert (count["parameters"], count["tensors"]) == (total, tensors)
    assert (count["drawn"], count["matrices"]) == (drawn, len(matrices))
    assert count["left_out"] == [["lm_head.bias", model.lm_head.bias.numel()]]
    before, after = figure.data["notes"]["before"], figure.data["notes"]["after"]
    assert before.startswith(f"Before training: {total:,} random starting numbers in {tensors} tensors.")
    assert f"Drawn: the {len(matrices)} weight matrices, {drawn:,} numbers" in before
    assert f"not drawn: lm_head.bias, {total - drawn} numbers" in before
    assert after.startswith(f"After training: the same {total:,} numbers")
    for text in (figure.description, figure._repr_mimebundle_()["text/plain"]):
        assert before in text and after in text
    bigram = make_model("bigram", 65, names["config"])
    assert before_after(bigram, bigram).data["notes"]["before"] == (
        "Before training: 4,225 random starting numbers in 1 tensor. "
        "Drawn: the weight matrix, 4,225 numbers, all of them."
    )


def test_bad_inputs_are_refused_with_a_reason(names):
    corpus, model, config = names["corpus"], names["model"], names["config"]
    with pytest.raises(ConfigError, match="at least block_size"):
        context_window("First")
    with pytest.raises(ConfigError, match="block_size=8"):
        score_table(model, corpus.tokenizer, "First Citizen")
    with pytest.raises(ConfigError, match="expected \\(2, 2\\)"):
        heatmap_steps([(0, 1.0, torch.ones(3, 3) / 3)], ["a", "b"])
    bigram = make_model("bigram", corpus.tokenizer.vocab_size, config)
    with pytest.raises(ConfigError, match="same architecture"):
        before_after(bigram, model)
    with pytest.raises(ConfigError, match="position=8; give 0 to 7"):
        projections(model, corpus.tokenizer, "the king", position=8)
    with pytest.raises(ConfigError, match="block_size=8"):
        projections(model, corpus.tokenizer, "the king!")


def test_averaging_figure_refuses_tensors_that_are_not_its_steps(names):
    a, b, c = names["a"], names["b"], names["c"]
    tril = torch.tril(torch.ones(4, 4))
    refused = {
        "a has shape (4, 3); give a square": (a[:, :3], b, c),
        "b has shape (3, 3); give one row per row of a": (a, b[:3], c),
        "a is not torch.tril(torch.ones(T, T)) with each row divided by its sum": (tril, b, c),
        "c is not a @ b": (a, b, c + 1),
    }
    for message, tensors in refused.items():
        with pytest.raises(ConfigError, match=re.escape(message)) as error:
            averaging_matrix(*tensors)
        assert "\n" not in str(error.value), "one line"
