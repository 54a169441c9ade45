// The book's interactive figures. Each figure's output carries this script; it defines
// window.selfattnFigures once per page, then watches every figure not yet drawn, drawing each
// when it comes near the screen.
(function () {
  "use strict";
  const VERSION = "__VERSION__";
  const old = window.selfattnFigures;
  if (old && old.version === VERSION) {
    old.watchAll();
    return;
  }
  if (old && old.observer) old.observer.disconnect();
  if (old && old.near) old.near.disconnect();
  if (old && old.beforePrint) window.removeEventListener("beforeprint", old.beforePrint);

  // A text in the page's language, its {name}s filled in from values: the translation the page
  // gives in window.selfattnText (the Chinese site does), else the English.
  function phrase(english, values) {
    const own = (window.selfattnText || {})[english] || english;
    return own.replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? values[name] : whole));
  }

  // ---- small DOM helpers
  function el(tag, props, kids) {
    const node = document.createElement(tag);
    Object.keys(props || {}).forEach((key) => {
      const value = props[key];
      if (key === "text") node.textContent = value;
      else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    });
    (kids || []).forEach((kid) => {
      node.appendChild(typeof kid === "object" ? kid : document.createTextNode(String(kid)));
    });
    return node;
  }
  function button(label, onclick, cls) {
    return el("button", { type: "button", class: cls || "", onclick: onclick }, [label]);
  }
  function press(buttons, index) {
    buttons.forEach((b, i) => {
      b.setAttribute("aria-pressed", String(i === index));
    });
  }
  function statusLine() {
    return el("p", { class: "sa-status", "aria-live": "polite" });
  }
  function fmt(x, digits) {
    return x === null ? "\u2212\u221e" : x.toFixed(digits === undefined ? 2 : digits);
  }
  function paren(x) {
    return x < 0 ? "(" + fmt(x) + ")" : fmt(x);
  }
  function spoken(s) {
    return s === "\u21b5" ? phrase("newline") : s === "\u2423" ? phrase("space") : s;
  }
  function quote(s) {
    return "\u201c" + s + "\u201d";
  }
  function sum(xs) {
    return xs.reduce((a, b) => a + b, 0);
  }
  function std(xs) {
    const m = sum(xs) / xs.length;
    return Math.sqrt(sum(xs.map((x) => (x - m) * (x - m))) / xs.length);
  }
  function maxAbs(rows) {
    return Math.max(...rows.flat().filter((x) => x !== null).map(Math.abs)) || 1;
  }

  // ---- colours: viridis for weights in [0, 1], blue-white-red for signed numbers
  const VIRIDIS = [[68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142],
    [31, 158, 137], [53, 183, 121], [110, 206, 88], [181, 222, 43], [253, 231, 37]];
  const DIVERGING = [[33, 102, 172], [103, 169, 207], [209, 229, 240], [247, 247, 247],
    [253, 219, 199], [239, 138, 98], [178, 24, 43]];
  function ramp(stops, t) {
    t = Math.min(1, Math.max(0, t)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(t)), f = t - i;
    return stops[i].map((c, k) => Math.round(c + f * (stops[i + 1][k] - c)));
  }
  function paint(node, rgb) {  // black or white text, whichever contrasts more (WCAG)
    const lum = rgb.map((c) => {
      c /= 255;
      return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    const L = 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2];
    node.style.background = "rgb(" + rgb.join(",") + ")";
    node.style.color = (L + 0.05) / 0.05 > 1.05 / (L + 0.05) ? "#000" : "#fff";
    return node;
  }
  function signed(x, scale) {
    return ramp(DIVERGING, 0.5 + x / (2 * scale));
  }
  function strip(values, scale, withNumbers, pick) {  // with pick(k): each cell a button pointing at k
    return el("div", { class: withNumbers ? "sa-strip" : "sa-strip sa-thin" }, values.map((x, k) => {
      const props = { "data-v": x, title: fmt(x, 3), text: withNumbers ? fmt(x) : "\u00a0" };
      return paint(pick ? pointable(el("button", Object.assign(props, { type: "button" })), () => { pick(k); })
        : el("span", props), signed(x, scale));
    }));
  }
  function pointable(node, show) {  // show() when the node is pointed at, focused or clicked
    ["mouseenter", "focus", "click"].forEach((type) => { node.addEventListener(type, show); });
    return node;
  }
  // A row of buttons, one per label, that call pick(i); press(buttons, i) marks the chosen one.
  function choices(labels, groupLabel, pick) {
    const buttons = labels.map((label, i) => button(label, () => { pick(i); }));
    return { buttons, row: el("div", { class: "sa-row", role: "group", "aria-label": groupLabel }, buttons) };
  }
  // One button per position of a sequence, its index above its character.
  function positions(tokens, groupLabel, pick) {
    const row = el("div", { class: "sa-row", role: "group", "aria-label": groupLabel });
    const buttons = tokens.map((tok, t) => row.appendChild(el("button", {
        type: "button", class: "sa-pos", "aria-label": phrase("position {t}: {token}", { t, token: spoken(tok) }),
        onclick: () => { pick(t); }
      }, [el("small", { text: t }), " ", el("b", { text: tok })])));  // " ": its name holds what it shows
    return { buttons, row };
  }
  // Fill table with a header row of column labels, then per row of values a row label and
  // cell(x, r, j) for each value (a td).
  function matrix(table, columns, rows, rowLabel, cell) {
    const head = el("tr", {}, [el("th", { text: "" })]);
    columns.forEach((c) => { head.append(el("th", { scope: "col", text: c })); });
    table.replaceChildren(head);
    rows.forEach((row, r) => {
      table.append(el("tr", {}, [el("th", { scope: "row", text: rowLabel(r) })].concat(row.map((x, j) => cell(x, r, j)))));
    });
    return table;
  }

  const views = {};

  // 1. The context window: position t sees positions 0..t.
  views["context-window"] = function (body, d) {
    const T = d.tokens.length, status = statusLine();
    const { row, buttons } = positions(d.tokens, phrase("positions of the context window"), pick);
    function pick(t) {
      buttons.forEach((b, i) => {
        b.classList.toggle("sa-lit", i <= t);
        b.classList.toggle("sa-dim", i > t);
        b.classList.toggle("sa-next", i === t + 1);
      });
      press(buttons, t);
      const values = { t, seen: quote(d.tokens.slice(0, t + 1).join("")), next: quote(d.next[t]), first: t + 1,
        last: T - 1 };
      status.textContent = t < T - 1
        ? phrase("Position {t} sees positions 0 to {t} ({seen}) and must predict the next character, {next}. " +
          "Positions {first} to {last} are hidden from it.", values)
        : phrase("Position {t} sees positions 0 to {t} ({seen}) and must predict the next character, {next}, " +
          "which lies just past the window.", values);
    }
    body.append(row, status, el("p", { class: "sa-note", text: phrase("Click a position. Lit: what it can see; " +
      "dashed: the character it must predict.") }));
    pick(d.start);
  };

  // 2. The batch: B random windows of T ids; each id stands for a vector of C numbers.
  views.batch = function (body, d) {
    let seed = d.seed >>> 0, draws = 1, starts = d.starts, picked = [0, 0];
    const ids = {}, scale = maxAbs(d.emb), status = statusLine(), detail = el("div");
    d.vocab.split("").forEach((ch, i) => { ids[ch] = i; });
    function random() {  // mulberry32: a small seeded generator
      seed = (seed + 0x6d2b79f5) >>> 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }
    const table = el("table", { class: "sa-table" });
    function render() {
      const head = el("tr", {}, [el("th", { text: "b \\ t" })]);
      for (let t = 0; t < d.T; t++) head.appendChild(el("th", { scope: "col", text: t }));
      table.replaceChildren(head);
      starts.forEach((start, b) => {
        const tr = table.appendChild(el("tr", {}, [el("th", { scope: "row", text: b })]));
        d.text.slice(start, start + d.T).split("").forEach((ch, t) => {
          const shown = ch === "\n" ? "\u21b5" : ch === " " ? "\u2423" : ch;
          tr.appendChild(el("td", { class: "sa-c" }, [el("button", {
            type: "button", class: "sa-cell", "data-id": ids[ch], "data-char": ch,
            "aria-label": phrase("row {b}, position {t}: id {id}, {char}", { b, t, id: ids[ch], char: spoken(shown) }),
            onclick: () => { picked = [b, t]; show(); }
          }, [el("b", { text: ids[ch] }), " ", el("small", { text: shown })])]));
        });
      });
      status.textContent = phrase("Batch {n}: {B} windows of {T} characters, starting at characters {starts} " +
        "of the excerpt.", { n: draws, B: d.B, T: d.T, starts: starts.join(", ") });
      show();
    }
    function show() {
      const cells = table.querySelectorAll("button.sa-cell"), cell = cells[picked[0] * d.T + picked[1]];
      const id = Number(cell.getAttribute("data-id"));
      press([...cells], picked[0] * d.T + picked[1]);
      detail.replaceChildren(
        el("p", { class: "sa-note", text: phrase("xb[{b}, {t}] = {id} is looked up as row {id} of the token " +
          "embedding table: a vector of C = {C} numbers.", { b: picked[0], t: picked[1], id, C: d.C }) }),
        strip(d.emb[id], scale, true));
    }
    body.append(el("div", { class: "sa-row" }, [button(phrase("Draw another batch"), () => {
      starts = starts.map(() => Math.floor(random() * (d.text.length - d.T)));
      draws += 1;
      render();
    })]), table, status, detail);
    render();
  };

  // 3. The (B, T, C) walk: B and T stay, the last axis changes.
  views["shape-walk"] = function (body, d) {
    const shape = el("p", { class: "sa-shape" }), code = el("code"), status = statusLine();
    const heat = el("div", { class: "sa-heat" });
    let timer = null, current = 0;
    const buttons = d.stops.map((stop, i) => button(stop.label, () => { stopRun(); go(i); }));
    function go(i) {
      const stop = d.stops[i], names = stop.shape.length === 2 ? ["B", "T"] : ["B", "T", "C"];
      current = i;
      press(buttons, i);
      shape.replaceChildren("(" + names.join(", ") + ") = (");
      stop.shape.forEach((n, k) => {
        if (k) shape.append(", ");
        shape.append(el("span", { class: k === stop.axis ? "sa-changed" : "", text: n }));
      });
      shape.append(")");
      code.textContent = stop.code;
      status.textContent = stop.note;
      const C = stop.shape.length === 2 ? 1 : stop.shape[2], scale = C > 1 ? maxAbs(stop.values) : 1;
      heat.style.gridTemplateColumns = "auto repeat(" + C + ", " + (C > 1 ? "7px" : "auto") + ")";
      heat.setAttribute("data-columns", C);
      heat.replaceChildren();
      stop.values.forEach((row, t) => {
        heat.append(el("span", { class: "sa-label", text: d.tokens[t] }));
        (C > 1 ? row : [row]).forEach((x) => {
          heat.append(C > 1 ? paint(el("span", { title: fmt(x) }), signed(x, scale))
            : el("span", { class: "sa-label", text: x }));
        });
      });
    }
    function stopRun() {
      clearTimeout(timer);
      timer = null;
    }
    const run = button(phrase("Run to logits"), () => {
      stopRun();
      go(0);
      (function next() {
        if (current < d.stops.length - 1) timer = setTimeout(() => { go(current + 1); next(); }, 700);
        else timer = null;
      })();
    });
    body.append(el("div", { class: "sa-row", role: "group", "aria-label": phrase("stops") }, buttons.concat([run])),
      shape, el("p", {}, [code]), status,
      el("p", { class: "sa-note", text: phrase("Below: sequence 0 of the batch, one row per position, " +
        "one coloured cell per number along the last axis.") }), heat);
    go(0);
  };

  // 4. The averaging matrix a, built in three torch calls, then c = a @ b.
  views.averaging = function (body, d) {
    const T = d.b.length, n = d.b[0].length, scale = maxAbs(d.b.concat(d.c)), status = statusLine();
    const code = el("code"), mats = el("div", { class: "sa-mats" });
    const arithmetic = el("p", { class: "sa-numbers", "aria-live": "polite" });
    const labels = [phrase("1. ones"), "2. tril", phrase("3. \u00f7 row sums"), "4. a @ b"];
    const { buttons, row } = choices(labels, phrase("stages"), show);
    const index = (k) => [...Array(k).keys()], label = (r) => r;
    let tables = {};
    function operand(name, table) {
      table.setAttribute("data-name", name);
      tables[name] = table;
      return el("div", { class: "sa-operand" }, [el("code", { text: name }), table]);
    }
    function show(i) {
      const stage = d.stages[i];
      press(buttons, i);
      code.textContent = stage.code;
      status.textContent = stage.note;
      arithmetic.textContent = "";
      tables = {};
      mats.replaceChildren(operand("a", matrix(el("table", { class: "sa-table" }), index(T), stage.a, label,
        (x) => paint(el("td", { text: fmt(x, stage.digits) }), ramp(VIRIDIS, x)))));
      if (i < d.stages.length - 1) return;
      const b = matrix(el("table", { class: "sa-table" }), index(n), d.b, label,
        (x) => paint(el("td", { text: fmt(x) }), signed(x, scale)));
      const c = matrix(el("table", { class: "sa-table" }), index(n), d.c, label, (x, r, j) => paint(el("td", {}, [
        pointable(el("button", { type: "button", "aria-label": "c[" + r + ", " + j + "] = " + fmt(x) }, [fmt(x)]),
          () => { explain(r, j); })]), signed(x, scale)));
      mats.append(el("span", { class: "sa-op", text: "@" }), operand("b", b), el("span", { class: "sa-op", text: "=" }),
        operand("c", c));
      explain(T - 1, 0);
    }
    function explain(r, j) {  // c[r, j]: row r of a times column j of b
      const a = d.stages[d.stages.length - 1].a;
      mats.querySelectorAll(".sa-hl").forEach((td) => { td.classList.remove("sa-hl"); });
      index(T).forEach((k) => {
        tables.a.rows[r + 1].cells[k + 1].classList.add("sa-hl");
        tables.b.rows[k + 1].cells[j + 1].classList.add("sa-hl");
      });
      tables.c.rows[r + 1].cells[j + 1].classList.add("sa-hl");
      arithmetic.textContent = phrase("c[{r}, {j}] = row {r} of a \u00b7 column {j} of b = {products} = {total}", {
        r, j, products: index(T).map((k) => fmt(a[r][k]) + "\u00d7" + paren(d.b[k][j])).join(" + "),
        total: fmt(d.c[r][j]) });
    }
    body.append(row, el("p", {}, [code]), status, mats, arithmetic);
    show(0);
  };

  // 5. From x to q, k and v: each output number is x times one column of a weight matrix.
  views.qkv = function (body, d) {
    const names = ["q", "k", "v"], C = d.x[0].length, status = statusLine(), scaleX = maxAbs(d.x);
    const input = el("div"), outputs = el("div", { class: "sa-outputs" }), detail = el("div");
    let t = d.position;
    const { buttons, row } = positions(d.tokens, phrase("position"), (p) => { t = p; show(); });
    function show() {
      press(buttons, t);
      input.replaceChildren(el("p", { class: "sa-note", text: phrase("x[{t}], the input vector of position {t} " +
        "({token}): {C} numbers", { t, token: quote(d.tokens[t]), C }) }), strip(d.x[t], scaleX, true));
      outputs.replaceChildren();
      names.forEach((name) => {
        const values = d.out[name][t], cells = strip(values, maxAbs(d.out[name]), true, (j) => { explain(name, j); });
        cells.setAttribute("data-name", name);
        [...cells.children].forEach((cell, j) => {
          cell.setAttribute("aria-label", name + "[" + j + "] = " + fmt(values[j]));  // as shown; title: 3 digits
        });
        outputs.append(el("code", { text: name + " = x W_" + name }), cells);
      });
      explain("q", 0);
    }
    function explain(name, j) {  // name[j] = sum over i of x[i] * W[i, j]
      const x = d.x[t], column = d.w[name].map((weights) => weights[j]), parts = x.map((xi, i) => xi * column[i]);
      outputs.querySelectorAll(".sa-hl").forEach((cell) => { cell.classList.remove("sa-hl"); });
      outputs.querySelector('[data-name="' + name + '"]').children[j].classList.add("sa-hl");
      const terms = x.map((xi, i) => paren(xi) + "\u00d7" + paren(column[i]));
      status.textContent = phrase("{name}[{j}] = \u03a3 x[i]\u00b7W_{name}[i, {j}] = {terms} ({C} products) = {value}", {
        name, j, C, terms: terms.slice(0, 3).join(" + ") + " + \u2026 + " + terms[C - 1],
        value: fmt(d.out[name][t][j], 3) });
      detail.replaceChildren(
        el("p", { class: "sa-note", text: phrase("Column {j} of W_{name}: one weight per number of x", { j, name }) }),
        strip(column, maxAbs(d.w[name]), true),
        el("p", { class: "sa-note", text: phrase("x[i]\u00b7W_{name}[i, {j}]: the {C} products that add up to " +
          "{name}[{j}]", { name, j, C }) }),
        strip(parts, maxAbs([parts]), true));
    }
    body.append(row, input, el("p", { class: "sa-note", text: phrase("Point at a number of q, k or v, or reach " +
      "it with Tab, to see the weights that made it.") }), outputs, status, detail);
    show();
  };

  // 6. The score table: raw q.k, scaled, masked, softmax.
  views["score-table"] = function (body, d) {
    const T = d.tokens.length, status = statusLine(), table = el("table", { class: "sa-table" });
    const stages = [
      ["raw", phrase("1. raw q\u00b7k")], ["scaled", phrase("2. scaled \u00d7 1/\u221a{hs}", { hs: d.hs })],
      ["masked", phrase("3. masked")], ["wei", "4. softmax"]];
    const { buttons, row } = choices(stages.map((s) => s[1]), phrase("stages"), show);
    function show(i) {
      const name = stages[i][0], m = d.stages[name], soft = name === "wei";
      const finite = m.flat().filter((x) => x !== null), scale = maxAbs(m);
      press(buttons, i);
      matrix(table, d.tokens, m, (r) => d.tokens[r], (x) => (x === null
        ? el("td", { class: "sa-masked", text: fmt(x) })
        : paint(el("td", { text: fmt(x) }), soft ? ramp(VIRIDIS, x) : signed(x, scale))));
      if (soft) {
        table.rows[0].append(el("th", { scope: "col", text: phrase("row sum") }));
        m.forEach((r, k) => { table.rows[k + 1].append(el("td", { class: "sa-sum", text: fmt(sum(r), 2) })); });
      }
      const values = { hs: d.hs, factor: fmt(1 / Math.sqrt(d.hs), 3), cells: T * (T - 1) / 2,
        spread: phrase("std {std}, from {min} to {max}",
          { std: fmt(std(finite)), min: fmt(Math.min(...finite)), max: fmt(Math.max(...finite)) }) };
      status.textContent = [
        phrase("Raw scores q\u00b7k: each is a sum of {hs} products, so they spread widely ({spread}).", values),
        phrase("Multiplied by 1/\u221a{hs} = {factor}: the same pattern, a gentler spread ({spread}).", values),
        phrase("Every position after the row's own is set to \u2212\u221e ({cells} cells): no character may look " +
          "at the future.", values),
        phrase("Softmax turns each row into weights: \u2212\u221e becomes 0 and every row sums to 1.")][i];
    }
    body.append(row, table, status,
      el("p", { class: "sa-note", text: phrase("Row: the position that looks; column: the position it looks at.") }));
    show(0);
  };

  // 7. Mixing values: row i of out = sum over j of wei[i, j] * v[j].
  views["mix-values"] = function (body, d) {
    const status = statusLine(), scale = maxAbs(d.v), panel = el("div");
    const table = el("table", { class: "sa-table" }), buttons = [];
    const head = table.appendChild(el("tr", {}, [el("th", { text: "wei" })]));
    d.tokens.forEach((tok) => { head.append(el("th", { scope: "col", text: tok })); });
    d.wei.forEach((row, i) => {
      const b = button(d.tokens[i], () => { pick(i); });
      b.setAttribute("aria-label", phrase("row {i}: {token}", { i, token: spoken(d.tokens[i]) }));
      buttons.push(b);
      const tr = table.appendChild(el("tr", {}, [el("th", { scope: "row" }, [b])]));
      row.forEach((w) => { tr.append(paint(el("td", { text: fmt(w) }), ramp(VIRIDIS, w))); });
    });
    function pick(i) {
      const terms = el("div", { class: "sa-terms" }), out = d.v[0].map(() => 0);
      press(buttons, i);
      table.querySelectorAll("tr").forEach((tr, r) => { tr.classList.toggle("sa-picked", r === i + 1); });
      for (let j = 0; j <= i; j++) {
        const w = d.wei[i][j], part = d.v[j].map((x) => w * x);
        part.forEach((x, k) => { out[k] += x; });
        terms.append(el("span", { class: "sa-w", text: fmt(w, 3) }),
          el("span", { text: "\u00d7 v[" + j + "] " + quote(d.tokens[j]) }), strip(part, scale, false));
      }
      terms.append(el("span", { class: "sa-w", text: phrase("sum") }), el("span", { text: "= out[" + i + "]" }),
        strip(out, scale, false));
      terms.lastChild.className += " sa-out";
      const first = [];
      for (let j = 0; j <= i; j++) first.push(fmt(d.wei[i][j], 2) + "\u00d7" + paren(d.v[j][0]));
      status.textContent = phrase("Row {i} ({token}) mixes {n} value rows with weights that sum to {total}. " +
        "Its first number: {products} = {first}.", { i, token: quote(d.tokens[i]), n: i + 1,
        total: fmt(sum(d.wei[i].slice(0, i + 1))), products: first.join(" + "), first: fmt(out[0], 2) });
      panel.replaceChildren(el("p", { class: "sa-note", text: phrase("out[{i}] = \u03a3 wei[{i}, j] \u00b7 v[j]: " +
        "each v row scaled by its weight (fainter = smaller weight), then added up.", { i }) }), terms,
        el("p", { class: "sa-note sa-numbers", text: "out[" + i + "] = [" + out.map((x) => fmt(x)).join(", ") + "]" }));
    }
    body.append(el("p", { class: "sa-note", text: phrase("Click a row of wei.") }), table, status, panel);
    pick(d.row);
  };

  // ---- loss charts (figures 8 and 11): an SVG frame, and a player that replays training
  const NS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach((k) => { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function lossFrame(values, last, label, height) {
    const W = 640, H = height, L = 52, R = 20, TOP = 14, BOT = 40;
    const lo = Math.floor(Math.min(...values) * 10 - 1) / 10, hi = Math.ceil(Math.max(...values) * 10) / 10;
    const x = (s) => L + (W - L - R) * s / last;
    const y = (v) => TOP + (H - TOP - BOT) * (hi - v) / (hi - lo);
    const chart = svg("svg", { class: "sa-chart", viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": label });
    for (let v = Math.ceil(lo * 2) / 2; v <= hi + 1e-9; v += 0.5) {
      chart.append(svg("line", { class: "sa-gridline", x1: L, x2: W - R, y1: y(v), y2: y(v) }),
        svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, v.toFixed(1)));
    }
    for (let k = 0; k <= 5; k++) {
      const st = Math.round(last * k / 5);
      chart.append(svg("text", { x: x(st), y: H - BOT + 18, "text-anchor": "middle" }, st));
    }
    chart.append(svg("path", { class: "sa-axis", d: "M" + L + "," + TOP + "V" + (H - BOT) + "H" + (W - R) }),
      svg("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, phrase("training step")),
      svg("text", { x: 12, y: (TOP + H - BOT) / 2, "text-anchor": "middle",
        transform: "rotate(-90 12 " + (TOP + H - BOT) / 2 + ")" }, phrase("loss")));
    return { chart, x, y, right: W - R, top: TOP };
  }
  function interpolate(steps, values, s) {  // a recorded curve's value at step s (its last value after it)
    for (let i = 1; i < steps.length; i++) {
      if (s <= steps[i]) {
        const f = (s - steps[i - 1]) / (steps[i] - steps[i - 1]);
        return values[i - 1] + f * (values[i] - values[i - 1]);
      }
    }
    return values[values.length - 1];
  }
  function curveUpTo(frame, steps, values, s) {  // polyline points of a curve drawn up to step s
    const end = Math.min(s, steps[steps.length - 1]), pts = [];
    steps.forEach((st, i) => { if (st <= end) pts.push(frame.x(st) + "," + frame.y(values[i])); });
    pts.push(frame.x(end) + "," + frame.y(interpolate(steps, values, end)));
    return pts.join(" ");
  }
  function player(last, stride, duration, show) {
    let frame = null;
    const slider = el("input", { type: "range", min: 0, max: last, step: stride, value: 0,
      "aria-label": phrase("training step"), oninput: () => { pause(); show(Number(slider.value)); } });
    const play = button(phrase("Play"), () => {
      if (frame !== null) return pause();
      const from = Number(slider.value) >= last ? 0 : Number(slider.value);
      let t0 = null;
      play.textContent = phrase("Pause");
      function tick(now) {
        if (t0 === null) t0 = now;
        const s = Math.min(last, stride * Math.round((from + (now - t0) / duration * last) / stride));
        show(s);
        frame = s < last ? requestAnimationFrame(tick) : (play.textContent = phrase("Play"), null);
      }
      frame = requestAnimationFrame(tick);
    });
    function pause() {
      if (frame !== null) cancelAnimationFrame(frame);
      frame = null;
      play.textContent = phrase("Play");
    }
    return { slider, row: el("div", { class: "sa-row" }, [play, slider]) };
  }

  // 8. Training: the attention model's recorded loss, played back against the bigram's line.
  views.training = function (body, d) {
    const last = d.steps[d.steps.length - 1], all = d.val.concat(d.batch.map((p) => p[1]), [d.bigram]);
    const f = lossFrame(all, last, phrase("{label} loss curve against the bigram's {bigram}",
      { label: d.label, bigram: fmt(d.bigram) }), 300);
    const cross = d.cross;
    f.chart.append(svg("line", { class: "sa-bigram", x1: f.x(0), x2: f.right, y1: f.y(d.bigram), y2: f.y(d.bigram) }),
      svg("text", { x: f.right, y: f.y(d.bigram) - 6, "text-anchor": "end" },
        phrase("bigram {loss}", { loss: fmt(d.bigram) })));
    const batch = f.chart.appendChild(svg("polyline", { class: "sa-batch", points: "" }));
    const val = f.chart.appendChild(svg("polyline", { class: "sa-val", points: "" }));
    const dot = f.chart.appendChild(svg("circle", { class: "sa-cross", r: 5, visibility: "hidden" }));
    if (cross !== null) { dot.setAttribute("cx", f.x(cross)); dot.setAttribute("cy", f.y(d.bigram)); }
    f.chart.append(svg("text", { x: f.right, y: f.top + 12, "text-anchor": "end" },
      phrase("{label}: validation (solid), batch loss (thin)", { label: d.label })));
    const status = statusLine();
    const controls = player(last, d.stride, d.duration, show);
    function show(s) {
      controls.slider.value = s;
      const at = interpolate(d.steps, d.val, s);
      val.setAttribute("points", curveUpTo(f, d.steps, d.val, s));
      batch.setAttribute("points", d.batch.filter((p) => p[0] <= s)
        .map((p) => f.x(p[0]) + "," + f.y(p[1])).join(" "));
      const below = cross !== null && s >= cross;
      dot.setAttribute("visibility", below ? "visible" : "hidden");
      const values = { s, last, loss: fmt(at), bigram: fmt(d.bigram), cross };
      const text = below
        ? phrase("Step {s} of {last}: validation loss {loss}, below the bigram's {bigram} since about step {cross}.",
          values)
        : phrase("Step {s} of {last}: validation loss {loss}, above the bigram's {bigram}.", values);
      controls.slider.setAttribute("aria-valuetext", text);
      status.textContent = text;
    }
    body.append(f.chart, controls.row, status);
    show(0);
  };

  // 9. Before and after: the model's weight matrices at initialisation and after training.
  views["before-after"] = function (body, d) {
    const status = statusLine(), lut = [], mats = el("div", { class: "sa-mats" }), stats = [], canvases = [];
    for (let q = 0; q < 256; q++) lut.push(ramp(DIVERGING, q / 255));
    d.mats.forEach((m) => {
      const canvas = el("canvas", { width: m.cols, height: m.rows, role: "img",
        style: "width:" + m.cols * d.px + "px;height:" + m.rows * d.px + "px" });
      const stat = el("span");
      canvases.push(canvas);
      stats.push(stat);
      mats.append(el("div", { class: "sa-mat", style: "width:" + Math.max(m.cols * d.px, 90) + "px" }, [
        el("code", { text: m.name.replace(/\.weight$/, "") }),
        el("span", { text: m.rows + " \u00d7 " + m.cols }), canvas, stat]));
    });
    function draw(state) {
      const which = state === "after" ? 1 : 0;
      press(buttons, which);
      d.mats.forEach((m, i) => {
        const bytes = atob(m[state]), ctx = canvases[i].getContext("2d"), img = ctx.createImageData(m.cols, m.rows);
        for (let p = 0; p < bytes.length; p++) {
          const c = lut[bytes.charCodeAt(p)];
          img.data.set([c[0], c[1], c[2], 255], 4 * p);
        }
        ctx.putImageData(img, 0, 0);
        const values = { name: m.name, rows: m.rows, cols: m.cols, std: fmt(m.std[which], 3) };
        canvases[i].setAttribute("aria-label", which
          ? phrase("{name}, after training: {rows} by {cols} numbers with standard deviation {std}", values)
          : phrase("{name}, before training: {rows} by {cols} numbers with standard deviation {std}", values));
        canvases[i].setAttribute("data-state", state);
        stats[i].textContent = phrase("std {std}", values);
      });
      status.textContent = d.notes[state];
    }
    const buttons = [button(phrase("Before training"), () => { draw("before"); }),
      button(phrase("After training"), () => { draw("after"); })];
    body.append(el("div", { class: "sa-row", role: "group", "aria-label": phrase("weights shown") }, buttons), mats,
      status, el("p", { class: "sa-note", text: phrase("Blue: negative, white: near zero, red: positive; each " +
        "matrix keeps one colour scale before and after.") }));
    draw("before");
  };

  // 10. Attention weights over training, one heatmap per recorded step.
  views["heatmap-steps"] = function (body, d) {
    const status = statusLine(), readout = el("p", { class: "sa-shape" });
    const table = el("table", { class: "sa-table" });
    const slider = el("input", { type: "range", min: 0, max: d.snapshots.length - 1, step: 1, value: d.start,
      "aria-label": phrase("recorded training step"), oninput: () => { show(Number(slider.value)); } });
    function show(i) {
      const snap = d.snapshots[i];
      matrix(table, d.tokens, snap.w, (r) => d.tokens[r], (w) => paint(el("td", { text: fmt(w) }), ramp(VIRIDIS, w)));
      const best = snap.w.map((row, r) => {
        const j = row.indexOf(Math.max(...row));
        return d.tokens[r] + " \u2192 " + d.tokens[j] + " " + fmt(row[j]);
      });
      slider.value = i;
      const values = { step: snap.step, loss: fmt(snap.loss, 4), last: d.snapshots[d.snapshots.length - 1].step,
        best: best.join("; ") };
      readout.textContent = phrase("step {step} \u00b7 loss {loss}", values);
      slider.setAttribute("aria-valuetext", phrase("step {step}, loss {loss}", values));
      status.textContent = phrase("Step {step} of {last}. Largest weight in each row: {best}.", values);
    }
    body.append(el("div", { class: "sa-row" }, [el("label", { text: phrase("Step") }), slider]), readout, table,
      status, el("p", { class: "sa-note", text: phrase("Row: the token that looks; column: the token it looks at. " +
        "Drag the slider or use the arrow keys.") }));
    show(d.start);
  };

  // 11. The ladder: every model's validation loss, replayed together.
  views.ladder = function (body, d) {
    const last = Math.max(...d.series.map((c) => c.steps[c.steps.length - 1]));
    const f = lossFrame(d.series.flatMap((c) => c.val), last,
      phrase("validation loss of {n} models during training", { n: d.series.length }), 340);
    const lines = d.series.map((c) => f.chart.appendChild(svg("polyline", { class: "sa-curve",
      points: "", stroke: c.color, "stroke-dasharray": c.dashed ? "6 4" : "none" })));
    const legend = el("ul", { class: "sa-legend" }, d.series.map((c) => el("li", {}, [
      el("span", { class: "sa-swatch", style: "background:" + c.color }), c.label])));
    const status = statusLine();
    const controls = player(last, d.stride, d.duration, show);
    function show(s) {
      controls.slider.value = s;
      const now = d.series.map((c, i) => {
        lines[i].setAttribute("points", curveUpTo(f, c.steps, c.val, s));
        return c.label + " " + fmt(interpolate(c.steps, c.val, Math.min(s, c.steps[c.steps.length - 1])));
      });
      controls.slider.setAttribute("aria-valuetext", phrase("step {s}", { s }));
      status.textContent = phrase("Step {s} of {last}. Validation loss: {losses}.", { s, last, losses: now.join("; ") });
    }
    body.append(f.chart, legend, controls.row, status);
    show(last);
  };

  // 12. The heads of one block: each head's attention weights for one text. Past COMPACT positions
  // the table is drawn compact, each weight in two digits without its "0" (.49), so that a
  // quatrain's 26 columns fit the page's width.
  const COMPACT = 16;
  function short(x) {
    return x >= 0.995 ? "1" : x.toFixed(2).slice(1);
  }
  views["head-maps"] = function (body, d) {
    const compact = d.tokens.length > COMPACT, status = statusLine();
    const table = el("table", { class: compact ? "sa-table sa-compact" : "sa-table" });
    let head = d.head, row = d.row;
    const heads = d.heads.map((_, h) => button(phrase("head {h}", { h }), () => { head = h; show(); }));
    function show() {
      press(heads, head);
      const w = d.heads[head], top = el("tr", {}, [el("th", { text: "" })]);
      d.tokens.forEach((tok) => { top.append(el("th", { scope: "col", text: tok })); });
      table.replaceChildren(top);
      w.forEach((weights, r) => {
        const pick = button(d.tokens[r], () => { row = r; show(); });
        pick.setAttribute("aria-label", phrase("position {t}: {token}", { t: r, token: spoken(d.tokens[r]) }));
        const tr = table.appendChild(el("tr", { class: r === row ? "sa-picked" : "" }, [el("th", { scope: "row" },
          [pick])]));
        weights.forEach((x, j) => {
          tr.append(j > r ? el("td", { class: "sa-c", text: "" }) : paint(el("td", { class: "sa-c",
            text: compact ? short(x) : fmt(x) }), ramp(VIRIDIS, x)));
        });
      });
      const ranked = w[row].map((x, j) => [x, j]).filter((p) => p[1] <= row).sort((a, b) => b[0] - a[0]);
      const weights = ranked.slice(0, 3).map((p) => phrase("{weight} on {token} ({j})",
        { weight: fmt(p[0]), token: spoken(d.tokens[p[1]]), j: p[1] }));
      status.textContent = phrase("Head {h}, position {row} ({token}) puts {weights}.",
        { h: head, row, token: spoken(d.tokens[row]), weights: weights.join(", ") });
    }
    body.append(el("div", { class: "sa-row", role: "group", "aria-label": phrase("head shown") }, heads), table,
      status, el("p", { class: "sa-note", text: phrase("Pick a head, and a position (a row) to read its largest " +
        "weights. Row: the position that looks; column: the position it looks at.") }));
    show();
  };

  // 13. Choosing the next character: temperature, top-k and top-p reshape the model's distribution,
  // computed as selfattn.sampling.Sampling.probabilities computes it.
  function reshaped(logits, temperature, k, p) {
    let z = logits.map((x) => x / temperature);
    if (k < z.length) {
      const kth = z.slice().sort((a, b) => b - a)[k - 1];
      z = z.map((x) => (x < kth ? -Infinity : x));
    }
    const top = Math.max(...z), e = z.map((x) => Math.exp(x - top)), total = sum(e);
    let probs = e.map((x) => x / total);
    if (p < 1) {
      const order = probs.map((x, i) => i).sort((a, b) => probs[b] - probs[a]);
      let above = 0;
      const dropped = new Array(probs.length).fill(false);
      order.forEach((i) => { dropped[i] = above >= p; above += probs[i]; });
      const kept = sum(probs.filter((x, i) => !dropped[i]));
      probs = probs.map((x, i) => (dropped[i] ? 0 : x / kept));
    }
    return probs;
  }
  views["next-token"] = function (body, d) {
    const V = d.tokens.length, status = statusLine(), bars = el("div", { class: "sa-bars" });
    const before = reshaped(d.logits, 1, V, 1);
    const order = before.map((x, i) => i).sort((a, b) => before[b] - before[a]);
    const shownIds = order.slice(0, d.bars), restIds = order.slice(d.bars);
    function control(label, min, max, step, value, text) {
      const slider = el("input", { type: "range", min, max, step, value, "aria-label": label, oninput: show });
      const readout = el("output", { class: "sa-readout" });
      return { slider, readout, text, cells: [el("span", { text: label }), slider, readout] };
    }
    const t = control(phrase("temperature"), 0.1, 2, 0.05, 1, (v) => fmt(v));
    const k = control(phrase("top-k"), 1, V, 1, V, (v) => (v >= V ? phrase("all {V}", { V }) : String(v)));
    const p = control(phrase("top-p"), 0.05, 1, 0.05, 1, (v) => (v >= 1 ? phrase("off") : fmt(v)));
    const controls = [t, k, p];
    function bar(label, was, now, together) {
      return el("div", { class: now > 0 ? "sa-bar-row" : "sa-bar-row sa-dropped" }, [
        el("span", { class: together ? "sa-bar-label sa-rest" : "sa-bar-label", text: label }),
        el("span", { class: "sa-track" }, [el("span", { class: "sa-was", style: "width:" + (100 * was).toFixed(1) + "%" }),
          el("span", { class: "sa-now", style: "width:" + (100 * now).toFixed(1) + "%" })]),
        el("span", { class: "sa-bar-value", text: fmt(was) + " \u2192 " + fmt(now) })]);
    }
    function show() {
      const [temperature, topK, topP] = controls.map((c) => Number(c.slider.value));
      controls.forEach((c) => {
        const v = c.text(Number(c.slider.value));
        c.readout.textContent = v;
        c.slider.setAttribute("aria-valuetext", v);
      });
      const probs = reshaped(d.logits, temperature, topK, topP);
      const rows = shownIds.map((i) => bar(d.tokens[i], before[i], probs[i]));
      if (restIds.length) {
        rows.push(bar(phrase("the other {n}", { n: restIds.length }), sum(restIds.map((i) => before[i])),
          sum(restIds.map((i) => probs[i])), true));
      }
      bars.replaceChildren(...rows);
      const best = order[0], kept = probs.filter((x) => x > 0).length;
      status.textContent = phrase("{kept} of {V} characters can be drawn. The likeliest, {char}, has probability " +
        "{now} (as the model gives it, {was}).", { kept, V, char: quote(spoken(d.tokens[best])), now: fmt(probs[best]),
        was: fmt(before[best]) });
    }
    const reset = button(phrase("Reset"), () => {
      t.slider.value = 1;
      k.slider.value = V;
      p.slider.value = 1;
      show();
    });
    body.append(el("p", { class: "sa-note", text: phrase("The next character after {prompt}", {
      prompt: quote(d.prompt.join("")) }) }), el("div", { class: "sa-controls" }, controls.flatMap((c) => c.cells)),
    el("div", { class: "sa-row" }, [reset]),
    bars, status, el("p", { class: "sa-note", text: phrase("Pale: the probability as the model gives it; dark: " +
      "after the sliders. A greyed row can no longer be drawn.") }));
    show();
  };

  // ---- mounting
  function mount(fig) {
    fig.setAttribute("data-sa-ready", "");
    const body = fig.querySelector(".sa-body"), view = views[fig.getAttribute("data-kind")];
    body.replaceChildren();
    try {
      view(body, JSON.parse(fig.querySelector("script.sa-data").textContent));
    } catch (err) {
      body.textContent = phrase("This figure could not be drawn ({error}).", { error: err.message });
      console.error(err);
    }
  }
  // A figure is drawn when it comes within a screen of the visible part of the page, so a page
  // opens without drawing the figures far below (their fallback text stands in until then), and
  // every figure is drawn before the page is printed.
  const near = new IntersectionObserver((entries) => {
    entries.filter((entry) => entry.isIntersecting).forEach((entry) => { draw(entry.target); });
  }, { rootMargin: "100% 0px" });
  function draw(fig) {
    near.unobserve(fig);
    if (!fig.hasAttribute("data-sa-ready")) mount(fig);
  }
  function watchAll() {  // observing a figure already observed does nothing
    document.querySelectorAll(".sa-fig:not([data-sa-ready])").forEach((fig) => { near.observe(fig); });
  }
  const beforePrint = () => { document.querySelectorAll(".sa-fig").forEach(draw); };
  window.addEventListener("beforeprint", beforePrint);
  let style = document.getElementById("selfattn-figures-css");
  if (!style) style = document.head.appendChild(el("style", { id: "selfattn-figures-css" }));
  style.textContent = "__CSS__";
  let queued = false;
  const observer = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    Promise.resolve().then(() => { queued = false; watchAll(); });
  });
  observer.observe(document.documentElement, { childList: true, subtree: true });
  window.selfattnFigures = { version: VERSION, watchAll, observer, near, beforePrint };
  watchAll();
})();
