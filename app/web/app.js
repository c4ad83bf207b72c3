// s2s serve's page (docs/server.md "The page"): the text goes line by line to POST /v1/translate,
// a few lines per request so that long input shows progress; each line's best hypothesis is shown
// as words that link to the source words they were aligned to (the hypothesis' word_spans, code
// points of the line and of the translation), with the rest of its n-best list a click away.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  // Requests stay small so that progress moves and a stop takes effect soon.
  const CHUNK_LINES = 8;
  const CHUNK_CHARS = 1500;

  const state = { models: [], maxChars: 20000, running: null, view: null, openAlternatives: new Set() };

  // ---- talking to the server ----

  function refusal(response, answer) {
    const said = answer && typeof answer.error === "string" ? answer.error : response.statusText || "no reason given";
    switch (response.status) {
      case 400: return `the server refused the request: ${said}`;
      case 403: return `the server wants an API key: ${said}`;
      case 413: return `the text is too large for the server: ${said}`;
      case 503: {
        const wait = response.headers.get("Retry-After");
        return `the server is busy (${said})` + (wait ? `; try again in ${wait} s` : "");
      }
      default: return `the server failed (HTTP ${response.status}): ${said}`;
    }
  }

  // The answer's JSON; an Error whose message says in words what went wrong.
  async function requestJson(path, body, signal) {
    const init = body === undefined ? { signal }
      : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal };
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      if (e.name === "AbortError") throw e;
      throw new Error("the s2s server cannot be reached (it may have stopped, or the network is down)");
    }
    let answer = null;
    try { answer = await response.json(); } catch (e) { answer = null; }
    if (!response.ok) throw new Error(refusal(response, answer));
    if (answer === null) throw new Error(`the server's answer (HTTP ${response.status}) is not JSON`);
    return answer;
  }

  function languageName(code) {
    try {
      const name = new Intl.DisplayNames(["en"], { type: "language" }).of(code);
      return name && name !== code ? name : code;
    } catch (e) {
      return code;
    }
  }

  async function loadModels() {
    let answer;
    try {
      answer = await requestJson("/v1/models");
    } catch (e) {
      showError(`The page cannot list the languages: ${e.message}. Reload it once the server runs.`);
      return;
    }
    state.models = answer.models;
    state.maxChars = answer.max_chars;
    const select = $("pair");
    answer.models.forEach((m, i) => select.add(new Option(`${languageName(m.source)} → ${languageName(m.target)}`, String(i))));
    describeModel();
  }

  function selectedModel() { return state.models[Number($("pair").value)]; }

  // The note under the language pair: why words are not linked, when they are not.
  function describeModel() {
    const model = selectedModel();
    const note = $("model-note");
    let text = "";
    if (model && !model.alignment)
      text = `This model gives no word alignments (${model.alignment_note}): translations are shown without word links.`;
    else if ($("format").value === "html")
      text = "Word links are not shown for HTML input: its translation is shown as HTML source, tags included.";
    note.textContent = text;
    note.hidden = text === "";
  }

  // ---- options ----

  function wholeNumber(input, name, lowest) {
    const text = input.value.trim();
    if (text === "") return null;
    const n = Number(text);
    if (!Number.isInteger(n) || n < lowest) throw new Error(`${name} must be a whole number, at least ${lowest}.`);
    return n;
  }

  function readGlossary() {
    const terms = [];
    [...$("glossary-rows").rows].forEach((row, i) => {
      const [source, target] = [...row.querySelectorAll("input")].map((input) => input.value.trim());
      if (source === "" && target === "") return;
      if (source === "" || target === "") throw new Error(`Glossary row ${i + 1}: give both a source term and a target term.`);
      terms.push([source, target]);
    });
    return terms;
  }

  function readOptions() {
    const beam = wholeNumber($("beam"), "Beam size", 1);
    const alternatives = wholeNumber($("alternatives"), "Alternatives per line", 0) ?? 0;
    let hypotheses = alternatives + 1;
    if (beam !== null) hypotheses = Math.min(hypotheses, beam);
    return { beam, hypotheses, html: $("format").value === "html", glossary: readGlossary() };
  }

  function requestBody(model, lines, options) {
    const body = { text: lines, source: model.source, target: model.target, num_hypotheses: options.hypotheses };
    if (options.beam !== null) body.beam_size = options.beam;
    if (options.html) body.html = true;
    else if (model.alignment) body.alignment = "hard";
    if (options.glossary.length > 0) body.glossary = options.glossary;
    return body;
  }

  // [first, end) line ranges of at most CHUNK_LINES lines and CHUNK_CHARS characters (a longer
  // line goes alone: the server says when it is over its limit).
  function chunksOf(lines) {
    const budget = Math.min(CHUNK_CHARS, state.maxChars);
    const chunks = [];
    let first = 0, chars = 0;
    lines.forEach((line, i) => {
      const n = [...line].length;
      if (i > first && (i - first >= CHUNK_LINES || chars + n > budget)) {
        chunks.push([first, i]);
        first = i;
        chars = 0;
      }
      chars += n;
    });
    chunks.push([first, lines.length]);
    return chunks;
  }

  // ---- status ----

  function showError(text) { $("error").textContent = text; }

  function showProgress(done, total) {
    const bar = $("progress");
    bar.hidden = false;
    bar.max = total;
    bar.value = done;
    $("progress-text").textContent = `Translating: ${done} of ${total} line${total === 1 ? "" : "s"} done`;
  }

  function finishProgress(text) {
    $("progress").hidden = true;
    $("progress-text").textContent = text;
  }

  function setBusy(busy) {
    $("translate").disabled = busy;
    $("stop").hidden = !busy;
    $("target-view").setAttribute("aria-busy", String(busy));
  }

  function doneSoFar(done, total) {
    if (done === 0) return "Nothing was translated.";
    return `Lines 1 to ${done} of ${total} are translated below, the rest is not.`;
  }

  // ---- translating ----

  function sourceLines() {
    const lines = $("source").value.replace(/\r\n?/g, "\n").split("\n");
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    return lines;
  }

  async function translate() {
    if (state.running) return;
    showError("");
    const model = selectedModel();
    if (!model) {
      showError("No language pair to translate with: the page could not list the server's models.");
      return;
    }
    let options;
    try {
      options = readOptions();
    } catch (e) {
      showError(e.message);
      return;
    }
    const lines = sourceLines();
    if (lines.every((line) => line.trim() === "")) {
      showError("There is no text to translate: type or paste some first.");
      showEditor(true);
      return;
    }
    const controller = new AbortController();
    state.running = controller;
    setBusy(true);
    const results = new Array(lines.length).fill(null);
    const started = performance.now();
    let done = 0;
    let failed = false;
    showProgress(0, lines.length);
    try {
      for (const [first, end] of chunksOf(lines)) {
        const answer = await requestJson("/v1/translate", requestBody(model, lines.slice(first, end), options), controller.signal);
        answer.results.forEach((result, k) => { results[first + k] = result; });
        done = end;
        showProgress(done, lines.length);
      }
    } catch (e) {
      failed = true;
      if (e.name === "AbortError") showError(`Stopped. ${doneSoFar(done, lines.length)}`);
      else showError(`Translation failed: ${e.message}. ${doneSoFar(done, lines.length)}`);
    } finally {
      state.running = null;
      setBusy(false);
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    finishProgress(failed ? "" : `Translated ${lines.length} line${lines.length === 1 ? "" : "s"} in ${seconds} s.`);
    if (done === 0) return;  // the text stays in the editor, to be changed
    const linked = model.alignment && !options.html;
    render({ lines, results, chosen: results.map(() => 0), linked });
  }

  // ---- words and their links ----

  // The runs of ASCII whitespace and of other characters (the words the alignment counts), with
  // their code-point offsets.
  function piecesOf(text) {
    const pieces = [];
    let at = 0;
    for (const match of text.matchAll(/[ \t\n\v\f\r]+|[^ \t\n\v\f\r]+/g)) {
      const length = [...match[0]].length;
      pieces.push({ text: match[0], begin: at, end: at + length, word: !/^[ \t\n\v\f\r]/.test(match[0]) });
      at += length;
    }
    return pieces;
  }

  // The index among `words` of the word holding code point `at`, or -1.
  function wordAt(words, at) {
    return words.findIndex((w) => w.begin <= at && at < w.end);
  }

  // For one line's hypothesis: source word -> target words and back, from its word_spans.
  function linksOf(sourceWords, targetWords, hypothesis) {
    const links = { source: new Map(), target: new Map() };
    const add = (map, from, to) => {
      if (!map.has(from)) map.set(from, new Set());
      map.get(from).add(to);
    };
    for (const [[sourceBegin], [targetBegin]] of hypothesis.word_spans || []) {
      const s = wordAt(sourceWords, sourceBegin), t = wordAt(targetWords, targetBegin);
      if (s < 0 || t < 0) continue;
      add(links.source, s, t);
      add(links.target, t, s);
    }
    return links;
  }

  // A paragraph of the line's words as focusable spans (one tab stop per side: arrow keys move).
  function wordParagraph(text, side, line, linked) {
    const p = document.createElement("p");
    p.className = "line";
    p.dataset.line = String(line);
    if (!linked) {
      p.textContent = text;
      return { element: p, words: [] };
    }
    const words = [];
    for (const piece of piecesOf(text)) {
      if (!piece.word) {
        p.append(piece.text);
        continue;
      }
      const span = document.createElement("span");
      span.className = "w";
      span.textContent = piece.text;
      span.tabIndex = -1;
      span.dataset.side = side;
      span.dataset.line = String(line);
      span.dataset.word = String(words.length);
      words.push(piece);
      p.append(span);
    }
    return { element: p, words };
  }

  function hypothesisOf(view, line) {
    const result = view.results[line];
    if (!result || result.hypotheses.length === 0) return null;
    return result.hypotheses[view.chosen[line]];
  }

  function lineNotes(notes) {
    const said = [];
    if (notes.glossary_unmet) said.push("its glossary terms could not all be placed");
    if (notes.truncated) said.push("it was too long and was cut short");
    else if (notes.split_for_length) said.push("a sentence was too long and was translated in pieces");
    if (notes.short_units.length > 0) said.push("a sentence's translation is implausibly short: content may be missing");
    if (notes.markup_problem) said.push(`not well-formed HTML (${notes.markup_problem}): translated as text`);
    if (notes.unspellable.length > 0) said.push(`the model cannot spell ${notes.unspellable.join(" ")}: kept as given`);
    return said;
  }

  function alternativesList(view, line) {
    const result = view.results[line];
    const tools = document.createElement("div");
    tools.className = "line-tools";
    const toggle = document.createElement("button");
    toggle.type = "button";
    const listId = `alternatives-${line}`;
    const open = state.openAlternatives.has(line);
    toggle.textContent = `Alternatives (${result.hypotheses.length - 1})`;
    toggle.setAttribute("aria-label", `Alternatives for line ${line + 1} (${result.hypotheses.length - 1})`);
    toggle.setAttribute("aria-controls", listId);
    toggle.setAttribute("aria-expanded", String(open));
    toggle.dataset.toggleLine = String(line);
    const list = document.createElement("ol");
    list.id = listId;
    list.className = "alternatives";
    list.hidden = !open;
    result.hypotheses.forEach((h, k) => {
      const item = document.createElement("li");
      const choose = document.createElement("button");
      choose.type = "button";
      choose.textContent = h.text;
      choose.dataset.line = String(line);
      choose.dataset.hypothesis = String(k);
      choose.setAttribute("aria-current", String(k === view.chosen[line]));
      const score = document.createElement("span");
      score.className = "score";
      score.textContent = `score ${h.score.toFixed(2)}`;
      item.append(choose, score);
      list.append(item);
    });
    tools.append(toggle, list);
    return tools;
  }

  function renderSource(view) {
    const box = $("source-view");
    box.replaceChildren();
    view.sourceWords = view.lines.map((text, line) => {
      const { element, words } = wordParagraph(text, "source", line, true);
      box.append(element);
      return words;
    });
    firstStop(box);
  }

  function renderTarget(view) {
    const box = $("target-view");
    box.replaceChildren();
    view.links = [];
    view.lines.forEach((_, line) => {
      const h = hypothesisOf(view, line);
      const { element, words } = wordParagraph(h ? h.text : "", "target", line, view.linked);
      box.append(element);
      view.links[line] = view.linked && h ? linksOf(view.sourceWords[line], words, h) : null;
      if (h && view.results[line].hypotheses.length > 1) box.append(alternativesList(view, line));
      const notes = view.results[line] ? lineNotes(view.results[line].notes) : [];
      if (notes.length > 0) {
        const note = document.createElement("p");
        note.className = "line-note";
        note.textContent = `Line ${line + 1}: ${notes.join("; ")}.`;
        box.append(note);
      }
    });
    firstStop(box);
  }

  function render(view) {
    state.view = view;
    state.openAlternatives.clear();
    const hadFocus = document.activeElement === $("source") || document.activeElement === $("translate");
    if (view.linked) renderSource(view);
    renderTarget(view);
    showEditor(!view.linked);
    $("link-readout").textContent = view.linked
      ? "Point at, tap or focus a word to see which words it was translated from or to."
      : "";
    describeModel();
    if (hadFocus) $("target-view").focus();
  }

  // The textarea, or the source as linked words (with a button back to the textarea).
  function showEditor(editing) {
    $("source").hidden = !editing;
    $("source-hint").hidden = !editing;
    $("source-view").hidden = editing;
    $("edit").hidden = editing;
    if (editing && document.activeElement === document.body) $("source").focus();
  }

  // ---- highlighting ----

  function clearHighlight() {
    for (const w of document.querySelectorAll(".w.active, .w.linked")) w.classList.remove("active", "linked");
  }

  function quoted(words) { return words.map((w) => `“${w}”`).join(" "); }

  function activate(word) {
    const view = state.view;
    if (!view || !view.linked) return;
    clearHighlight();
    word.classList.add("active");
    const side = word.dataset.side, line = Number(word.dataset.line), index = Number(word.dataset.word);
    const links = view.links[line];
    const other = side === "source" ? $("target-view") : $("source-view");
    const partners = links ? [...(links[side].get(index) || [])].sort((a, b) => a - b) : [];
    const names = [];
    for (const k of partners) {
      const partner = other.querySelector(`.w[data-line="${line}"][data-word="${k}"]`);
      if (!partner) continue;
      partner.classList.add("linked");
      names.push(partner.textContent);
    }
    const readout = $("link-readout");
    if (side === "source")
      readout.textContent = names.length ? `Source ${quoted([word.textContent])} was translated as ${quoted(names)}.`
        : `Source ${quoted([word.textContent])} is aligned to no word of the translation.`;
    else
      readout.textContent = names.length ? `Translation ${quoted([word.textContent])} comes from ${quoted(names)}.`
        : `Translation ${quoted([word.textContent])} is aligned to no source word.`;
  }

  // One tab stop per side: the first word, until another is focused.
  function firstStop(box) {
    const first = box.querySelector(".w");
    if (first) first.tabIndex = 0;
  }

  function moveStop(box, word) {
    for (const w of box.querySelectorAll('.w[tabindex="0"]')) w.tabIndex = -1;
    word.tabIndex = 0;
  }

  function onWordKey(event) {
    const word = event.target.closest(".w");
    if (!word) return;
    const box = event.currentTarget;
    const all = [...box.querySelectorAll(".w")];
    const at = all.indexOf(word);
    const moves = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const next = all[moves[event.key]];
    if (!next) return;
    moveStop(box, next);
    next.focus();
  }

  function wireWords(box) {
    box.addEventListener("mouseover", (e) => { const w = e.target.closest(".w"); if (w) activate(w); });
    box.addEventListener("focusin", (e) => { const w = e.target.closest(".w"); if (w) { moveStop(box, w); activate(w); } });
    box.addEventListener("click", (e) => { const w = e.target.closest(".w"); if (w) { moveStop(box, w); w.focus(); activate(w); } });
    box.addEventListener("mouseleave", () => {
      const focused = document.activeElement;
      if (focused && focused.classList.contains("w")) activate(focused);
      else clearHighlight();
    });
    box.addEventListener("keydown", onWordKey);
  }

  // ---- alternatives ----

  function onTargetClick(event) {
    const toggle = event.target.closest("button[data-toggle-line]");
    if (toggle) {
      const line = Number(toggle.dataset.toggleLine);
      const list = $(`alternatives-${line}`);
      list.hidden = !list.hidden;
      toggle.setAttribute("aria-expanded", String(!list.hidden));
      if (list.hidden) state.openAlternatives.delete(line); else state.openAlternatives.add(line);
      return;
    }
    const choose = event.target.closest("button[data-hypothesis]");
    if (!choose) return;
    const line = Number(choose.dataset.line), k = Number(choose.dataset.hypothesis);
    state.view.chosen[line] = k;
    renderTarget(state.view);
    clearHighlight();
    const again = document.querySelector(`#alternatives-${line} button[data-hypothesis="${k}"]`);
    if (again) again.focus();
  }

  // ---- glossary rows ----

  function addGlossaryRow(focus) {
    const body = $("glossary-rows");
    const row = body.insertRow();
    const n = body.rows.length;
    for (const side of ["Source", "Target"]) {
      const input = document.createElement("input");
      input.type = "text";
      input.setAttribute("aria-label", `${side} term, row ${n}`);
      row.insertCell().append(input);
    }
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Remove";
    remove.setAttribute("aria-label", `Remove row ${n}`);
    remove.addEventListener("click", () => {
      row.remove();
      if (body.rows.length === 0) addGlossaryRow(false);
      $("add-term").focus();
    });
    row.insertCell().append(remove);
    if (focus) row.querySelector("input").focus();
  }

  // ---- start ----

  document.addEventListener("DOMContentLoaded", () => {
    $("form").addEventListener("submit", (e) => { e.preventDefault(); translate(); });
    document.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        translate();
      }
    });
    $("stop").addEventListener("click", () => { if (state.running) state.running.abort(); });
    $("edit").addEventListener("click", () => { showEditor(true); $("source").focus(); });
    $("pair").addEventListener("change", describeModel);
    $("format").addEventListener("change", describeModel);
    $("add-term").addEventListener("click", () => addGlossaryRow(true));
    wireWords($("source-view"));
    wireWords($("target-view"));
    $("target-view").addEventListener("click", onTargetClick);
    addGlossaryRow(false);
    loadModels();
  });
})();
