/*
 * Live code for the book's chapter pages, on thebe 0.9.3.
 *
 * The button under the page title (and the theme's "Live Code" launch button) starts it:
 * load thebe, turn every code cell into an editor with its own output area, connect to a
 * Jupyter server (Binder, or the local one `make live` starts), start Python, run the
 * configured setup code and the cells tagged `thebe-init`. thebe comes from the site itself
 * (`_thebe/`, copied in by _ext/content/live_code.py), never from a CDN. The button says what is
 * happening in plain words. A first connection that fails (a Binder image that is still being
 * built sometimes does) is retried once by itself; after that the button says what went wrong
 * and becomes a "try again" button.
 *
 * Running a cell first runs the cells above it that have not run in this kernel yet, so the
 * variables a cell uses exist, just as when the book was built.
 */
(() => {
  "use strict";

  // A text in the page's language, its {name}s filled in from values: the translation the page
  // gives in window.selfattnText (the Chinese site does), else the English.
  function phrase(english, values) {
    const own = (window.selfattnText || {})[english] || english;
    return own.replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? values[name] : whole));
  }

  // A figure's text in the page's language, as _ext/editions/translation/figure_text.py writes the
  // built figures: the translated site gives each page its figures' words (script.figure-words),
  // each number of a text written {0}, {1}..., filled in again from the text a live cell drew.
  const FIGURE_WORDS = JSON.parse(document.querySelector("script.figure-words")?.textContent || "{}");
  const NUMBER = /(?<![\p{L}\p{N}_.-])[-−]?\d+(?:[.,]\d+)*(?![\p{L}\p{N}_])/gu;
  const WORD = /[\p{L}]{2,}/u;
  const TICKS = /[xy]tick_\d+$/;
  const SVG_DATA = "data:image/svg+xml,";

  function figureText(text) {
    const numbers = [];
    const message = text.replace(/[{}]/g, (brace) => brace + brace).replace(NUMBER, (number) => {
      numbers.push(number);
      return `{${numbers.length - 1}}`;
    });
    const translation = FIGURE_WORDS[message];
    if (translation === undefined) return text;
    return translation.replace(/\{(\d+)\}|\{\{|\}\}/g, (whole, at) => (at === undefined ? whole[0] : numbers[at]));
  }

  // An SVG figure a live cell drew (Jupyter shows it as an image), its words translated: the
  // texts a reader reads, not tick labels nor mathematics (texts with parts).
  function translateFigure(img) {
    const src = img.getAttribute("src") || "";
    if (img.dataset.translated || !src.startsWith(SVG_DATA) || !Object.keys(FIGURE_WORDS).length) return;
    img.dataset.translated = "true";
    const svg = new DOMParser().parseFromString(decodeURIComponent(src.slice(SVG_DATA.length)), "image/svg+xml");
    const inTicks = (el) => el !== null && (TICKS.test(el.id || "") || inTicks(el.parentElement));
    let changed = false;
    for (const text of svg.querySelectorAll("text")) {
      if (inTicks(text) || text.children.length || !WORD.test(text.textContent)) continue;
      const translated = figureText(text.textContent);
      changed = changed || translated !== text.textContent;
      text.textContent = translated;
    }
    if (changed) img.setAttribute("src", SVG_DATA + encodeURIComponent(new XMLSerializer().serializeToString(svg)));
  }

  const LABEL = phrase("Live Code: edit and run this page's code");
  const TICK_MS = 1000;
  // No word from Binder for this long means it stopped answering.
  const BINDER_STALL_MS = 5 * 60 * 1000;
  const LOCAL_STALL_MS = 30 * 1000;
  const LOAD_STALL_MS = 60 * 1000;
  const KERNEL_START_MS = 2 * 60 * 1000;
  const GLUE_PREFIX = "application/papermill.record/";

  const state = {
    phase: "idle", // idle | loading | connecting | starting | setup | models | ready | failed
    config: null,
    options: null,
    notebook: null,
    session: null,
    cells: [], // thebe cells in page order, each {cell, run, init}
    ran: new Set(), // ids of cells run in the current kernel
    prepared: false, // setup code ran in the current kernel
    queue: Promise.resolve(),
    ready: null, // promise: the kernel is ready, or the launch failed
    settle: null,
    attempt: 0, // launches so far; a slower, abandoned launch stops when it sees a newer one
    presses: 0, // launches the reader asked for (the automatic retry is not one)
    retried: false, // the current press has used its one automatic retry
    startedAt: 0,
    lastNews: 0,
    ticker: null,
  };

  // ---------------------------------------------------------------- the status button

  function pageConfig() {
    const el = document.getElementById("live-code-config");
    return el ? JSON.parse(el.textContent) : null;
  }

  function button() {
    // The place the page holds for it (_ext/content/live_code.py), else a new one under the title.
    let btn = document.querySelector(".thebe-launch-button");
    if (!btn) {
      const title = document.querySelector("section h1");
      if (!title) return null;
      title.insertAdjacentHTML("afterend", "<button class='thebe-launch-button'></button>");
      btn = title.nextElementSibling;
    }
    if (!btn.classList.contains("live-code-button")) {
      btn.classList.add("live-code-button");
      btn.type = "button";
      btn.removeAttribute("onclick");
      btn.addEventListener("click", () => start());
      btn.innerHTML = "<span class='live-code-text'></span><span class='live-code-clock'></span>";
      show("idle", LABEL);
    }
    return btn;
  }

  function clock() {
    const s = Math.floor((Date.now() - state.startedAt) / 1000);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  function show(phase, text) {
    state.phase = phase;
    const btn = button();
    if (!btn) return;
    btn.dataset.state = phase;
    btn.disabled = !(phase === "idle" || phase === "failed");
    btn.querySelector(".live-code-text").textContent = text;
    btn.title = phase === "failed" ? phrase("Click to try again") : text;
    const waiting = ["loading", "connecting", "starting", "models"].includes(phase);
    if (waiting && !state.ticker) {
      state.ticker = setInterval(tick, TICK_MS);
    } else if (!waiting && state.ticker) {
      clearInterval(state.ticker);
      state.ticker = null;
    }
    btn.querySelector(".live-code-clock").textContent = waiting ? ` (${clock()})` : "";
  }

  const LOAD_FAILED = phrase(
    "Could not load the live-code library from this site. Check your internet connection, then click to try again."
  );
  const CONNECTING_BINDER = phrase(
    "Connecting to Binder (a first launch after the book changes can take several minutes)..."
  );
  const CONNECTING_LOCAL = phrase("Connecting to the local Jupyter server...");

  function tick() {
    const btn = button();
    if (btn) btn.querySelector(".live-code-clock").textContent = ` (${clock()})`;
    const quiet = Date.now() - state.lastNews;
    if (state.phase === "loading" && quiet > LOAD_STALL_MS) fail(LOAD_FAILED);
    if (state.phase === "connecting" && quiet > (state.config.serverInfo ? LOCAL_STALL_MS : BINDER_STALL_MS)) {
      fail(
        state.config.serverInfo
          ? phrase("The local Jupyter server stopped answering. Is `make live` still running? Click to try again.")
          : phrase("Binder stopped answering (mybinder.org may be busy). Click to try again.")
      );
    }
  }

  function news(text) {
    state.lastNews = Date.now();
    if (state.phase === "connecting") show("connecting", text);
  }

  function fail(message) {
    show("failed", message);
    if (state.settle) state.settle(false);
    state.settle = null;
    state.ready = Promise.resolve(false);
  }

  // ---------------------------------------------------------------- loading thebe

  function loadScript(url) {
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.onload = resolve;
      script.onerror = () => {
        script.remove();
        reject(new Error(`could not load ${url}`));
      };
      document.head.appendChild(script);
    });
  }

  function loadStyle(url) {
    return new Promise((resolve) => {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = url;
      link.onload = link.onerror = resolve; // the cells work without it
      document.head.appendChild(link);
    });
  }

  // The configured URL is relative to the site's root (or a full URL).
  function thebeUrl() {
    const root = new URL(document.documentElement.dataset.content_root || "", document.baseURI);
    return new URL(state.config.thebeUrl, root).href;
  }

  async function loadThebe() {
    if (window.thebe && window.thebe.bootstrap) return;
    const url = thebeUrl();
    await loadScript(url);
    // thebe's own styles must come after its script, which injects the base styles.
    await loadStyle(url.replace(/index\.js$/, "thebe.css"));
    window.thebe.on("status", onStatus);
    window.thebe.on("error", onError);
  }

  // ---------------------------------------------------------------- cells

  // thebe pairs the n-th code cell with the n-th output area, so every cell with an editable
  // input gets exactly one output area, added when the page has none (e.g. remove-output).
  // The outputs from the book's build are set aside (thebe would copy them as HTML, losing
  // their event handlers) and put back above the live output area until the cell runs.
  function markCells() {
    const marked = [];
    document.querySelectorAll("div.cell").forEach((dom) => {
      const source = dom.querySelector(".cell_input pre");
      if (!source) return;
      let output = dom.querySelector(".cell_output");
      if (!output) {
        output = document.createElement("div");
        output.className = "cell_output docutils container live-code-output";
        dom.appendChild(output);
      }
      let built = null;
      if (output.firstChild) {
        built = document.createElement("div");
        built.className = "live-code-built-output";
        built.append(...output.childNodes);
      }
      dom.querySelectorAll(".cell_input button.copybtn").forEach((b) => b.remove());
      source.setAttribute("data-executable", "true");
      source.setAttribute("data-language", "python");
      output.setAttribute("data-output", "");
      marked.push({ dom, output, built });
    });
    return marked;
  }

  // myst-nb's glue() leaves records for the book build ("application/papermill.record/...");
  // live, they have nothing to show: render them as empty plain-text outputs (hidden by CSS).
  function hideGlueRecords(rendermime) {
    const plain = rendermime.getFactory("text/plain");
    const types = ["text/plain", "text/html", "text/markdown", "text/latex", "image/png", "image/jpeg",
      "image/svg+xml", "application/json"].map((t) => GLUE_PREFIX + t);
    rendermime.addFactory(
      {
        safe: true,
        mimeTypes: types,
        createRenderer: (options) => {
          const renderer = plain.createRenderer(options);
          renderer.renderModel = () => Promise.resolve();
          renderer.addClass("live-code-glue");
          return renderer;
        },
      },
      0
    );
  }

  function enqueue(job) {
    const next = state.queue.then(job, job);
    state.queue = next.catch(() => null);
    return next;
  }

  async function prepareKernel() {
    if (state.prepared) return;
    state.prepared = true;
    const code = state.config.setup;
    if (!code) return;
    const future = state.session.kernel.requestExecute({ code, silent: true, store_history: false });
    const reply = await future.done;
    if (reply.content.status !== "ok") console.warn("live code: the setup code failed", reply.content);
  }

  // A cell's first run replaces the output the book was built with. While a cell that loads the
  // book's trained runs runs (its code matches the page's `runs` pattern), the button says so.
  async function run(entry, source) {
    if (entry.built) entry.built.remove();
    entry.built = null;
    const loads = state.config.runs && new RegExp(state.config.runs).test(source);
    if (!loads || (state.phase !== "ready" && state.phase !== "setup")) return entry.run(source);
    const before = { phase: state.phase, text: button().querySelector(".live-code-text").textContent };
    state.startedAt = Date.now();
    show("models", phrase("Loading the book's trained models (a model it did not train trains here first)..."));
    try {
      return await entry.run(source);
    } finally {
      if (state.phase === "models") show(before.phase, before.text);
    }
  }

  // Runs `entry`, first running the cells above it that have not run in this kernel.
  async function runWithPrerequisites(entry, source) {
    if (entry.built) entry.built.remove();
    entry.built = null;
    const ok = await state.ready;
    if (!ok) {
      entry.cell.setOutputText(phrase("Live code is not running: see the button under the page title."));
      return null;
    }
    await prepareKernel();
    const index = state.cells.indexOf(entry);
    const pending = state.cells.slice(0, index).filter((e) => !state.ran.has(e.cell.id));
    if (pending.length) {
      const n = pending.length;
      entry.cell.setOutputText(
        n > 1
          ? phrase("Running the {n} cells above this one first...", { n })
          : phrase("Running the cell above this one first...")
      );
      for (const earlier of pending) {
        const result = await run(earlier, earlier.cell.source);
        state.ran.add(earlier.cell.id);
        if (!result || result.error) {
          entry.cell.setOutputText(
            phrase("A cell above this one stopped with an error: fix it, then run this cell again.")
          );
          return result;
        }
      }
    }
    const result = await run(entry, source);
    state.ran.add(entry.cell.id);
    return result;
  }

  // Live cells for every reader: each editor is named by its place on the page, and an image a
  // cell draws is named by the alt text of the one the book was built with (the i-th by the i-th)
  // and written in the page's language.
  function describeCell(dom, output, built, n) {
    dom.querySelectorAll(".CodeMirror textarea").forEach((area) => {
      area.setAttribute("aria-label", phrase("Code cell {n}: edit it, then press run", { n }));
    });
    const alts = built ? [...built.querySelectorAll("img[alt]")].map((img) => img.alt) : [];
    const describe = () =>
      output.querySelectorAll(".jp-OutputArea img").forEach((img, i) => {
        if (!img.hasAttribute("alt")) img.alt = alts[i] || alts[0] || phrase("A figure drawn by the code above");
        translateFigure(img);
      });
    new MutationObserver(describe).observe(output, { childList: true, subtree: true });
  }

  function wrapCells(marked) {
    state.cells = marked.map(({ dom, output, built }, i) => {
      const id = dom.querySelector("[data-thebe-id]").getAttribute("data-thebe-id");
      const cell = state.notebook.getCellById(id);
      describeCell(dom, output, built, i + 1);
      if (built) output.prepend(built);
      const entry = { cell, built, run: cell.execute.bind(cell), init: dom.classList.contains("tag_thebe-init") };
      cell.execute = (source) => enqueue(() => runWithPrerequisites(entry, source ?? cell.source));
      return entry;
    });
  }

  async function runInitCells() {
    await prepareKernel();
    let failed = false;
    for (const entry of state.cells.filter((e) => e.init)) {
      const result = await run(entry, entry.cell.source);
      state.ran.add(entry.cell.id);
      failed = failed || !result || Boolean(result.error);
    }
    return failed;
  }

  // ---------------------------------------------------------------- server and kernel

  function words(message) {
    const text = String(message || "");
    if (state.config.serverInfo) {
      return phrase("Could not reach the local Jupyter server. Is `make live` still running? Click to try again.");
    }
    if (/failed to build|phase: failed/i.test(text)) {
      return phrase("Binder could not prepare this book's environment. Click to try again.");
    }
    return phrase("Could not reach Binder (mybinder.org). Check your internet connection, then click to try again.");
  }

  function onStatus(_, data) {
    if (data.subject !== "server" || state.phase !== "connecting") return;
    const phase = (/Binder is: (\w+)/.exec(data.message || "") || [])[1];
    const text = {
      waiting: phrase("Binder is waiting for a free machine..."),
      fetching: phrase("Binder is fetching this book's repository..."),
      building: phrase("Binder is preparing this book's environment (the first launch can take a few minutes)..."),
      built: phrase("Binder has the environment ready..."),
      pushing: phrase("Binder is storing the new environment..."),
      launching: phrase("Binder is starting a Python server..."),
    }[phase];
    if (data.status === "server-ready") news(phrase("Connected. Starting Python..."));
    else news(text || (state.config.serverInfo ? CONNECTING_LOCAL : CONNECTING_BINDER));
  }

  function onError(_, data) {
    if (data.subject === "cell" || data.subject === "notebook") return; // a cell's own error shows in its output
    if (state.phase === "connecting" || state.phase === "starting") retryOrFail(words(data.message));
  }

  function watchKernel(session) {
    const kernel = session.kernel;
    kernel.statusChanged.connect((_, status) => {
      if (status === "restarting" || status === "autorestarting") {
        state.ran.clear();
        state.prepared = false;
      } else if (status === "dead" && state.session === session) {
        fail(phrase("Python stopped (the kernel died). Click to start a new one."));
      }
    });
    kernel.connectionStatusChanged.connect((_, status) => {
      if (status === "disconnected" && state.session === session && state.phase === "ready") {
        fail(phrase("Lost the connection to Python. Click to reconnect."));
      }
    });
  }

  function withTimeout(promise, ms, message) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  async function serverOptions() {
    const config = state.config;
    const options = {
      useBinder: !config.serverInfo,
      requestKernel: false,
      binderOptions: config.binder,
      kernelOptions: { kernelName: config.kernelName, path: config.path },
      mountRunButton: true,
      mountRunAllButton: true,
      mountRestartButton: true,
      mountRestartAllButton: false, // thebe 0.9.3's "restart & run all" does not restart
      // No MathJax 2 from cdnjs: the page's math is typeset when the book is built.
      mathjaxUrl: "",
      codeMirrorConfig: {
        mode: "python",
        theme: document.documentElement.dataset.theme === "dark" ? "abcdef" : "default",
        lineNumbers: false,
        lineWrapping: true,
      },
    };
    if (config.serverInfo) {
      const root = document.documentElement.dataset.content_root || "";
      const response = await fetch(new URL(root + config.serverInfo, document.baseURI), { cache: "no-store" });
      if (!response.ok) throw new Error(`server info: ${response.status}`);
      const { baseUrl, token } = await response.json();
      options.serverSettings = { baseUrl, wsUrl: baseUrl.replace(/^http/, "ws"), token, appendToken: true };
    }
    return options;
  }

  function connect() {
    const api = window.thebeCore.api;
    const config = api.makeConfiguration(state.options, window.thebe.events);
    return state.options.useBinder ? api.connectToBinder(config) : api.connectToJupyter(config);
  }

  // A failed connection or kernel start: the first time after a press, launch again by
  // itself (a Binder image that has just been built can refuse the first connection).
  function retryOrFail(message) {
    if (state.retried) {
      fail(message);
      return;
    }
    state.retried = true;
    button().dataset.retried = "true";
    launch();
  }

  async function launch() {
    const attempt = ++state.attempt;
    const abandoned = () => attempt !== state.attempt || state.phase === "failed";
    state.startedAt = state.lastNews = Date.now();
    button().dataset.attempt = state.presses;
    if (!state.settle) {
      // cells pressed while a launch (and its retry) is under way wait for this
      state.ready = new Promise((resolve) => {
        state.settle = resolve;
      });
    }
    show("loading", phrase("Loading the live-code library..."));
    try {
      await loadThebe();
    } catch (err) {
      console.warn("live code:", err);
      if (attempt === state.attempt) fail(LOAD_FAILED);
      return;
    }
    if (abandoned()) return;

    let server;
    try {
      state.lastNews = Date.now();
      const connecting = state.config.serverInfo ? CONNECTING_LOCAL : CONNECTING_BINDER;
      show("connecting", state.retried ? phrase("The first try failed; trying once more. {connecting}", { connecting })
        : connecting);
      if (!state.notebook) {
        state.options = await serverOptions();
        const marked = markCells();
        let started;
        try {
          started = await window.thebe.bootstrap(state.options);
        } catch (err) {
          marked.forEach(({ output, built }) => built && output.append(...built.childNodes));
          throw err;
        }
        const { notebook, server: first } = started;
        state.notebook = notebook;
        hideGlueRecords(notebook.rendermime);
        wrapCells(marked);
        server = first;
      } else {
        if (state.config.serverInfo) state.options = await serverOptions();
        server = connect();
      }
      await server.ready;
    } catch (err) {
      console.warn("live code:", err);
      if (!abandoned()) retryOrFail(words(err && err.message ? err.message : err));
      return;
    }
    if (abandoned()) return;

    try {
      show("starting", phrase("Starting Python..."));
      const session = await withTimeout(
        server.startNewSession(state.notebook.rendermime),
        KERNEL_START_MS,
        "the kernel did not start"
      );
      if (abandoned()) return;
      state.session = session;
      state.ran.clear();
      state.prepared = false;
      state.queue = Promise.resolve(); // runs stuck on a lost kernel no longer hold up new ones
      state.notebook.attachSession(session);
      watchKernel(session);
    } catch (err) {
      console.warn("live code:", err);
      if (!abandoned()) retryOrFail(phrase("Python could not start on the server. Click to try again."));
      return;
    }

    show("setup", phrase("Running the setup cells..."));
    state.settle(true);
    state.settle = null;
    const failed = await enqueue(runInitCells);
    if (attempt !== state.attempt || state.phase !== "setup") return;
    show(
      "ready",
      failed
        ? phrase("Live, but a setup cell stopped with an error: see its output.")
        : phrase("Live: edit any cell, then press run (or Shift+Enter).")
    );
  }

  function start() {
    if (state.phase !== "idle" && state.phase !== "failed") return;
    state.config = pageConfig();
    if (!state.config) return;
    state.presses += 1;
    state.retried = false;
    delete button().dataset.retried;
    launch();
  }

  // ---------------------------------------------------------------- page set-up

  window.initThebe = start; // the theme's "Live Code" launch button calls this
  const ready = (fn) =>
    document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", fn) : fn();
  ready(() => {
    if (pageConfig() && document.querySelector("div.cell .cell_input pre")) button();
  });
})();
