// zero · runs: the training dashboard. Plain JavaScript and SVG, no build step, no network but
// the server's. /runs/ lists the runs; /runs/?run=NAME shows one, asking every few seconds for
// the metrics records past those it has (the server reads only what the run appended), and
// redrawing the charts that got new points.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#1d6fd8", "#d8661d", "#2f8a4c", "#9b3fc2", "#c2372f", "#0f9aa8", "#7a6a4f", "#b59a00"];

const dash = {
  run: null,       // the run shown, or null for the list
  poll: 2000,      // ms between two asks, as the server says
  info: null,      // /api/run's answer
  data: {},        // kind -> {step: [], elapsed: [], values: {name: []}}: the records so far, in columns
  gen: -1,         // the server's gen of the records held
  next: 0,         // the number of records held
  byTime: false,   // the charts' x: steps, or the run's working time
  ticks: 0,
  checkpoint: null, // the newest checkpoint when the games were last read
  game: null,      // the game in the viewer
};

async function get(path) {
  const resp = await fetch(path, { cache: "no-store" });
  const data = await resp.json().catch(() => ({ error: resp.statusText }));
  if (!resp.ok) throw new Error(data.error || resp.statusText);
  return data;
}

function showMessage(text) {
  $("message").textContent = text || "";
  $("message").hidden = !text;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

// sync makes parent's children the nodes, keeping each node that is already there and only
// changing what changed (a cell's text, a row that is another): a list polled every few seconds
// is not rebuilt under the pointer, so a click that lands while it refreshes still finds the
// link it was aimed at.
function sync(parent, nodes) {
  nodes.forEach((n, i) => {
    const old = parent.children[i];
    if (!old) parent.append(n);
    else if (old.outerHTML !== n.outerHTML) morph(old, n);
  });
  while (parent.children.length > nodes.length) parent.lastElementChild.remove();
}

// morph turns old into n in place where they differ only in their descendants' text, and
// replaces it otherwise.
function morph(old, n) {
  const shell = (e) => e.nodeType === Node.ELEMENT_NODE
    ? e.tagName + [...e.attributes].map((a) => ` ${a.name}=${JSON.stringify(a.value)}`).join("") : "#" + e.nodeType;
  if (shell(old) !== shell(n) || old.childNodes.length !== n.childNodes.length ||
      [...old.childNodes].some((c, i) => shell(c) !== shell(n.childNodes[i]))) {
    old.replaceWith(n);
    return;
  }
  [...n.childNodes].forEach((c, i) => {
    const o = old.childNodes[i];
    if (c.nodeType === Node.TEXT_NODE) {
      if (o.data !== c.data) o.data = c.data;
    } else if (c.nodeType === Node.ELEMENT_NODE && o.outerHTML !== c.outerHTML) morph(o, c);
  });
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

const enc = encodeURIComponent;

function fmtInt(n) {
  return Math.round(n).toLocaleString("en-US");
}

function fmtAgo(iso) {
  if (!iso) return "–";
  const s = (Date.now() - new Date(iso).getTime()) / 1000;
  if (s < 90) return `${Math.max(0, Math.round(s))} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 172800) return `${Math.round(s / 3600)} h ago`;
  return new Date(iso).toISOString().slice(0, 10);
}

function fmtElo(e) {
  return e ? `${e.elo >= 0 ? "+" : ""}${Math.round(e.elo)} ± ${Math.round(e.ci95)}` : "–";
}

// fmtNum writes a tick or a value: 3 significant digits, k and M for large ones.
function fmtNum(v) {
  const a = Math.abs(v);
  if (a >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toPrecision(3)}k`;
  if (a === 0) return "0";
  return String(+v.toPrecision(3));
}

// every runs f now and then every dash.poll ms while the page is seen, one run at a time (two
// asks for the records past the same K would add them twice). What f returns, or its error,
// is the page's message.
function every(f) {
  let timer = 0, running = false;
  const tick = async () => {
    clearTimeout(timer);
    if (running || document.hidden) return; // the running one sets the next; showing the page again does
    running = true;
    try {
      showMessage(await f());
    } catch (e) {
      showMessage(e.message);
    } finally {
      running = false;
    }
    timer = setTimeout(tick, dash.poll);
  };
  document.addEventListener("visibilitychange", () => {
    clearTimeout(timer);
    if (!document.hidden) tick();
  });
  tick();
}

// ---------------------------------------------------------------- the list of runs

async function refreshList() {
  const d = await get("/api/runs");
  dash.poll = d.poll_ms || dash.poll;
  $("list-dir").textContent = d.dir;
  $("list-note").textContent = d.note || "";
  $("list-note").hidden = !d.note;
  const rows = d.runs.map(runRow);
  if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: "11", class: "muted", text: "No training run in this folder yet." })));
  sync($("runs").tBodies[0], rows);
  document.body.dataset.runs = d.runs.length;
}

function status(r) {
  const b = el("span", { class: r.training ? "badge live" : "badge", text: r.training ? "training" : "stopped" });
  if (r.holder) b.title = r.holder;
  return b;
}

function runRow(r) {
  const name = el("td", {}, el("a", { href: `?run=${enc(r.name)}`, text: r.name }));
  if (r.problem) name.append(el("div", { class: "problem", text: r.problem }));
  return el("tr", { "data-run": r.name },
    name,
    el("td", { text: r.game || "?" }),
    el("td", {}, status(r)),
    el("td", { class: "num", text: fmtInt(r.step) }),
    el("td", { class: "num", text: fmtInt(r.samples) }),
    el("td", { class: "num", text: fmtInt(r.games) }),
    el("td", { class: "num", text: r.hours > 0 ? r.worked : "–" }),
    el("td", { text: r.checkpoint ? `${r.checkpoint}` : "–" }),
    el("td", { class: "num", text: fmtElo(r.elo) }),
    el("td", { text: fmtAgo(r.updated), title: r.updated || "" }),
    el("td", {}, r.play ? el("a", { class: "button small", href: r.play, text: "play" }) : ""));
}

// ---------------------------------------------------------------- one run

async function refreshRun() {
  const info = await get(`/api/run?run=${enc(dash.run)}`);
  dash.poll = info.poll_ms || dash.poll;
  const first = !dash.info;
  dash.info = info;
  if (first) makeCharts();
  renderSummary();
  renderLadder();
  // The games failing (a shard being damaged) neither stops the charts nor keeps every later
  // poll asking for the games: their error is the page's message, after the metrics.
  let gamesError = null;
  if (info.checkpoint !== dash.checkpoint || dash.ticks % 10 === 0) {
    dash.checkpoint = info.checkpoint;
    try {
      await refreshGames();
    } catch (e) {
      gamesError = `self-play games: ${e.message}`;
    }
  }
  dash.ticks++;
  await refreshMetrics();
  return info.problem || gamesError;
}

function fact(value, label) {
  return el("div", { class: "fact" }, el("b", { text: value }), el("span", { text: label }));
}

function renderSummary() {
  const s = dash.info;
  $("title").textContent = `${s.name} · ${s.game || "?"}`;
  document.title = `zero · ${s.name}`;
  $("facts").replaceChildren(
    el("div", { class: "fact" }, el("b", {}, status(s)), el("span", { text: s.holder || "no process trains it" })),
    fact(fmtInt(s.step), "steps"),
    fact(fmtInt(s.samples), "samples"),
    fact(fmtInt(s.games), "games"),
    fact(s.hours > 0 ? s.worked : "–", "of training"),
    fact(s.checkpoint || "–", "newest checkpoint"),
    fact(fmtElo(s.elo), s.elo ? `Elo of ${s.elo.name}` : "Elo"),
  );
  const play = $("play");
  play.hidden = !s.play;
  if (s.play) {
    play.href = s.play;
    play.title = `a game against ${s.checkpoint} (${s.game}), in the play page`;
  }
}

function renderLadder() {
  const s = dash.info;
  const rows = s.ladder.map((p, i) => el("tr", { class: p.checkpoint ? "" : "baseline" },
    el("td", { class: "num", text: String(i + 1) }),
    el("td", { text: p.name + (p.checkpoint ? "" : p.name === s.anchor ? " (baseline, anchor)" : " (baseline)") }),
    el("td", { class: "num", text: `${p.elo >= 0 ? "+" : ""}${Math.round(p.elo)}` }),
    el("td", { class: "num", text: Math.round(p.ci95) }),
    el("td", { class: "num", text: fmtInt(p.games) }),
    el("td", { class: "num", text: p.games ? `${Math.round(100 * p.points / p.games)}%` : "–" }),
    el("td", {}, p.play ? el("a", { class: "button small", href: p.play, text: "play" }) : "")));
  sync($("ladder").tBodies[0], rows);
  $("ladder").hidden = !rows.length;
  $("ladder-empty").hidden = rows.length > 0;
  const a = s.first_side_advantage;
  $("ladder-note").textContent = rows.length
    ? `${fmtInt(s.ladder_games)} games; 0 is ${s.anchor}; the first side's advantage ${fmtElo(a)}` : "";
}

// ---------------------------------------------------------------- metrics and charts

async function refreshMetrics() {
  const m = await get(`/api/run/metrics?run=${enc(dash.run)}&from=${dash.next}&gen=${dash.gen}`);
  if (m.reset) dash.data = {};
  merge(m.kinds);
  dash.gen = m.gen;
  dash.next = m.next;
  document.body.dataset.records = m.next;
  if (m.reset || Object.keys(m.kinds).length) drawCharts();
}

// merge appends the columns of new records to those held, a value missing null.
function merge(kinds) {
  for (const [kind, col] of Object.entries(kinds)) {
    const have = dash.data[kind] || (dash.data[kind] = { step: [], elapsed: [], values: {} });
    const n = have.step.length, k = col.step.length;
    for (const name of Object.keys(col.values)) if (!have.values[name]) have.values[name] = new Array(n).fill(null);
    for (const [name, vs] of Object.entries(have.values)) {
      const add = col.values[name];
      for (let i = 0; i < k; i++) vs.push(add ? add[i] : null);
    }
    have.step.push(...col.step);
    have.elapsed.push(...col.elapsed);
  }
}

// pick lists a chart's series among the names of its kind's values, as report.Chart.Pick does.
function pick(chart, names) {
  const out = [];
  for (const n of chart.names) {
    const some = names.filter((x) => x === n || (n.endsWith("/") && x.startsWith(n))).sort();
    out.push(...some);
  }
  return out;
}

function makeCharts() {
  $("charts").replaceChildren(...dash.info.charts.map((c) => {
    const head = el("h2", { text: c.title });
    const card = el("section", { class: "card chart", "data-chart": c.id, hidden: "" }, head);
    if (!c.band) {
      const scale = el("button", { type: "button", class: "small scale", title: "a logarithmic scale, or a linear one" });
      scale.addEventListener("click", () => { card.log = !card.isLog; drawCharts(); });
      head.append(scale);
    }
    const s = svg("svg", { viewBox: "0 0 640 300", role: "img", "aria-label": c.title });
    card.append(s, el("div", { class: "legend" }));
    s.addEventListener("mousemove", (ev) => hover(card, c, ev));
    s.addEventListener("mouseleave", () => card.querySelector(".hover")?.remove());
    return card;
  }));
}

// The plot area in the viewBox (640 × 300).
const PLOT = { x0: 58, x1: 628, y0: 12, y1: 262 };

// xUnit is the x axis: steps, or time in minutes for a run under two hours, else hours.
function xUnit() {
  if (!dash.byTime) return { label: "training step", of: (col, i) => col.step[i] };
  let hours = 0;
  for (const col of Object.values(dash.data)) for (const e of col.elapsed) if (e > hours * 3600) hours = e / 3600;
  return hours < 2
    ? { label: "minutes of training", of: (col, i) => col.elapsed[i] / 60 }
    : { label: "hours of training", of: (col, i) => col.elapsed[i] / 3600 };
}

// niceTicks are about n round values covering [lo, hi], and their step.
function niceTicks(lo, hi, n) {
  const span = hi - lo || Math.abs(hi) || 1;
  const raw = span / n, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw);
  const out = [];
  for (let k = Math.ceil(lo / step); k * step <= hi + step * 1e-9; k++) out.push(k === 0 ? 0 : k * step);
  return { ticks: out, step };
}

// fmtTick writes a tick of a linear axis whose ticks are step apart: as fmtNum does, but with
// the digits that tell it from the next (fmtNum's 3 wrote 439.5 and 440 both "440").
function fmtTick(v, step) {
  if (v === 0) return "0";
  const digits = (unit) => Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9));
  const a = Math.abs(v);
  if (a >= 1e6 && step >= 1e5) return `${+(v / 1e6).toFixed(digits(1e6))}M`;
  if (a >= 1e4 && step >= 100) return `${+(v / 1e3).toFixed(digits(1e3))}k`;
  return String(+v.toFixed(Math.min(digits(1), 12)));
}

// spread widens a range of one value so that its point sits in the middle of an axis with
// round ticks around it: by a twentieth of the value (at least 1 either side).
function spread(lo, hi) {
  if (lo !== hi) return [lo, hi];
  const d = Math.abs(lo) * 0.05 || 1;
  return [lo - d, hi + d];
}

// smooth is the exponential moving average of ys with a span of a twentieth of the series, as
// zero report draws it.
function smooth(ys) {
  const alpha = 2 / (Math.max(1, ys.length / 20) + 1);
  let ema = null;
  return ys.map((y) => (ema = ema === null ? y : ema + alpha * (y - ema)));
}

// thin keeps, of points sorted by x, the lowest and highest of each pixel column: the line
// looks the same, with at most a few points a pixel.
function thin(pts, sx) {
  if (pts.length <= 1200) return pts;
  const out = [];
  let col = null, lo = null, hi = null;
  const flush = () => { if (lo) out.push(...(lo[0] <= hi[0] ? (lo === hi ? [lo] : [lo, hi]) : [hi, lo])); };
  for (const p of pts) {
    const c = Math.round(sx(p[0]));
    if (c !== col) { flush(); col = c; lo = hi = p; continue; }
    if (p[1] < lo[1]) lo = p;
    if (p[1] > hi[1]) hi = p;
  }
  flush();
  return out;
}

// series are a chart's lines: for each name its points [x, y] (finite y), and for a band chart
// its interval's points [x, low, high].
function seriesOf(chart, col, unit) {
  const names = pick(chart, Object.keys(col.values));
  return names.map((name) => {
    const ys = col.values[name], low = col.values[name + "_low"], high = col.values[name + "_high"];
    const pts = [], band = [];
    for (let i = 0; i < ys.length; i++) {
      if (ys[i] === null) continue;
      const x = unit.of(col, i);
      if (x === null) continue;
      pts.push([x, ys[i]]);
      if (chart.band && low && high && low[i] !== null && high[i] !== null) band.push([x, low[i], high[i]]);
    }
    pts.sort((a, b) => a[0] - b[0]);
    band.sort((a, b) => a[0] - b[0]);
    return { name, pts, band };
  }).filter((s) => s.pts.length > 0);
}

// hasRemote tells whether records of the ingest kind name a worker besides the trainer's own
// self-play (dash.info.local_worker), as report.HasRemote does: the charts of the intake are
// for runs with remote workers.
function hasRemote(col) {
  const own = `worker/${dash.info.local_worker}/`;
  return Object.keys(col.values).some((n) => n.startsWith("worker/") && !n.startsWith(own) &&
    col.values[n].some((v) => v !== null));
}

function drawCharts() {
  const unit = xUnit();
  for (const c of dash.info.charts) {
    const card = document.querySelector(`[data-chart="${c.id}"]`);
    const col = dash.data[c.kind];
    const series = col && (!c.remote || hasRemote(col)) ? seriesOf(c, col, unit) : [];
    card.hidden = series.length === 0;
    if (!card.hidden) drawChart(card, c, series, unit);
  }
}

// autoLog tells whether series are better seen on a log scale: all positive, and of sizes
// twenty times apart or more (games/s beside samples/s).
function autoLog(series) {
  const medians = [];
  for (const sr of series) {
    if (sr.pts.some((p) => !(p[1] > 0))) return false;
    const ys = sr.pts.map((p) => p[1]).sort((a, b) => a - b);
    medians.push(ys[ys.length >> 1]);
  }
  return medians.length > 1 && Math.max(...medians) / Math.min(...medians) >= 20;
}

// logTicks are the powers of ten in [lo, hi] (log10 values), with 2× and 5× over a short range.
function logTicks(lo, hi) {
  const out = [];
  for (let k = Math.floor(lo); k <= Math.ceil(hi); k++) {
    for (const m of hi - lo < 2.5 ? [1, 2, 5] : [1]) {
      const t = k + Math.log10(m);
      if (t >= lo && t <= hi) out.push(t);
    }
  }
  return out;
}

function drawChart(card, chart, series, unit) {
  const s = card.querySelector("svg");
  const log = !chart.band && (card.log ?? autoLog(series));
  card.isLog = log;
  const scale = card.querySelector("button.scale");
  if (scale) {
    scale.textContent = log ? "log scale" : "linear scale";
    scale.classList.toggle("on", log);
  }
  if (log) {
    series = series.map((sr) => ({ name: sr.name, band: [], pts: sr.pts.filter((p) => p[1] > 0).map(([x, y]) => [x, Math.log10(y)]) }))
      .filter((sr) => sr.pts.length > 0);
  }
  const yval = (t) => (log ? 10 ** t : t);
  let xlo = Infinity, xhi = -Infinity, ylo = Infinity, yhi = -Infinity;
  for (const sr of series) {
    for (const [x, y] of sr.pts) { xlo = Math.min(xlo, x); xhi = Math.max(xhi, x); ylo = Math.min(ylo, y); yhi = Math.max(yhi, y); }
    for (const [, l, h] of sr.band) { ylo = Math.min(ylo, l); yhi = Math.max(yhi, h); }
  }
  [xlo, xhi] = spread(xlo, xhi);
  [ylo, yhi] = spread(ylo, yhi);
  const pad = (yhi - ylo) * 0.05;
  ylo -= pad; yhi += pad;
  const sx = (x) => PLOT.x0 + (x - xlo) / (xhi - xlo) * (PLOT.x1 - PLOT.x0);
  const sy = (y) => PLOT.y1 - (y - ylo) / (yhi - ylo) * (PLOT.y1 - PLOT.y0);
  const parts = [];
  const yt = log ? { ticks: logTicks(ylo, yhi) } : niceTicks(ylo, yhi, 5);
  for (const t of yt.ticks) {
    parts.push(svg("line", { class: "grid", x1: PLOT.x0, x2: PLOT.x1, y1: sy(t), y2: sy(t) }));
    const label = svg("text", { class: "tick", x: PLOT.x0 - 6, y: sy(t) + 4, "text-anchor": "end" });
    label.textContent = log ? fmtNum(yval(t)) : fmtTick(t, yt.step);
    parts.push(label);
  }
  const xt = niceTicks(xlo, xhi, 6);
  for (const t of xt.ticks) {
    parts.push(svg("line", { class: "grid", x1: sx(t), x2: sx(t), y1: PLOT.y0, y2: PLOT.y1 }));
    const label = svg("text", { class: "tick", x: sx(t), y: PLOT.y1 + 15, "text-anchor": "middle" });
    label.textContent = fmtTick(t, xt.step);
    parts.push(label);
  }
  parts.push(svg("line", { class: "axis", x1: PLOT.x0, x2: PLOT.x1, y1: PLOT.y1, y2: PLOT.y1 }),
    svg("line", { class: "axis", x1: PLOT.x0, x2: PLOT.x0, y1: PLOT.y0, y2: PLOT.y1 }));
  const xl = svg("text", { class: "tick", x: (PLOT.x0 + PLOT.x1) / 2, y: 294, "text-anchor": "middle" });
  xl.textContent = unit.label;
  const yl = svg("text", { class: "tick", x: 12, y: (PLOT.y0 + PLOT.y1) / 2, "text-anchor": "middle", transform: `rotate(-90 12 ${(PLOT.y0 + PLOT.y1) / 2})` });
  yl.textContent = chart.ylabel;
  parts.push(xl, yl);
  const line = (pts) => thin(pts, sx).map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" ");
  const legend = [];
  let points = 0;
  // What the series draw is clipped to the plot area (a dot's radius beyond it, so that a
  // point on its edge shows whole): a band or a line never strays over the axes and labels.
  const clipId = `clip-${chart.id}`;
  const clip = svg("clipPath", { id: clipId });
  clip.append(svg("rect", { x: PLOT.x0 - 4, y: PLOT.y0 - 4, width: PLOT.x1 - PLOT.x0 + 8, height: PLOT.y1 - PLOT.y0 + 8 }));
  const data = svg("g", { class: "data", "clip-path": `url(#${clipId})` });
  parts.push(clip, data);
  series.forEach((sr, i) => {
    const color = COLORS[i % COLORS.length];
    points += sr.pts.length;
    if (chart.band) {
      if (sr.band.length === 1) {
        // One rated checkpoint: its interval as a bar (a polygon of one x has no area).
        const [x, l, h] = sr.band[0];
        data.append(svg("rect", { class: "band", fill: color, x: sx(x) - 3, y: sy(h), width: 6, height: Math.max(0, sy(l) - sy(h)) }));
        legend.push(["95% interval", color, 0.3]);
      } else if (sr.band.length) {
        const up = sr.band.map(([x, , h]) => `${sx(x).toFixed(1)},${sy(h).toFixed(1)}`);
        const down = sr.band.map(([x, l]) => `${sx(x).toFixed(1)},${sy(l).toFixed(1)}`).reverse();
        data.append(svg("polygon", { class: "band", fill: color, points: up.concat(down).join(" ") }));
        legend.push(["95% interval", color, 0.3]);
      }
      data.append(svg("polyline", { class: "smooth", stroke: color, points: line(sr.pts), "data-series": sr.name }));
      if (sr.pts.length <= 400) for (const [x, y] of sr.pts) data.append(svg("circle", { cx: sx(x), cy: sy(y), r: 2.5, fill: color }));
      legend.push([sr.name.replaceAll("_", " "), color, 1]);
      return;
    }
    if (sr.pts.length === 1) {
      // One log period: a line of one point draws nothing, its dot does.
      const [x, y] = sr.pts[0];
      data.append(svg("circle", { class: "dot", cx: sx(x), cy: sy(y), r: 3, fill: color, "data-series": sr.name }));
      legend.push([sr.name.replaceAll("_", " "), color, 1]);
      return;
    }
    data.append(svg("polyline", { class: "raw", stroke: color, points: line(sr.pts) }));
    const sm = smooth(sr.pts.map((p) => p[1]));
    data.append(svg("polyline", { class: "smooth", stroke: color, points: line(sr.pts.map((p, j) => [p[0], sm[j]])), "data-series": sr.name }));
    legend.push([sr.name.replaceAll("_", " ") + (sr.pts.length > 20 ? " (smoothed)" : ""), color, 1]);
  });
  s.replaceChildren(...parts);
  s.dataset.points = points;
  card.querySelector(".legend").replaceChildren(...legend.map(([name, color, opacity]) => {
    const sw = el("i");
    sw.style.background = color;
    sw.style.opacity = opacity;
    return el("span", {}, sw, name);
  }));
  card.plot = { series, xlo, xhi, sx, sy, yval };
}

// hover shows, at the mouse's x, each series' nearest point.
function hover(card, chart, ev) {
  const p = card.plot, s = card.querySelector("svg");
  if (!p) return;
  const m = s.getScreenCTM();
  if (!m) return;
  const at = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
  if (at.x < PLOT.x0 || at.x > PLOT.x1) return;
  const x = p.xlo + (at.x - PLOT.x0) / (PLOT.x1 - PLOT.x0) * (p.xhi - p.xlo);
  const lines = [];
  let nx = null;
  for (const sr of p.series) {
    let best = sr.pts[0];
    for (const q of sr.pts) if (Math.abs(q[0] - x) < Math.abs(best[0] - x)) best = q;
    if (nx === null) nx = best[0];
    let text = `${sr.name.replaceAll("_", " ")}: ${fmtNum(p.yval(best[1]))}`;
    const b = sr.band.find((q) => q[0] === best[0]);
    if (b) text += ` (${fmtNum(b[1])} to ${fmtNum(b[2])})`;
    lines.push(text);
  }
  lines.unshift(`${dash.byTime ? "at" : "step"} ${fmtNum(nx)}`);
  card.querySelector(".hover")?.remove();
  const g = svg("g", { class: "hover" });
  const hx = p.sx(nx);
  g.append(svg("line", { x1: hx, x2: hx, y1: PLOT.y0, y2: PLOT.y1 }));
  const w = 8 + 6.2 * Math.max(...lines.map((l) => l.length)), h = 6 + 14 * lines.length;
  const bx = hx + w + 10 > PLOT.x1 ? hx - w - 6 : hx + 6;
  g.append(svg("rect", { x: bx, y: PLOT.y0, width: w, height: h, rx: 4 }));
  lines.forEach((l, i) => {
    const t = svg("text", { x: bx + 5, y: PLOT.y0 + 15 + 14 * i });
    t.textContent = l;
    g.append(t);
  });
  s.append(g);
}

function setAxis(byTime) {
  dash.byTime = byTime;
  $("x-step").classList.toggle("on", !byTime);
  $("x-time").classList.toggle("on", byTime);
  drawCharts();
}

// ---------------------------------------------------------------- self-play games

async function refreshGames() {
  const d = await get(`/api/run/games?run=${enc(dash.run)}`);
  const items = d.games.map((g) => {
    const what = g.error ? `not shown: ${g.error}` : `${g.moves.length} moves · ${g.resigned ? `${g.resigned} resigned` : g.result === "draw" ? "draw" : `${g.result} wins`}`;
    const li = el("li", { "data-id": g.id },
      el("span", { text: `step ${fmtInt(g.step)}` }),
      g.newest ? el("span", { class: "badge live", text: "newest net", title: "played by the newest checkpoint's network or a later one" }) : "",
      el("span", { text: what }),
      el("span", { class: "moves-preview", text: g.moves.slice(0, 16).join("  ") }));
    if (g.id && !g.error) li.addEventListener("click", () => openGame(g.id));
    if (dash.game && dash.game.id === g.id) li.classList.add("on");
    return li;
  });
  sync($("games"), items);
  $("games-empty").hidden = items.length > 0;
}

async function openGame(id) {
  try {
    const g = await get(`/api/run/game?run=${enc(dash.run)}&id=${enc(id)}`);
    dash.game = g;
    for (const li of $("games").children) li.classList.toggle("on", li.dataset.id === id);
    $("viewer").hidden = false;
    $("viewer-title").textContent = `Game ${g.id} · step ${fmtInt(g.step)} · ${g.moves.length} moves`;
    $("v-ply").max = g.moves.length;
    $("v-moves").replaceChildren(...g.moves.map((m, i) => {
      const li = el("li", { text: m });
      li.addEventListener("click", () => showPly(i + 1));
      return li;
    }));
    showPly(0);
    $("viewer").scrollIntoView({ block: "nearest" });
  } catch (e) {
    showMessage(e.message);
  }
}

function showPly(ply) {
  const g = dash.game;
  if (!g) return;
  ply = Math.max(0, Math.min(g.moves.length, ply));
  g.ply = ply;
  $("v-board").textContent = g.boards[ply];
  $("v-ply").value = ply;
  const end = g.resigned ? `${g.resigned} resigned` : g.result === "draw" ? "a draw" : `${g.result} wins`;
  $("v-where").textContent = ply === 0 ? `start, ${g.to_move[0]} to move`
    : `move ${ply} of ${g.moves.length}: ${g.moves[ply - 1]}` + (ply < g.moves.length ? `; ${g.to_move[ply]} to move` : `; ${end}`);
  [...$("v-moves").children].forEach((li, i) => li.classList.toggle("on", i === ply - 1));
  const on = $("v-moves").children[ply - 1];
  if (on) on.scrollIntoView({ block: "nearest" });
}

// ---------------------------------------------------------------- start

function init() {
  const want = new URLSearchParams(location.search);
  dash.run = want.get("run");
  document.body.dataset.view = dash.run ? "run" : "list";
  $("list").hidden = !!dash.run;
  $("run").hidden = !dash.run;
  if (!dash.run) {
    every(refreshList);
    return;
  }
  $("title").textContent = dash.run;
  $("x-step").addEventListener("click", () => setAxis(false));
  $("x-time").addEventListener("click", () => setAxis(true));
  $("v-first").addEventListener("click", () => showPly(0));
  $("v-prev").addEventListener("click", () => showPly(dash.game.ply - 1));
  $("v-next").addEventListener("click", () => showPly(dash.game.ply + 1));
  $("v-last").addEventListener("click", () => showPly(Infinity));
  $("v-ply").addEventListener("input", () => showPly(+$("v-ply").value));
  $("viewer-close").addEventListener("click", () => { $("viewer").hidden = true; dash.game = null; });
  document.addEventListener("keydown", (ev) => {
    if (!dash.game || $("viewer").hidden || ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowLeft") showPly(dash.game.ply - 1), ev.preventDefault();
    if (ev.key === "ArrowRight") showPly(dash.game.ply + 1), ev.preventDefault();
  });
  every(refreshRun);
}

document.addEventListener("DOMContentLoaded", init);
