// tritondev ir view: the page's script. It reads the data block (gzip + base64 JSON written by
// bootstrap/ir/view/page.py), rebuilds each dump's text from the deltas, and draws the timeline, the
// diff or IR of the selected pass, and the kernel's source. Text from the dump is only ever set as
// textContent: nothing in it is read as HTML.
"use strict";

const STAGE_NAMES = { ttir: "TTIR", ttgir: "TTGIR", llir: "LLIR", ptx: "PTX", amdgcn: "AMDGCN", sass: "SASS" };
const CONTEXT = 3;
const LINE_BITS = 20;
const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

async function loadModel() {
  const packed = atob($("data").textContent.trim());
  const bytes = new Uint8Array(packed.length);
  for (let i = 0; i < packed.length; i++) bytes[i] = packed.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

// One kernel's dumps: texts rebuilt from the deltas on demand, each once.
class Track {
  constructor(data, dumpLabel) {
    this.data = data;
    this.rows = data.passes;
    this.label = dumpLabel;
    this.texts = [];
    this.locs = [];
  }
  lines(i) {
    for (let k = this.texts.length; k <= i; k++) {
      this.texts.push(applySteps(k > 0 ? this.texts[k - 1] : [], this.rows[k].delta));
    }
    return this.texts[i];
  }
  sources(i) {
    if (!this.locs[i]) {
      const runs = this.rows[i].locs;
      const out = new Int32Array(this.rows[i].nlines);
      let at = 0;
      for (let r = 0; r < runs.length; r += 2) { out.fill(runs[r], at, at + runs[r + 1]); at += runs[r + 1]; }
      this.locs[i] = out;
    }
    return this.locs[i];
  }
}

function applySteps(before, steps) {
  const out = [];
  let at = 0;
  for (const step of steps) {
    if (typeof step === "number") {
      for (let k = 0; k < step; k++) out.push(before[at + k]);
      at += step;
    } else {
      for (const line of step[1]) out.push(line);
      at += step[0];
    }
  }
  return out;
}

// Diff entries from a delta: [kind, oldNo, newNo, text] with kind " ", "-" or "+" (numbers from 1, 0: none).
function diffEntries(before, steps) {
  const out = [];
  let a = 0, b = 0;
  for (const step of steps) {
    if (typeof step === "number") {
      for (let k = 0; k < step; k++) { out.push([" ", a + 1, b + 1, before[a]]); a++; b++; }
    } else {
      for (let k = 0; k < step[0]; k++) { out.push(["-", a + 1, 0, before[a]]); a++; }
      for (const line of step[1]) { out.push(["+", 0, b + 1, line]); b++; }
    }
  }
  return out;
}

// Which entries to show: every change and CONTEXT lines around it; runs in between become gaps.
function visible(entries) {
  const keep = new Uint8Array(entries.length);
  entries.forEach((e, i) => {
    if (e[0] !== " ") for (let k = Math.max(0, i - CONTEXT); k <= Math.min(entries.length - 1, i + CONTEXT); k++) keep[k] = 1;
  });
  return keep;
}

class App {
  constructor(model) {
    this.model = model;
    this.compare = model.compare;
    this.tracks = model.dumps.map((d) => d.kernels.map((k) => new Track(k, d.label)));
    this.choice = 0;
    this.view = this.compare ? "ab" : "diff";
    this.selected = -1;
    this.query = "";
    this.hits = null;
    this.highlight = 0;
  }

  start() {
    const select = $("kernel");
    if (this.compare) {
      const [a, b] = this.model.dumps;
      select.append(el("option", "", `${this.compare.kernel_a} (a) vs ${this.compare.kernel_b} (b)`));
      select.disabled = true;
      $("title").textContent = `${a.path}  vs  ${b.path}`;
    } else {
      this.tracks[0].forEach((t, i) => {
        const option = el("option", "", t.data.target ? `${t.data.name} @ ${t.data.target}` : t.data.name);
        option.value = String(i);
        select.append(option);
      });
      select.disabled = this.tracks[0].length < 2;
      select.addEventListener("change", () => { this.choice = Number(select.value); this.showKernel(); });
      $("title").textContent = this.model.dumps[0].path;
    }
    $("search").addEventListener("keydown", (e) => {
      if (e.key === "Enter") this.search($("search").value);
      if (e.key === "Escape") { $("search").value = ""; this.search(""); }
    });
    document.addEventListener("keydown", (e) => this.onKey(e));
    $("source-file").addEventListener("change", () => this.showSource(Number($("source-file").value)));
    this.showKernel();
  }

  get track() { return this.tracks[0][this.choice]; }

  rowCount() { return this.compare ? this.compare.pairs.length : this.track.rows.length; }

  showKernel() {
    this.selected = -1;
    this.drawSummary();
    this.drawTimeline();
    this.drawResources();
    this.fillSourceFiles();
    const first = this.compare ? this.compare.first : this.track.data.first_changed;
    this.select(first === null || first === undefined ? 0 : first, true);
  }

  drawSummary() {
    const summary = $("summary");
    if (this.compare) {
      const differ = this.compare.pairs.filter((p) => p[2] === false).length;
      summary.textContent = `${this.compare.verdict}: ${this.compare.summary} (${differ} of ${this.compare.pairs.length} pairs differ)`;
      summary.dataset.pairs = String(this.compare.pairs.length);
      summary.dataset.differ = String(differ);
      return;
    }
    const count = this.track.data.count;
    const what = this.model.dumps[0].what === "compile" ? "stages" : "passes";
    summary.textContent = `${count.passes} ${what}, ${count.changed} changed, ${count.unchanged} unchanged` +
      (count.dumps !== count.passes ? ` (${count.dumps} dumps)` : "");
    summary.dataset.passes = String(count.passes);
    summary.dataset.changed = String(count.changed);
    summary.dataset.dumps = String(count.dumps);
  }

  drawTimeline() {
    const nav = $("timeline");
    nav.textContent = "";
    const fragment = document.createDocumentFragment();
    let stage = null;
    const n = this.rowCount();
    const biggest = Math.max(1, ...this.rowsForSize());
    for (let i = 0; i < n; i++) {
      const info = this.rowInfo(i);
      if (info.stage !== stage) {
        stage = info.stage;
        fragment.append(el("div", `stage-head s-${STAGE_NAMES[stage] ? stage : "other"}`, STAGE_NAMES[stage] || stage));
      }
      fragment.append(this.timelineRow(i, info, biggest));
    }
    nav.append(fragment);
  }

  rowsForSize() {
    if (this.compare) return [1];
    return this.track.rows.map((r) => (r.added || 0) + (r.removed || 0));
  }

  rowInfo(i) {
    if (!this.compare) {
      const row = this.track.rows[i];
      return { row, stage: row.stage, name: row.arg || row.name, n: row.n };
    }
    const [ia, ib, same] = this.compare.pairs[i];
    const [ta, tb] = [this.tracks[0][0], this.tracks[1][0]];
    const ra = ia === null ? null : ta.rows[ia];
    const rb = ib === null ? null : tb.rows[ib];
    const row = ra || rb;
    return { row, ra, rb, same, stage: row.stage, name: row.arg || row.name, n: ra ? ra.n : rb.n };
  }

  timelineRow(i, info, biggest) {
    const div = el("div", "pass");
    div.dataset.index = String(i);
    const row = info.row;
    div.append(el("span", "num", info.n));
    const name = el("span", "name", info.name);
    name.title = `${row.name}${row.options ? " {" + row.options + "}" : ""}${row.op ? " on " + row.op : ""}`;
    div.append(name);
    const change = el("span", "change");
    if (this.compare) {
      const state = info.ra && info.rb ? (info.same ? "same" : "differs") : info.ra ? "only a" : "only b";
      div.dataset.changed = state === "same" ? "false" : "true";
      div.dataset.state = state;
      if (state === "differs") div.classList.add("differs");
      if (!info.ra || !info.rb) div.classList.add("alone");
      change.textContent = state;
    } else {
      div.dataset.changed = row.changed === null ? "unknown" : String(row.changed);
      div.dataset.pass = String(row.pass);
      if (!row.pass && row.when === "after") div.classList.add("inner");
      if (row.changed === null) change.textContent = this.model.dumps[0].what === "compile" ? "" : "not dumped";
      else if (!row.changed) change.textContent = "=";
      else {
        change.append(el("span", "add-n", `+${row.added}`), " ", el("span", "del-n", `\u2212${row.removed}`));
        const bar = el("span", "bar");
        const scale = (v) => `${Math.max(2, Math.round(100 * Math.log1p(v) / Math.log1p(biggest)))}%`;
        const a = el("span", "a"); a.style.width = scale(row.added) ; const r = el("span", "r"); r.style.width = scale(row.removed);
        bar.append(a, r);
        div.append(change, bar);
        div.addEventListener("click", () => this.select(i));
        return div;
      }
    }
    div.append(change);
    div.addEventListener("click", () => this.select(i));
    return div;
  }

  select(i, initial) {
    const n = this.rowCount();
    if (n === 0) return;
    i = Math.max(0, Math.min(n - 1, i));
    const rows = $("timeline").querySelectorAll(".pass");
    if (this.selected >= 0 && rows[this.selected]) rows[this.selected].classList.remove("selected");
    this.selected = i;
    rows[i].classList.add("selected");
    if (!initial) rows[i].scrollIntoView({ block: "nearest" });
    else rows[i].scrollIntoView({ block: "center" });
    this.drawViews();
    this.drawPass();
  }

  views() {
    if (this.compare) return [["ab", "a vs b"], ["split", "side by side"], ["a", "a: what the pass did"], ["b", "b: what the pass did"]];
    return [["diff", "diff"], ["split", "side by side"], ["ir", this.model.dumps[0].what === "compile" ? "IR" : "IR before the pass"]];
  }

  drawViews() {
    const box = $("views");
    box.textContent = "";
    for (const [key, label] of this.views()) {
      const button = el("button", "", label);
      button.dataset.view = key;
      button.setAttribute("role", "tab");
      button.setAttribute("aria-selected", String(key === this.view));
      button.addEventListener("click", () => { this.view = key; this.drawViews(); this.drawPass(); });
      box.append(button);
    }
  }

  // What the content pane shows: {track, before (index or null), after (index), steps} or a pair of tracks.
  drawPass() {
    const info = this.rowInfo(this.selected);
    const row = info.row;
    $("pass-title").textContent = `#${info.n} ${row.name}${row.arg && row.arg !== row.name ? " (" + row.arg + ")" : ""}`;
    const detail = [];
    if (row.options) detail.push(`options: ${row.options}`);
    if (row.op) detail.push(`on ${row.op}`);
    if (!this.compare) {
      detail.push(row.file);
      if (row.changed === null && this.model.dumps[0].what !== "compile") detail.push("its output is not in the dump (the next dump is another language)");
      else if (row.changed === false) detail.push("left the IR unchanged");
      else if (row.changed) detail.push(`+${row.added} \u2212${row.removed} lines`);
    } else {
      detail.push(info.ra ? `a: ${info.ra.file}` : "a: does not run it", info.rb ? `b: ${info.rb.file}` : "b: does not run it");
    }
    $("pass-detail").textContent = detail.join("  \u00b7  ");
    const content = $("content");
    content.textContent = "";
    content.scrollTop = 0;
    content.append(this.compare ? this.pairContent(info) : this.singleContent(this.track, this.selected, this.view));
    this.markSourceLines();
    this.applySearchMarks();
  }

  singleContent(track, i, view) {
    const row = track.rows[i];
    if (view === "ir") return this.plainLines(track, i);
    if (row.effect === null) {
      const box = el("div");
      box.append(el("div", "empty", "No diff: the dump holds no output of this pass in the same IR. Its IR:"), this.plainLines(track, i));
      return box;
    }
    const before = row.effect - 1;
    const steps = track.rows[row.effect].delta;
    return this.diffView(track.lines(before), steps, track.sources(before), track.sources(row.effect), view === "split");
  }

  pairContent(info) {
    const [ta, tb] = [this.tracks[0][0], this.tracks[1][0]];
    const [ia, ib] = this.compare.pairs[this.selected];
    if (this.view === "a" || this.view === "b") {
      const [track, index] = this.view === "a" ? [ta, ia] : [tb, ib];
      if (index === null) return el("div", "empty", `${this.view} does not run this pass`);
      return this.singleContent(track, index, "diff");
    }
    if (ia === null || ib === null) {
      const [track, index] = ia === null ? [tb, ib] : [ta, ia];
      const box = el("div");
      box.append(el("div", "empty", `only ${ia === null ? "b" : "a"} runs this pass; its IR:`), this.plainLines(track, index));
      return box;
    }
    const steps = this.compare.pairs[this.selected][3];
    const before = ta.lines(ia);
    if (steps === null) {
      const box = el("div");
      box.append(el("div", "empty", "a and b show the same IR here:"), this.plainLines(ta, ia));
      return box;
    }
    return this.diffView(before, steps, ta.sources(ia), tb.sources(ib), this.view === "split");
  }

  lineDiv(kind, oldNo, newNo, text, src, split) {
    const div = el("div", `line ${kind === "+" ? "add" : kind === "-" ? "del" : "ctx"}`);
    if (!split) div.append(el("span", "no", oldNo || ""));
    div.append(el("span", "no", (split ? oldNo || newNo : newNo) || ""), el("span", "mark", kind === " " ? "" : kind), el("span", "text", text));
    div.dataset.src = String(src || 0);
    return div;
  }

  plainLines(track, i) {
    const lines = track.lines(i);
    const srcs = track.sources(i);
    const fragment = document.createDocumentFragment();
    const box = el("div", "lines");
    for (let k = 0; k < lines.length; k++) {
      const div = el("div", "line ctx");
      div.append(el("span", "no", ""), el("span", "no", k + 1), el("span", "mark", ""), el("span", "text", lines[k]));
      div.dataset.src = String(srcs[k] || 0);
      fragment.append(div);
    }
    box.append(fragment);
    return box;
  }

  diffView(before, steps, srcBefore, srcAfter, split) {
    const entries = diffEntries(before, steps);
    const keep = visible(entries);
    const src = (e) => (e[0] === "+" ? srcAfter[e[2] - 1] : srcBefore[e[1] - 1]) || 0;
    if (!split) {
      const box = el("div", "lines");
      const fragment = document.createDocumentFragment();
      let skipped = 0;
      entries.forEach((e, i) => {
        if (!keep[i]) { skipped++; return; }
        if (skipped) { fragment.append(el("div", "gap", `\u22ef ${skipped} unchanged lines`)); skipped = 0; }
        fragment.append(this.lineDiv(e[0], e[1], e[2], e[3], src(e), false));
      });
      if (skipped) fragment.append(el("div", "gap", `\u22ef ${skipped} unchanged lines`));
      if (!entries.some((e) => e[0] !== " ")) fragment.append(el("div", "empty", "no change"));
      box.append(fragment);
      return box;
    }
    const box = el("div", "split");
    const left = el("div", "lines"), right = el("div", "lines");
    let i = 0, skipped = 0;
    const gap = () => { if (skipped) { left.append(el("div", "gap", `\u22ef ${skipped}`)); right.append(el("div", "gap", `\u22ef ${skipped}`)); skipped = 0; } };
    while (i < entries.length) {
      if (entries[i][0] === " ") {
        if (!keep[i]) { skipped++; i++; continue; }
        gap();
        const e = entries[i++];
        left.append(this.lineDiv(" ", e[1], 0, e[3], srcBefore[e[1] - 1], true));
        right.append(this.lineDiv(" ", 0, e[2], e[3], srcAfter[e[2] - 1], true));
        continue;
      }
      gap();
      const dels = [], adds = [];
      while (i < entries.length && entries[i][0] === "-") dels.push(entries[i++]);
      while (i < entries.length && entries[i][0] === "+") adds.push(entries[i++]);
      for (let k = 0; k < Math.max(dels.length, adds.length); k++) {
        const d = dels[k], a = adds[k];
        left.append(d ? this.lineDiv("-", d[1], 0, d[3], srcBefore[d[1] - 1], true) : el("div", "line ctx"));
        right.append(a ? this.lineDiv("+", 0, a[2], a[3], srcAfter[a[2] - 1], true) : el("div", "line ctx"));
      }
    }
    gap();
    box.append(left, right);
    return box;
  }

  // -- the source pane -------------------------------------------------------------------------------
  fillSourceFiles() {
    const select = $("source-file");
    select.textContent = "";
    const files = this.model.files;
    const counts = files.map(() => 0);
    const track = this.compare ? this.tracks[0][0] : this.track;
    for (const row of track.rows) for (let r = 0; r < row.locs.length; r += 2) if (row.locs[r]) counts[row.locs[r] >> LINE_BITS] += row.locs[r + 1];
    const order = files.map((_, i) => i).sort((x, y) => counts[y] - counts[x]);
    for (const i of order) {
      const option = el("option", "", files[i].path.split("/").slice(-2).join("/") + (files[i].lines ? "" : " (not here)"));
      option.value = String(i);
      option.title = files[i].path;
      select.append(option);
    }
    select.disabled = files.length < 2;
    this.showSource(files.length ? order[0] : -1);
  }

  showSource(index) {
    const pane = $("source");
    pane.textContent = "";
    this.file = index;
    $("source-file").value = String(index);
    const file = this.model.files[index];
    if (!file) {
      $("source-note").textContent = "";
      pane.append(el("div", "empty", "The IR names no source lines (TRITON_DISABLE_LINE_INFO=1 drops them: dump with " +
        "TRITON_DISABLE_LINE_INFO=0 tritondev run --dump-ir ..., or view a compile --out folder)."));
      return;
    }
    $("source-note").textContent = file.lines ? "" : file.note || "not found here";
    if (!file.lines) { pane.append(el("div", "empty", `${file.path}: ${file.note || "not found here"}`)); return; }
    const fragment = document.createDocumentFragment();
    file.lines.forEach((text, k) => {
      const div = el("div", "src-line");
      div.dataset.line = String(k + 1);
      div.append(el("span", "no", k + 1), el("span", "dot"), el("span", "text", text));
      fragment.append(div);
    });
    pane.append(fragment);
    pane.onclick = (e) => {
      const line = e.target.closest(".src-line");
      if (line) this.highlightSource(Number(line.dataset.line), false);
    };
    $("content").onclick = (e) => {
      const line = e.target.closest(".line");
      if (line && line.dataset.src && line.dataset.src !== "0") this.highlightIr(Number(line.dataset.src));
    };
    this.markSourceLines();
  }

  markSourceLines() {
    const pane = $("source");
    const present = new Set();
    for (const node of $("content").querySelectorAll(".line")) {
      const id = Number(node.dataset.src || 0);
      if (id && id >> LINE_BITS === this.file) present.add(id & ((1 << LINE_BITS) - 1));
    }
    for (const node of pane.querySelectorAll(".src-line")) node.classList.toggle("has-ops", present.has(Number(node.dataset.line)));
    if (this.highlight) this.applyHighlight(false);
  }

  highlightSource(line, fromIr) {
    this.highlight = (this.file << LINE_BITS) | line;
    this.applyHighlight(!fromIr);
  }

  highlightIr(id) {
    const file = id >> LINE_BITS;
    if (file !== this.file) this.showSource(file);
    this.highlight = id;
    this.applyHighlight(false);
    const target = $("source").querySelector(`.src-line[data-line="${id & ((1 << LINE_BITS) - 1)}"]`);
    if (target) target.scrollIntoView({ block: "center" });
  }

  applyHighlight(scrollIr) {
    const line = this.highlight & ((1 << LINE_BITS) - 1);
    for (const node of document.querySelectorAll(".hl")) node.classList.remove("hl");
    if (this.highlight >> LINE_BITS === this.file) {
      const source = $("source").querySelector(`.src-line[data-line="${line}"]`);
      if (source) source.classList.add("hl");
    }
    const ops = $("content").querySelectorAll(`.line[data-src="${this.highlight}"]`);
    ops.forEach((node) => node.classList.add("hl"));
    $("source-note").textContent = `line ${line}: ${ops.length} line${ops.length === 1 ? "" : "s"} of IR shown here`;
    if (scrollIr && ops.length) ops[0].scrollIntoView({ block: "center" });
  }

  // -- resources ---------------------------------------------------------------------------------------
  drawResources() {
    const box = $("resources");
    box.textContent = "";
    const data = this.compare ? null : this.track.data;
    if (!data || !data.resources) {
      box.append(el("div", "note", this.compare ? "" : "No resource summary: a run --dump-ir folder holds no binary; " +
        "view a compile --out folder for registers, spills and shared memory."));
      return;
    }
    const labels = { registers: "registers / thread", spills: "spills (stack / 4)", local_bytes: "stack frame, bytes",
      shared_bytes: "shared memory, bytes", static_shared_bytes: "static shared, bytes", threads: "threads / block",
      num_warps: "warps", num_stages: "stages", num_ctas: "CTAs", vgprs: "VGPRs", sgprs: "SGPRs", agprs: "AGPRs",
      vgpr_spills: "VGPR spills", sgpr_spills: "SGPR spills", scratch_bytes: "scratch, bytes", occupancy: "occupancy (waves / SIMD)",
      lds_bytes: "LDS, bytes", occupancy_warps: "occupancy (warps / SM)" };
    const table = el("table");
    table.id = "resource-table";
    for (const [key, value] of Object.entries(data.resources)) {
      if (value === null || value === undefined) continue;
      const tr = el("tr");
      tr.dataset.key = key;
      tr.append(el("td", "", labels[key] || key), el("td", "", value));
      table.append(tr);
    }
    box.append(el("div", "", `Resources${data.target ? " for " + data.target : ""}`), table, el("div", "note", data.resources_note || ""));
  }

  // -- search ------------------------------------------------------------------------------------------
  search(query) {
    this.query = query;
    const rows = $("timeline").querySelectorAll(".pass");
    rows.forEach((node) => { const hit = node.querySelector(".hits"); if (hit) hit.remove(); delete node.dataset.hits; });
    if (!query) { $("search-result").textContent = ""; this.applySearchMarks(); return; }
    const needle = query.toLowerCase();
    let found = 0, total = 0, firstHit = -1, nextHit = -1;
    for (let i = 0; i < this.rowCount(); i++) {
      let count = 0;
      for (const [track, index] of this.indexesOf(i)) for (const line of track.lines(index)) if (line.toLowerCase().includes(needle)) count++;
      if (!count) continue;
      found++; total += count;
      rows[i].dataset.hits = String(count);
      rows[i].querySelector(".name").append(el("span", "hits", count));
      if (firstHit < 0) firstHit = i;
      if (nextHit < 0 && i > this.selected) nextHit = i;
    }
    $("search-result").textContent = found ? `${total} lines in ${found} of ${this.rowCount()}` : "not found";
    $("search-result").dataset.rows = String(found);
    if (found) this.select(nextHit >= 0 ? nextHit : firstHit);
  }

  indexesOf(i) {
    if (!this.compare) return [[this.track, i]];
    const [ia, ib] = this.compare.pairs[i];
    const out = [];
    if (ia !== null) out.push([this.tracks[0][0], ia]);
    if (ib !== null) out.push([this.tracks[1][0], ib]);
    return out;
  }

  applySearchMarks() {
    const needle = this.query.toLowerCase();
    for (const node of $("content").querySelectorAll(".line")) {
      const text = node.querySelector(".text");
      node.classList.toggle("match", Boolean(needle) && text !== null && text.textContent.toLowerCase().includes(needle));
    }
  }

  onKey(e) {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowDown" || e.key === "j") { this.select(this.selected + 1); e.preventDefault(); }
    else if (e.key === "ArrowUp" || e.key === "k") { this.select(this.selected - 1); e.preventDefault(); }
    else if (e.key === "n" || e.key === "p") {
      const step = e.key === "n" ? 1 : -1;
      for (let i = this.selected + step; i >= 0 && i < this.rowCount(); i += step) {
        const node = $("timeline").querySelectorAll(".pass")[i];
        if (node.dataset.changed === "true") { this.select(i); break; }
      }
    } else if (e.key === "/") { $("search").focus(); e.preventDefault(); }
  }
}

function fail(error) {
  const box = $("error");
  box.hidden = false;
  box.textContent = `This page could not be shown: ${error && error.message ? error.message : error}`;
  console.error(error);
}

(async () => {
  try {
    const model = await loadModel();
    const app = new App(model);
    app.start();
    window.irview = { app, renderMs: performance.now() };
    document.body.dataset.ready = "1";
  } catch (error) {
    fail(error);
  }
})();
