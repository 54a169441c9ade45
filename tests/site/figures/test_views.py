"""Each interactive figure's controls in Debian's headless Chromium, every request not to loopback
aborted: on the figure page (conftest.py: the figures this session drew, built by Jupyter Book),
every figure is drawn, each control changes what it should (asserted on the DOM, against the
numbers the package computed), the text stays legible in light and dark mode, and nothing logs an
error. The page as a whole (drawn lazily, printed, in LaTeX, re-run live) is in test_page.py.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
from playwright.sync_api import expect

from selfattn.figures.mechanism import head_stages
from selfattn.sampling import Sampling
from tests.site.figures.helpers import KINDS, classes, data_of, fig, number, status

pytestmark = pytest.mark.browser


def test_page_mounts_every_described_figure_with_one_script(page):
    for kind in KINDS:
        figure = fig(page, kind)
        assert figure.count() == 1, kind
        assert figure.locator(".sa-fallback").count() == 0, f"{kind} mounted"
        assert figure.locator(".sa-body > *").count() >= 2, kind
        assert figure.get_attribute("aria-describedby"), kind
        described = page.locator(f"#{figure.get_attribute('aria-describedby')}").inner_text()
        assert len(described) > 80, kind
    assert page.locator("script[data-selfattn-figures][src][defer]").count() == 1, "one file (sphinxext)"
    assert page.locator("script[data-selfattn-figures]").count() == 1, "and no copy in the page"
    assert page.locator(".live-code-button").count() == 1, "the page has the book's live code"
    assert page.locator("style#selfattn-figures-css").count() == 1


def test_context_window_lights_positions_up_to_the_one_clicked(page):
    figure = fig(page, "context-window")
    buttons = figure.locator("button.sa-pos")
    assert buttons.count() == 8
    buttons.nth(5).click()
    lit = [i for i, c in enumerate(classes(buttons)) if "sa-lit" in c]
    assert lit == [0, 1, 2, 3, 4, 5]
    assert [buttons.nth(i).get_attribute("aria-pressed") for i in range(8)].count("true") == 1
    assert "sa-next" in classes(buttons)[6]
    assert "Position 5 sees positions 0 to 5" in status(figure)
    buttons.nth(1).focus()
    page.keyboard.press("Enter")
    assert [i for i, c in enumerate(classes(buttons)) if "sa-lit" in c] == [0, 1]
    buttons.nth(7).focus()
    page.keyboard.press("Space")
    assert [i for i, c in enumerate(classes(buttons)) if "sa-lit" in c] == list(range(8))
    assert "just past the window" in status(figure)


def test_batch_draws_windows_of_the_text_and_shows_embeddings(page):
    figure, d = fig(page, "batch"), data_of(page, "batch")
    cells = figure.locator("button.sa-cell")

    def grid():
        return [cells.nth(i).get_attribute("data-char") for i in range(cells.count())]

    first = grid()
    assert len(first) == 4 * 8
    figure.get_by_role("button", name="Draw another batch").click()
    second = grid()
    assert second != first
    assert "Batch 2" in status(figure)
    for b in range(4):
        row = "".join(second[b * 8 : b * 8 + 8])
        assert row in d["text"], row
        ids = [int(cells.nth(b * 8 + t).get_attribute("data-id")) for t in range(8)]
        assert ids == [d["vocab"].index(ch) for ch in row]
    starts = []
    for _ in range(5):
        figure.get_by_role("button", name="Draw another batch").click()
        starts += [int(n) for n in re.search(r"characters ([\d, ]+) of", status(figure)).group(1).split(", ")]
    assert all(0 <= s <= len(d["text"]) - 8 for s in starts)
    assert max(starts) - min(starts) > len(d["text"]) / 2, "windows come from all over the excerpt"
    assert len(set(starts)) > 15
    cells.nth(2 * 8 + 3).click()
    picked = int(cells.nth(2 * 8 + 3).get_attribute("data-id"))
    shown = figure.locator(".sa-strip span")
    assert shown.count() == d["C"] == 32
    values = [float(shown.nth(k).get_attribute("data-v")) for k in range(32)]
    assert values == d["emb"][picked]
    assert f"= {picked} is looked up as row {picked}" in figure.inner_text()


def test_shape_walk_runs_to_logits_changing_only_the_last_axis(page):
    figure = fig(page, "shape-walk")
    shape = figure.locator(".sa-shape")
    assert shape.inner_text() == "(B, T) = (4, 8)"
    figure.get_by_role("button", name="Run to logits").click()
    page.wait_for_function(
        '() => document.querySelector(\'.sa-fig[data-kind="shape-walk"] button[aria-pressed="true"]\')'
        ".textContent === 'attention'"
    )
    page.wait_for_function(
        '() => document.querySelector(\'.sa-fig[data-kind="shape-walk"] button[aria-pressed="true"]\')'
        ".textContent === 'logits'",
        timeout=10_000,
    )
    assert shape.inner_text() == "(B, T, C) = (4, 8, 65)"
    assert figure.locator(".sa-changed").inner_text() == "65"
    assert figure.locator(".sa-heat").get_attribute("data-columns") == "65"
    figure.get_by_role("button", name="+ positions").click()
    assert shape.inner_text() == "(B, T, C) = (4, 8, 32)"
    assert figure.locator(".sa-changed").count() == 0, "adding positions changes no axis"


def cells_of(table) -> list[list[str]]:
    """The text of a table's data cells, row by row."""
    return table.evaluate(
        "(t) => [...t.rows].slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent))"
    )


def products(text: str) -> list[tuple[float, float]]:
    """The factors of "u×w + u×w + ..." as the figures write a sum of products."""
    return [tuple(number(f.strip("()")) for f in term.split("\u00d7")) for term in text.split(" + ")]


def test_averaging_builds_a_in_three_torch_calls_then_multiplies(page):
    figure, d = fig(page, "averaging"), data_of(page, "averaging")
    T, n = len(d["b"]), len(d["b"][0])
    stages = figure.locator(".sa-row button")
    assert stages.count() == 4 and stages.nth(0).get_attribute("aria-pressed") == "true"
    shown = []
    for i, stage in enumerate(d["stages"][:3]):
        stages.nth(i).click()
        assert figure.locator("code").first.inner_text() == stage["code"]
        assert status(figure) == stage["note"]
        assert figure.locator("table").count() == 1, "a alone until the product"
        shown.append([[number(x) for x in row] for row in cells_of(figure.locator('table[data-name="a"]'))])
    assert shown[0] == [[1] * T] * T, "torch.ones"
    assert shown[1] == [[1 if j <= i else 0 for j in range(T)] for i in range(T)], "torch.tril"
    assert all(sum(row) == pytest.approx(1, abs=0.02) for row in shown[2]), "rows divided by their sums"
    assert shown[2] == [[round(x, 2) for x in row] for row in d["stages"][2]["a"]]
    stages.nth(3).focus()
    page.keyboard.press("Enter")
    assert stages.nth(3).get_attribute("aria-pressed") == "true"
    tables = {name: figure.locator(f'table[data-name="{name}"]') for name in "abc"}
    assert [len(cells_of(tables[name])[0]) for name in "abc"] == [T, n, n]
    assert [[number(x) for x in row] for row in cells_of(tables["c"])] == [
        [round(x, 2) for x in row] for row in d["c"]
    ]
    arithmetic = figure.locator(".sa-numbers")

    def explained(r: int, j: int) -> None:
        a, b = d["stages"][3]["a"], d["b"]
        head, total = arithmetic.inner_text().rsplit(" = ", 1)
        assert head.startswith(f"c[{r}, {j}] = row {r} of a \u00b7 column {j} of b = ")
        terms = products(head.split(" of b = ")[1])
        assert terms == [pytest.approx((a[r][k], b[k][j]), abs=0.006) for k in range(T)]
        assert number(total) == pytest.approx(d["c"][r][j], abs=0.006)
        assert figure.locator(".sa-hl").count() == 2 * T + 1, "a row of a, a column of b, a cell of c"
        assert tables["a"].locator("tr").nth(r + 1).locator(".sa-hl").count() == T
        assert tables["c"].locator("tr").nth(r + 1).locator("td").nth(j).get_attribute("class") == "sa-hl"

    explained(T - 1, 0)
    tables["c"].locator("button").nth(1 * n + 1).hover()
    explained(1, 1)
    tables["c"].locator("button").nth(0).focus()
    explained(0, 0)
    page.keyboard.press("Tab")
    explained(0, 1)
    stages.nth(0).click()
    assert figure.locator(".sa-hl").count() == 0 and arithmetic.inner_text() == ""


def test_qkv_projects_the_chosen_positions_x_by_the_heads_weights(page, figure_cells):
    figure, d = fig(page, "qkv"), data_of(page, "qkv")
    names, _ = figure_cells
    head = names["model"].sa_head

    def strip(k: int) -> list[float]:
        cells = figure.locator(".sa-strip").nth(k).locator("span, button")
        return [float(v) for v in cells.evaluate_all("(cs) => cs.map((c) => c.dataset.v)")]

    positions = figure.locator("button.sa-pos")
    assert positions.count() == len(d["tokens"]) == 8
    assert positions.nth(7).get_attribute("aria-pressed") == "true"
    positions.nth(2).click()
    assert positions.nth(2).get_attribute("aria-pressed") == "true"
    x = strip(0)
    assert x == d["x"][2] and len(x) == 32
    outputs = [strip(k) for k in (1, 2, 3)]
    assert outputs == [d["out"][name][2] for name in "qkv"]
    with torch.no_grad():
        layers = [head.query, head.key, head.value]
        made = [layer(torch.tensor(d["x"][2])).tolist() for layer in layers]
    assert np.allclose(outputs, made, atol=2e-3), "the numbers the head's layers make from this x"
    positions.nth(5).focus()
    page.keyboard.press("Enter")
    assert strip(0) == d["x"][5] and strip(1) == d["out"]["q"][5]

    def explained(name: str, j: int) -> None:
        head_text, total = status(figure).rsplit(" = ", 1)
        assert head_text.startswith(f"{name}[{j}] = \u03a3 x[i]\u00b7W_{name}[i, {j}] = ")
        assert number(total) == pytest.approx(d["out"][name][5][j], abs=1e-3)
        column = [row[j] for row in d["w"][name]]
        assert strip(4) == column, "the column of W that makes it"
        assert sum(strip(5)) == pytest.approx(d["out"][name][5][j], abs=2e-3), "its products add up to it"
        first = products(head_text.split(" = ", 2)[2].split(" + \u2026")[0])
        assert first == [pytest.approx((d["x"][5][i], column[i]), abs=0.006) for i in range(3)]
        outputs = figure.locator(f'.sa-strip[data-name="{name}"] button')
        assert "sa-hl" in outputs.nth(j).get_attribute("class")
        assert figure.locator(".sa-hl").count() == 1

    explained("q", 0)
    figure.locator('.sa-strip[data-name="v"] button').nth(9).hover()
    explained("v", 9)
    figure.locator('.sa-strip[data-name="k"] button').nth(3).focus()
    explained("k", 3)
    page.keyboard.press("Tab")
    explained("k", 4)


def test_score_table_builds_wei_in_four_steps(page):
    figure, d = fig(page, "score-table"), data_of(page, "score-table")
    rows = figure.locator("table.sa-table tr")

    def table() -> list[list[str]]:
        return rows.evaluate_all(
            "(trs) => trs.slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent))"
        )

    raw = table()
    assert len(raw) == 8 and all(len(r) == 8 for r in raw)
    figure.get_by_role("button", name=re.compile("scaled")).click()
    scaled = table()
    assert number(scaled[5][2]) == pytest.approx(number(raw[5][2]) / math.sqrt(d["hs"]), abs=0.02)
    figure.get_by_role("button", name="3. masked").click()
    masked = table()
    infinite = {(i, j) for i in range(8) for j in range(8) if masked[i][j] == "\u2212\u221e"}
    assert infinite == {(i, j) for i in range(8) for j in range(8) if j > i}
    assert figure.locator("td.sa-masked").count() == 28
    assert masked[3][:4] == scaled[3][:4], "masking leaves the past alone"
    figure.get_by_role("button", name="4. softmax").click()
    soft = table()
    assert figure.locator("th", has_text="row sum").count() == 1
    for i, row in enumerate(soft):
        weights = [number(x) for x in row[:8]]
        assert row[8] == "1.00"
        assert sum(weights) == pytest.approx(1, abs=0.02)
        assert all(w == 0 for w in weights[i + 1 :]), "the future gets weight 0"
    assert figure.locator("button[aria-pressed=true]").inner_text() == "4. softmax"


def test_mixing_sums_weighted_value_rows_into_the_out_row(page, figure_cells):
    figure = fig(page, "mix-values")
    figure.get_by_role("button", name="row 5: space").click()
    terms = figure.locator(".sa-terms .sa-w")
    assert terms.count() == 7, "six weighted rows of v and the sum"
    weights = [float(terms.nth(j).inner_text()) for j in range(6)]
    assert sum(weights) == pytest.approx(1, abs=0.005)
    out = figure.locator(".sa-out span")
    shown = [float(out.nth(k).get_attribute("data-v")) for k in range(out.count())]
    names, _ = figure_cells
    s = head_stages(names["model"], names["corpus"].tokenizer, names["text"])
    assert np.allclose(shown, s.out[0, 5], atol=2e-3), "the row the browser adds up is the head's output"
    assert "Row 5" in status(figure) and "6 value rows" in status(figure)
    assert figure.locator("tr.sa-picked").count() == 1


def test_training_plays_the_curve_past_the_bigram_line(page):
    figure, d = fig(page, "training"), data_of(page, "training")
    slider = figure.locator("input[type=range]")
    last = d["steps"][-1]
    assert slider.input_value() == "0" and "above the bigram" in status(figure)
    assert figure.locator("circle.sa-cross").get_attribute("visibility") == "hidden"
    play = figure.locator("button").first
    assert play.inner_text() == "Play"
    play.click()
    assert play.inner_text() == "Pause"
    page.wait_for_function(
        f"() => document.querySelector('.sa-fig[data-kind=\"training\"] input').value === '{last}'",
        timeout=15_000,
    )
    expect(play).to_have_text("Play")  # the animation's last frame hands the button back
    assert f"below the bigram's {d['bigram']:.2f} since about step {d['cross']}" in status(figure)
    assert figure.locator("circle.sa-cross").get_attribute("visibility") == "visible"
    points = figure.locator("polyline.sa-val").get_attribute("points").split()
    assert len(points) == len(d["steps"]) + 1
    slider.focus()
    page.keyboard.press("Home")
    assert slider.input_value() == "0" and status(figure).startswith("Step 0 ")
    page.keyboard.press("End")
    assert status(figure).startswith(f"Step {last} of {last}")


def test_before_after_toggles_the_weight_matrices(page):
    figure, d = fig(page, "before-after"), data_of(page, "before-after")
    canvases = figure.locator("canvas")
    assert canvases.count() == len(d["mats"]) == 6

    def pixels() -> list[str]:
        return canvases.evaluate_all("(cs) => cs.map((c) => c.toDataURL())")

    before = pixels()
    assert figure.get_by_role("button", name="Before training").get_attribute("aria-pressed") == "true"
    figure.get_by_role("button", name="After training").click()
    assert figure.get_by_role("button", name="After training").get_attribute("aria-pressed") == "true"
    after = pixels()
    assert all(a != b for a, b in zip(after, before, strict=True)), "every matrix changed"
    query = next(i for i, m in enumerate(d["mats"]) if m["name"] == "sa_head.query.weight")
    assert f"std {d['mats'][query]['std'][1]:.3f}" in figure.locator(".sa-mat").nth(query).inner_text()
    assert status(figure) == d["notes"]["after"]
    figure.get_by_role("button", name="Before training").click()
    assert pixels() == before
    assert status(figure) == d["notes"]["before"]
    total = d["count"]["parameters"]
    assert f"{total:,} random starting numbers in {d['count']['tensors']} tensors" in status(figure)


def test_heatmap_slider_steps_through_the_snapshots(page):
    figure, d = fig(page, "heatmap-steps"), data_of(page, "heatmap-steps")
    slider = figure.locator("input[type=range]")
    first, last = d["snapshots"][0], d["snapshots"][-1]
    readout = figure.locator(".sa-shape")
    assert readout.inner_text() == f"step {first['step']} · loss {first['loss']:.4f}"
    slider.focus()
    page.keyboard.press("End")
    assert readout.inner_text() == f"step {last['step']} · loss {last['loss']:.4f}"
    cells = figure.locator("table.sa-table tr").nth(2).locator("td")
    assert [float(cells.nth(j).inner_text()) for j in range(cells.count())] == [
        round(w, 2) for w in last["w"][1]
    ]
    page.keyboard.press("ArrowLeft")
    assert readout.inner_text().startswith(f"step {d['snapshots'][-2]['step']} ")
    assert slider.get_attribute("aria-valuetext").startswith(f"step {d['snapshots'][-2]['step']},")


def test_next_token_sliders_reshape_the_distribution_as_the_package_does(page):
    """Each slider state shows Sampling.probabilities of the figure's own scores, and what can be drawn."""
    figure, d = fig(page, "next-token"), data_of(page, "next-token")
    logits = torch.tensor([d["logits"]], dtype=torch.float64)  # (1, V), as the page computes
    order = torch.softmax(logits[0], dim=-1).argsort(descending=True).tolist()
    shown, rest = order[: d["bars"]], order[d["bars"] :]
    temperature, top_k, top_p = (figure.locator("input[type=range]").nth(i) for i in range(3))

    def expect_state(**settings):
        probs = Sampling(**settings).probabilities(logits)[0]
        values = [f"{probs[i]:.2f}" for i in shown] + [f"{probs[rest].sum():.2f}"]
        rows = figure.locator(".sa-bar-value")
        assert [rows.nth(r).inner_text().split(" \u2192 ")[1] for r in range(rows.count())] == values
        kept = int((probs > 0).sum())
        assert status(figure).startswith(f"{kept} of {len(d['tokens'])} characters can be drawn."), settings
        dropped = sum(probs[i] == 0 for i in shown) + (probs[rest].sum() == 0)
        assert figure.locator(".sa-dropped").count() == dropped

    expect_state()
    temperature.focus()
    page.keyboard.press("Home")
    assert temperature.get_attribute("aria-valuetext") == "0.10"
    expect_state(temperature=0.1)
    figure.get_by_role("button", name="Reset").click()
    top_k.focus()
    page.keyboard.press("Home")
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    expect_state(top_k=5)
    page.keyboard.press("End")
    assert top_k.get_attribute("aria-valuetext") == f"all {len(d['tokens'])}"
    top_p.focus()
    page.keyboard.press("Home")
    for _ in range(17):
        page.keyboard.press("ArrowRight")
    assert top_p.get_attribute("aria-valuetext") == "0.90"
    expect_state(top_p=0.9)
    temperature.focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect_state(temperature=0.9, top_p=0.9)


# Every piece of text in the figures, with the WCAG contrast ratio between its colour and the
# first opaque background behind it.
CONTRASTS = """() => {
  const rgb = (css) => css.match(/[\\d.]+/g).map(Number);
  const lum = (c) => c.slice(0, 3).map((v) => v / 255)
    .map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = (n) => {
    for (; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c;
    }
    return [255, 255, 255];
  };
  const texts = [...document.querySelectorAll('.sa-fig *')].filter((n) =>
    [...n.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim()) && n.offsetParent !== null
    && !n.closest('.sa-sr') && !['SCRIPT', 'STYLE'].includes(n.tagName));
  return texts.map((n) => {
    const [a, b] = [lum(rgb(getComputedStyle(n).color)), lum(background(n))];
    return [n.tagName + '.' + n.className + ' ' + n.textContent.slice(0, 20),
            (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
  });
}"""


def test_ladder_replays_every_run_together(page):
    figure, d = fig(page, "ladder"), data_of(page, "ladder")
    lines = figure.locator("polyline.sa-curve")
    assert lines.count() == len(d["series"]) == figure.locator(".sa-legend li").count()
    last = max(c["steps"][-1] for c in d["series"])
    finals = [f"{c['label']} {c['val'][-1]:.2f}" for c in d["series"]]
    assert status(figure).startswith(f"Step {last} of {last}") and all(f in status(figure) for f in finals)
    slider = figure.locator("input[type=range]")
    slider.focus()
    page.keyboard.press("Home")
    assert status(figure).startswith("Step 0 of")
    starts = [f"{c['label']} {c['val'][0]:.2f}" for c in d["series"]]
    assert all(s in status(figure) for s in starts)
    assert all(len(lines.nth(i).get_attribute("points").split()) == 2 for i in range(lines.count()))
    figure.locator("button").first.click()
    page.wait_for_function(
        f"() => document.querySelector('.sa-fig[data-kind=\"ladder\"] input').value === '{last}'",
        timeout=15_000,
    )
    for i, c in enumerate(d["series"]):
        assert len(lines.nth(i).get_attribute("points").split()) == len(c["steps"]) + 1


def test_head_maps_show_each_heads_weights_and_read_out_a_row(page):
    figure, d = fig(page, "head-maps"), data_of(page, "head-maps")
    T, heads = len(d["tokens"]), figure.locator(".sa-row button")
    assert heads.count() == len(d["heads"]) and heads.nth(0).get_attribute("aria-pressed") == "true"
    for h in range(len(d["heads"])):
        heads.nth(h).click()
        cells = figure.locator("td.sa-c")
        assert cells.count() == T * T
        shown = [[cells.nth(r * T + j).inner_text() for j in range(T)] for r in range(T)]
        assert all(shown[r][j] == "" for r in range(T) for j in range(T) if j > r), (
            "nothing above the diagonal"
        )
        assert shown[T - 1] == [f"{w:.2f}" for w in d["heads"][h][T - 1]]
        best = max(range(T), key=lambda j: d["heads"][h][T - 1][j])
        assert status(figure).startswith(f"Head {h}, position {T - 1} (")
        assert f"{d['heads'][h][T - 1][best]:.2f} on" in status(figure)
    figure.locator("tr th button").nth(2).click()
    assert "position 2 (" in status(figure) and "sa-picked" in (
        figure.locator("tr").nth(3).get_attribute("class")
    )


def test_text_is_legible_in_light_and_dark_mode(page):
    """One visit, the reader's colour scheme switched on it: the page follows it, and so does
    every figure's text."""
    fig(page, "score-table").get_by_role("button", name="4. softmax").click()
    fig(page, "averaging").get_by_role("button", name="4. a @ b").click()
    for mode in ("light", "dark"):
        page.emulate_media(color_scheme=mode)
        page.wait_for_function("(mode) => document.documentElement.dataset.theme === mode", arg=mode)
        background = page.eval_on_selector(".sa-fig", "(n) => getComputedStyle(n).backgroundColor")
        assert (mode == "dark") == (sum(map(int, re.findall(r"\d+", background)[:3])) < 150), background
        ratios = page.evaluate(CONTRASTS)
        assert len(ratios) > 400, "numbers, labels, buttons and captions of every figure"
        low = [(text, round(ratio, 2)) for text, ratio in ratios if ratio < 4.5]
        assert low == [], (mode, low[:10])
