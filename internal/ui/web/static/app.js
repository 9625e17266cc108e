// zero · play: the page. Plain JavaScript and SVG, no build step. It holds no game logic:
// the server checks every move and sends the board (view), the legal moves and the history;
// this page draws them and turns clicks into moves in the game's notation. Each game's drawing
// is a function in the boards table, keyed by the view's kind: YINSH's is here, the others'
// in their own files (gyges.js, imbriqua.js), loaded before the page starts.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

const page = {
  games: [],      // from /api/games
  strengths: [],
  st: null,       // the game's state from the server
  selected: null, // the ring or piece picked to move
  pending: null,  // Gygès: the replacement whose drop square is still to choose
  size: 0,        // Gygès: the size of piece to place in the set-up
  revealed: "",   // Imbriqua: the card last shown turned over, to animate a new one
  busy: false,
  hint: null,     // the last Evaluate: {an, id, ply}, drawn on the board while it is the position's
  showHints: true, // the agent's view drawn on the board (the checkbox)
  pv: null,       // a line shown step by step: {rank, move, line, steps, at}; the game is untouched
  spot: null,     // the drawing's: where a move goes on the board, {at, from, size}, or null
};

// TOP is how many of the agent's candidate moves the table lists and the board shows.
const TOP = 6;

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const resp = await fetch(path, opts);
  const data = await resp.json().catch(() => ({ error: resp.statusText }));
  if (!resp.ok) throw new Error(data.error || resp.statusText);
  return data;
}

function setBusy(on, text) {
  page.busy = on;
  document.body.dataset.busy = on ? "true" : "false";
  $("thinking").hidden = !on;
  $("thinking-text").textContent = text || "thinking…";
  updateButtons();
}

// showMessage shows text under the board, an error unless kind says "info".
function showMessage(text, kind) {
  const m = $("message");
  m.textContent = text || "";
  m.hidden = !text;
  m.dataset.kind = kind || "error";
}

// run does one exchange with the server, showing errors instead of throwing them.
async function run(f, text) {
  if (page.busy) return;
  showMessage("");
  setBusy(true, text);
  try {
    await f();
  } catch (e) {
    showMessage(e.message);
  } finally {
    setBusy(false);
    render();
  }
}

// ---------------------------------------------------------------- the new-game form

function fillForm() {
  const game = $("ng-game");
  game.replaceChildren(...page.games.map((g) => option(g.name, gameTitle(g.name))));
  const strength = $("ng-strength");
  strength.replaceChildren(...page.strengths.map((s) => option(String(s.work), `${s.name} (${s.work} simulations)`)));
  strength.value = "1000";
  game.addEventListener("change", fillGameChoices);
  $("ng-opponent").addEventListener("change", updateStrength);
  fillGameChoices();
}

function fillGameChoices() {
  const g = page.games.find((g) => g.name === $("ng-game").value);
  $("ng-side").replaceChildren(...g.players.map((p) => option(p, p)), option("random", "either (random)"));
  $("ng-opponent").replaceChildren(...g.opponents.map((o) => option(o.spec, o.label)));
  // The default is a spec with its budget ("mcts:400:yinsh-blitz.zck", "uct:1000"): pick the
  // opponent it is an instance of, and its budget as the strength.
  const [, kind, budget, rest] = /^([^:]+):(\d+)(:.*)?$/.exec(g.default) || [];
  const def = g.opponents.find((o) => o.spec === g.default || (budget && o.spec === `${kind}:{N}${rest || ""}`));
  if (def) $("ng-opponent").value = def.spec;
  if (def && budget) setStrength(budget, true);
  updateStrength();
}

// setStrength selects the budget n (a number of simulations, or a time a move: "2s"), adding it
// to the choices if it is not one of them; def says it is the game's default budget.
function setStrength(n, def) {
  const strength = $("ng-strength");
  if (![...strength.options].some((o) => o.value === n)) {
    const what = /^\d+$/.test(n) ? `${n} simulations` : `${n} a move`;
    strength.append(option(n, def ? `default (${what})` : what));
  }
  strength.value = n;
}

// showSpec makes the form show the agent spec playing (the game's, or a link's): the opponent
// it is an instance of ("mcts:{N}:models/gyges.zck" for mcts:50:models/gyges.zck) with its
// budget as the strength, or the spec itself where no opponent offered matches (a training
// run's checkpoint: offered as a template too, so its strength can change). The choices added
// for an earlier spec go, so that one model is never listed under two names.
function showSpec(spec) {
  const select = $("ng-opponent");
  for (const o of [...select.options]) if (o.dataset.added && o.value !== spec) o.remove();
  const [, kind, budget, rest] = /^([^:]+):([^:]+)(:.*)?$/.exec(spec) || [];
  const template = ["uct", "ucb1", "mcts"].includes(kind) ? `${kind}:{N}${rest || ""}` : "";
  const has = (v) => [...select.options].some((o) => o.value === v);
  if (has(spec)) {
    select.value = spec;
  } else if (template) {
    if (!has(template)) {
      const o = option(template, kind === "mcts" ? `network ${rest.slice(1)}` : template);
      o.dataset.added = "true";
      select.append(o);
    }
    select.value = template;
    setStrength(budget);
  } else {
    const o = option(spec, spec);
    o.dataset.added = "true";
    select.append(o);
    select.value = spec;
  }
  updateStrength();
}

// agentSpec is the spec of the agent playing the game of state st.
function agentSpec(st) {
  const other = st.names.find((n) => n !== st.human);
  return st.players[other];
}

function updateStrength() {
  $("ng-strength").disabled = !$("ng-opponent").value.includes("{N}");
}

function option(value, text) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  return o;
}

function gameTitle(name) {
  return { "yinsh": "YINSH", "yinsh-blitz": "YINSH blitz", "gyges": "Gygès", "gyges-advanced": "Gygès (advanced)", "imbriqua": "Imbriqua" }[name] || name;
}

// clearPicks forgets what the person had picked on the board.
function clearPicks() {
  page.selected = null;
  page.pending = null;
}

function newGame(ev) {
  if (ev) ev.preventDefault();
  const opponent = $("ng-opponent").value.replace("{N}", $("ng-strength").value);
  run(async () => {
    // A game refused (a bad opponent, the server full: 503) leaves the page's as it was.
    const st = await api("POST", "/api/new", { game: $("ng-game").value, side: $("ng-side").value, opponent });
    startGame(st);
    if (page.st.agent_turn) await agentTurn();
  });
}

// loadRecord starts a game from the record file chosen (zero's JSON or SGF): the server reads
// it and replays every move, and the game goes on from its end against the form's opponent (if
// the record is of the form's game). A record refused leaves the game as it was, the reader's
// error shown.
function loadRecord() {
  const input = $("load-file");
  const file = input.files[0];
  if (!file) return;
  const opponent = $("ng-opponent").value.replace("{N}", $("ng-strength").value);
  run(async () => {
    try {
      const record = await file.text();
      const st = await api("POST", "/api/load", { record, name: file.name, game: $("ng-game").value, side: $("ng-side").value, opponent });
      startGame(st);
      showMessage(`Loaded ${file.name}: ${st.moves.length} move${st.moves.length === 1 ? "" : "s"}${st.over ? ", the game is over" : ""}.`, "info");
      if (page.st.agent_turn) await agentTurn();
    } finally {
      input.value = ""; // the same file may be chosen again
    }
  }, "loading the record…");
}

// startGame shows the new game of state st (started, or loaded from a record), and the form
// the spec its agent plays (the default may have given way to another, a link named one).
function startGame(st) {
  forget();
  clearPicks();
  page.size = 0;
  $("analysis").replaceChildren(muted("Ask the agent for its evaluation and top moves."));
  page.st = st;
  if ($("ng-game").value !== st.game) {
    $("ng-game").value = st.game;
    fillGameChoices();
  }
  showSpec(agentSpec(st));
  render();
}

// ---------------------------------------------------------------- playing

async function agentTurn() {
  setBusy(true, `${page.st.to_move} thinks…`);
  page.st = await api("POST", "/api/agent", { id: page.st.id });
  if (page.st.analysis) showAnalysis(page.st.analysis, "its choice");
}

// forget forgets the analysis and the line shown: the position they were of is left.
function forget() {
  page.hint = null;
  page.pv = null;
}

function play(move) {
  run(async () => {
    forget();
    clearPicks();
    page.st = await api("POST", "/api/play", { id: page.st.id, move });
    render();
    if (page.st.agent_turn) await agentTurn();
  });
}

function undo() {
  run(async () => {
    forget();
    clearPicks();
    page.st = await api("POST", "/api/undo", { id: page.st.id });
  });
}

function resign() {
  if (!confirm("Resign this game?")) return;
  run(async () => { forget(); page.st = await api("POST", "/api/resign", { id: page.st.id }); });
}

function analyze() {
  run(async () => {
    page.pv = null;
    const an = await api("POST", "/api/analyze", { id: page.st.id });
    page.hint = { an, id: page.st.id, ply: an.ply };
    showAnalysis(an, "for " + an.for);
  }, "evaluating…");
}

// hintNow is the last Evaluate if it is of the position on the board, else null.
function hintNow() {
  const h = page.hint;
  return h && page.st && h.id === page.st.id && h.ply === page.st.moves.length ? h : null;
}

// ---------------------------------------------------------------- the agent's view on the board

// pct writes a probability as a whole percentage.
const pct = (p) => `${Math.round(100 * p)}%`;

// drawHints draws on the board what the agent thinks, with the drawing's page.spot: on the
// position now, the candidates of the last Evaluate at their target points, each with its win
// rate over its visit share, the agent's choice highlighted with the way it goes; in a line
// shown step by step, where its next move goes. Candidates with one target are stacked there.
function drawHints(svg) {
  if (!page.spot || svg.hidden) return;
  const layer = el("g", { id: "hints", class: "hints" }, svg);
  const k = (svg.getScreenCTM() || { a: 1 }).a || 1; // pixels per user unit
  const vb = svg.viewBox.baseVal;
  // badge draws a label of one or two lines centred on (x, y), kept inside the viewBox: its
  // text about 12 px high (10 px the second line) whatever the page's width, smaller where
  // the square or point (size) is too small for it.
  const badge = (x, y, size, lines, cls, title) => {
    const fs = Math.min(12.5 / k, size * 0.3), fs2 = Math.min(10.5 / k, size * 0.25);
    const h = lines.length > 1 ? fs + fs2 + 0.45 * fs : fs * 1.5;
    const g = el("g", { class: "hint " + cls }, layer);
    const rect = el("rect", {}, g);
    const t1 = el("text", { x: 0, y: -h / 2 + 0.2 * fs + fs * 0.85, class: "hint-win", "font-size": fs }, g);
    t1.textContent = lines[0];
    let w = t1.getComputedTextLength() + 0.7 * fs;
    if (lines.length > 1) {
      const t2 = el("text", { x: 0, y: h / 2 - 0.25 * fs, class: "hint-share", "font-size": fs2 }, g);
      t2.textContent = lines[1];
      w = Math.max(w, t2.getComputedTextLength() + 0.7 * fs2);
    }
    w = Math.max(w, fs * 2.4);
    x = Math.max(vb.x + w / 2 + 1, Math.min(vb.x + vb.width - w / 2 - 1, x));
    y = Math.max(vb.y + h / 2 + 1, Math.min(vb.y + vb.height - h / 2 - 1, y));
    Object.entries({ x: -w / 2, y: -h / 2, width: w, height: h, rx: Math.min(h / 2, 6 / k + 2) }).forEach(([a, v]) => rect.setAttribute(a, v));
    g.setAttribute("transform", `translate(${x} ${y})`);
    el("title", {}, g).textContent = title;
    return [g, h, x, y];
  };
  const arrow = (from, at, cls, size) => {
    el("line", { x1: from[0], y1: from[1], x2: at[0], y2: at[1], class: cls, "stroke-width": size * 0.06 }, layer);
    arrowHead(layer, from[0], from[1], at[0], at[1], size * 0.22, cls + "-head");
  };
  if (page.pv) {
    const next = page.pv.line[page.pv.at];
    const sp = next && page.spot(next);
    if (!sp) return;
    if (sp.from) arrow(sp.from, sp.at, "hint-next-way", sp.size);
    el("circle", { cx: sp.at[0], cy: sp.at[1], r: sp.size * 0.46, class: "hint-next" }, layer);
    badge(sp.at[0], sp.at[1] - sp.size * 0.62, sp.size * 1.6, [`next: ${next}`], "next", `the line's next move: ${next}`);
    return;
  }
  const h = hintNow();
  if (!h || !page.showHints) return;
  const stacked = new Map(); // target → badges drawn there
  const badgeH = new Map(); // target → the first badge's height
  h.an.moves.slice(0, TOP).forEach((m, i) => {
    const sp = page.spot(m.move);
    if (!sp || !sp.at) return;
    const key = sp.at.map(Math.round).join(",");
    const n = stacked.get(key) || 0;
    stacked.set(key, n + 1);
    if (n >= 3) return; // a fourth on one target: in the table only
    const best = i === 0;
    if (best) {
      if (sp.from) arrow(sp.from, sp.at, "hint-way", sp.size);
      if (sp.drop) el("rect", { x: sp.drop[0] - sp.size * 0.12, y: sp.drop[1] - sp.size * 0.12, width: sp.size * 0.24, height: sp.size * 0.24, class: "hint-drop", transform: `rotate(45 ${sp.drop[0]} ${sp.drop[1]})` }, layer);
      el("circle", { cx: sp.at[0], cy: sp.at[1], r: sp.size * 0.47, class: "hint-ring" }, layer);
    }
    const win = m.win_prob >= 0 ? pct(m.win_prob) : "–";
    // The second and third on one target, below and above the first.
    const bh = (badgeH.get(key) || 0) * (n === 1 ? 1 : -1);
    const [g, h2] = badge(sp.at[0], sp.at[1] + bh + (n ? Math.sign(bh) : 0), sp.size, [win, pct(m.share)], best ? "best" : "other",
      `${m.move}: ${m.win_prob >= 0 ? `wins ${pct(m.win_prob)}` : "not valued"}, ${(100 * m.share).toFixed(1)}% of the search${best ? " (the agent's choice)" : ""}`);
    if (!n) badgeH.set(key, h2);
    g.dataset.move = m.move;
  });
}

// ---------------------------------------------------------------- a line step by step

// showLine shows, step by step, the line the agent expects after its candidate of rank i
// (its principal variation): the server plays it on a copy of the position and sends the
// board after each move. The game does not change; backToGame (or Esc) returns to it.
function showLine(i) {
  const h = hintNow();
  if (!h || !h.an.moves[i]) return;
  const m = h.an.moves[i];
  run(async () => {
    const out = await api("POST", "/api/line", { id: h.id, ply: h.ply, line: m.pv });
    page.pv = { rank: i, move: m.move, line: m.pv, steps: out.steps, at: 1 };
  }, "reading the line…");
}

// lineStep moves the line shown to step at (0: the position now; n: after its n moves).
function lineStep(at) {
  if (!page.pv || page.busy) return;
  page.pv.at = Math.max(0, Math.min(page.pv.steps.length, at));
  render();
}

function backToGame() {
  if (!page.pv) return;
  page.pv = null;
  render();
}

// lineState is what the board draws at the line's step: the position after the line's first
// at moves, nobody's to play on (no legal moves, no turn of the person's).
function lineState(pv) {
  const st = page.st;
  const base = { ...st, legal: [], groups: [], your_turn: false, agent_turn: false };
  if (pv.at === 0) return base;
  const s = pv.steps[pv.at - 1];
  return { ...base, view: s.view, to_move: s.to_move, over: s.over, result: s.result };
}

// lineText is the status line of the line shown.
function lineText(pv) {
  const n = pv.steps.length;
  const whose = pv.rank === 0 ? "the agent's choice" : `candidate ${pv.rank + 1}`;
  let where = "the position now";
  if (pv.at > 0) {
    const s = pv.steps[pv.at - 1];
    where = `after ${pv.at} of ${n}: ${s.by === "chance" ? "chance drew" : s.by + " played"} ${s.move}`;
    if (s.over) where += s.result === "draw" ? " — a draw" : ` — ${s.result} wins`;
    else if (pv.at === n && s.to_move === "chance") where += " — then chance draws: the line stops there";
  }
  return `Line of ${pv.move} (${whose}), ${where}.`;
}

// drawLineBar fills the bar under the board: the line's moves (click one to go there) and
// the buttons to step through it.
function drawLineBar() {
  const pv = page.pv;
  $("pv-bar").hidden = !pv;
  if (!pv) return;
  $("pv-prev").disabled = pv.at === 0;
  $("pv-next").disabled = pv.at === pv.steps.length;
  $("pv-moves").replaceChildren(...pv.steps.map((s, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "pv-move" + (i + 1 === pv.at ? " on" : i + 1 > pv.at ? " ahead" : "") + (s.by === "chance" ? " chance" : "");
    b.textContent = s.move;
    b.title = `${s.by}: ${s.move}`;
    b.addEventListener("click", () => lineStep(i + 1));
    return b;
  }));
}

function muted(text) {
  const p = document.createElement("p");
  p.className = "muted";
  p.textContent = text;
  return p;
}

function showAnalysis(an, what) {
  const box = $("analysis");
  const win = (an.value + 1) / 2;
  const known = an.work > 0 || an.moves.some((m) => m.win_prob >= 0);
  const head = muted(known
    ? `${an.agent}, ${what}: ${an.work} simulations · value ${an.value >= 0 ? "+" : ""}${an.value.toFixed(2)} for ${an.for}`
    : `${an.agent}, ${what}: no evaluation (it does not search).`);
  const bar = document.createElement("div");
  bar.hidden = !known;
  bar.className = "bar";
  const fill = document.createElement("div");
  fill.style.width = `${Math.round(win * 100)}%`;
  bar.append(fill);
  const table = document.createElement("table");
  table.innerHTML = "<thead><tr><th>move</th><th>visits</th><th>wins</th><th></th></tr></thead>";
  const body = document.createElement("tbody");
  // The lines can be shown for the position on the board (an Evaluate), not for the agent's
  // choice, made before its move.
  const current = hintNow() && hintNow().an === an;
  an.moves.slice(0, TOP).forEach((m, i) => {
    const tr = document.createElement("tr");
    const line = document.createElement("td");
    if (current && m.pv && m.pv.length) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "small line";
      b.textContent = "line ▸";
      b.title = `step through the line the agent expects after ${m.move} (${m.pv.length} move${m.pv.length === 1 ? "" : "s"}: ${m.pv.join(", ")})`;
      b.dataset.rank = i;
      b.addEventListener("click", () => showLine(i));
      line.append(b);
    }
    tr.append(cell(m.move), cell(`${(100 * m.share).toFixed(1)}%`, "num"), cell(m.win_prob >= 0 ? `${Math.round(100 * m.win_prob)}%` : "–", "num"), line);
    if (i === 0) tr.className = "best";
    body.append(tr);
  });
  table.append(body);
  const parts = [head, bar, table];
  if (current && known) parts.push(muted("On the board: each move's win rate over its share of the visits; the agent's choice in blue."));
  box.replaceChildren(...parts);
  box.dataset.moves = an.moves.length;
}

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

// ---------------------------------------------------------------- drawing the page

function render() {
  const real = page.st;
  if (!real) return;
  if (page.pv && !hintNow()) page.pv = null;
  // In a line shown step by step the board is the line's, the rest the game's.
  const st = page.pv ? lineState(page.pv) : real;
  $("title").textContent = gameTitle(st.game);
  document.title = `${gameTitle(st.game)} · zero`;
  const players = st.names.map((n) => {
    const who = st.players[n] === "human" ? "you" : st.players[n];
    const span = document.createElement("span");
    span.className = "who" + (st.to_move === n ? " active" : "");
    const chip = document.createElement("span");
    chip.className = "chip " + n;
    span.append(chip, `${n}: ${who}`);
    return span;
  });
  $("players").replaceChildren(...players);
  const moves = st.moves.map((m, i) => {
    const li = document.createElement("li");
    li.textContent = m;
    if (/^card \d+$/.test(m)) {
      li.classList.add("chance");
      li.title = "a chance draw";
    }
    if (i === st.moves.length - 1 && !page.pv) li.classList.add("last");
    return li;
  });
  if (page.pv) {
    // The line's moves after the game's, those played so far on the board as the last.
    page.pv.steps.forEach((s, i) => {
      const li = document.createElement("li");
      li.textContent = s.move;
      li.className = "pv" + (i + 1 === page.pv.at ? " last" : i + 1 > page.pv.at ? " ahead" : "");
      li.title = "in the line shown, not played";
      moves.push(li);
    });
  }
  $("moves").replaceChildren(...moves);
  $("moves").scrollTop = $("moves").scrollHeight;
  $("download").href = `/api/record?id=${st.id}`;
  $("download-sgf").href = `/api/record?id=${st.id}&format=sgf`;
  $("notes").replaceChildren();
  $("score").replaceChildren();
  $("choices").replaceChildren();
  const draw = boards[st.view.kind] || boards.text;
  // A drawing may say more than the status line can: it returns {text, state} to replace it.
  page.spot = null;
  const custom = draw(st) || {};
  drawHints($("board"));
  drawLineBar();
  const status = $("status");
  status.textContent = page.pv ? lineText(page.pv) : custom.text || statusText(st);
  status.dataset.state = page.pv ? "line" : custom.state || (st.over ? "over" : st.your_turn ? "you" : "agent");
  $("notes").hidden = $("notes").childElementCount === 0;
  updateButtons();
}

function statusText(st) {
  if (st.over) {
    if (st.resigned) return `${st.resigned} resigned: ${st.result} wins.`;
    // The board's own words say how the game was won ("game over: light wins, framed squares 5 to 3").
    const how = (st.view.status || "").match(/^game over: [^,]*, (.*)$/);
    const end = how ? ` — ${how[1]}.` : ".";
    if (st.result === "draw") return "Game over: a draw" + end;
    return st.result === st.human ? `Game over: you win (${st.result})${end}` : `Game over: ${st.result} wins${end}`;
  }
  const s = st.view.status || `${st.to_move} to move`;
  return st.your_turn ? `Your turn — ${s}.` : `${s} (${st.players[st.to_move] || "…"}).`;
}

function updateButtons() {
  const st = page.st;
  const idle = !page.busy && st;
  $("undo").disabled = !idle || st.moves.length === 0;
  $("resign").disabled = !idle || st.over;
  $("analyze").disabled = !idle || st.over;
  // The agent's turn, and nothing under way: its move failed (the error is shown), or a
  // resignation was taken back; the person asks again.
  $("agent-move").hidden = !idle || !st.agent_turn || st.over;
  $("start").disabled = page.busy;
  for (const b of document.querySelectorAll("#analysis button.line")) b.disabled = !idle || !hintNow();
  $("load").disabled = page.busy;
}

// choices lays out buttons under the board for decisions that are not clicks on it: each
// [label, move, hover, cls, data], the move a string to play or a function to call. A label
// may be a string or a list of strings and elements; cls adds classes to the button, data
// entries to its dataset.
function choices(items) {
  $("choices").replaceChildren(...items.map(([label, move, hover, cls, data]) => {
    const b = document.createElement("button");
    b.type = "button";
    b.append(...[].concat(label));
    if (cls) b.className = cls;
    Object.assign(b.dataset, data || {});
    if (typeof move === "string") {
      b.dataset.move = move;
      b.addEventListener("click", () => play(move));
    } else {
      b.addEventListener("click", move);
    }
    if (hover) {
      b.addEventListener("mouseenter", () => hover(true));
      b.addEventListener("mouseleave", () => hover(false));
    }
    return b;
  }));
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

// showBoard makes the SVG board visible and empty, its size the viewBox (x, y, w, h).
function showBoard(x, y, w, h) {
  const svg = $("board");
  svg.hidden = false;
  $("textboard").hidden = true;
  svg.setAttribute("viewBox", `${x} ${y} ${w} ${h}`);
  svg.replaceChildren();
  return svg;
}

// fitRight keeps the left-aligned texts of g left of right (user units), where the viewBox
// ends: a text that would run past it is squeezed to fit rather than cut off. The board must
// be in the page (showBoard) for texts to be measured.
function fitRight(g, right) {
  for (const t of g.querySelectorAll("text")) {
    if (getComputedStyle(t).textAnchor === "start") fitWidth(t, right - +t.getAttribute("x"));
  }
}

// fitWidth squeezes the SVG text t to width user units if it is wider.
function fitWidth(t, width) {
  if (t.getComputedTextLength() > width) {
    t.setAttribute("textLength", Math.max(width, 1));
    t.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return t;
}

// arrowHead draws a filled arrowhead at (x2, y2) pointing away from (x1, y1).
function arrowHead(g, x1, y1, x2, y2, size, cls) {
  const a = Math.atan2(y2 - y1, x2 - x1);
  const p = (da, r) => `${x2 + r * Math.cos(a + da)},${y2 + r * Math.sin(a + da)}`;
  el("polygon", { points: `${p(0, 0)} ${p(Math.PI - 0.45, size)} ${p(Math.PI + 0.45, size)}`, class: cls }, g);
}

// note adds a paragraph under the board.
function note(text, cls) {
  const p = document.createElement("p");
  p.textContent = text;
  if (cls) p.className = cls;
  $("notes").append(p);
  return p;
}

const boards = {
  // A game without a drawing of its own: its text, and its moves as buttons.
  text(st) {
    $("board").hidden = true;
    const pre = $("textboard");
    pre.hidden = false;
    pre.textContent = st.view.text;
    choices(st.legal.map((m) => [m, m]));
  },
  yinsh: drawYinsh,
};

// ---------------------------------------------------------------- YINSH

const S = 46;                      // the distance between neighbouring points
const H = S * Math.sqrt(3) / 2;
// Point (column c, row r): columns upright, up a column is up the page; a step along a row
// goes right and down, along the diagonal right and up, as the board lies between the players.
const yx = (c) => c * H;
const yy = (c, r) => -(r - c / 2) * S;

function drawYinsh(st) {
  const v = st.view;
  const pts = new Map(v.points.map((p) => [p.name, p]));
  const at = (c, r) => pts.get(String.fromCharCode(97 + c) + r);
  const xs = v.points.map((p) => yx(p.col)), ys = v.points.map((p) => yy(p.col, p.row));
  const pad = S * 1.05;
  const minX = Math.min(...xs) - pad, maxX = Math.max(...xs) + pad;
  const minY = Math.min(...ys) - pad, maxY = Math.max(...ys) + pad;
  const svg = showBoard(minX, minY, maxX - minX, maxY - minY);
  // Where a move goes on the board, for the agent's view (drawHints): a placement's point, a
  // ring's destination (from the ring), the middle of a row, a ring to remove.
  const P = (n) => { const p = pts.get(n); return p ? [yx(p.col), yy(p.col, p.row)] : null; };
  page.spot = (m) => {
    const [verb, arg = ""] = m.split(" ");
    const [a, b] = arg.split("-").map(P);
    if (verb === "move" && a && b) return { at: b, from: a, size: S };
    if (verb === "row" && a && b) return { at: [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2], size: S };
    const at = (verb === "place" || verb === "ring") && P(arg);
    return at ? { at, size: S } : null;
  };

  // The wood: a hexagon around the points.
  const cx = yx(5), cy = yy(5, 6), R = 5.35 * S;
  const hex = [];
  for (let k = 0; k < 6; k++) {
    const a = Math.PI / 6 + k * Math.PI / 3;
    hex.push(`${cx + R * Math.cos(a)},${cy + R * Math.sin(a)}`);
  }
  el("polygon", { points: hex.join(" "), class: "wood" }, svg);

  const grid = el("g", {}, svg);
  for (const p of v.points) {
    for (const [dc, dr] of [[0, 1], [1, 0], [1, 1]]) {
      const q = at(p.col + dc, p.row + dr);
      if (q) el("line", { x1: yx(p.col), y1: yy(p.col, p.row), x2: yx(q.col), y2: yy(q.col, q.row), class: "gridline" }, grid);
    }
  }
  // Letters below the columns, each row's number left of its first point.
  const labels = el("g", {}, svg);
  for (let c = 0; c < 11; c++) {
    const lo = Math.min(...v.points.filter((p) => p.col === c).map((p) => p.row));
    text(labels, yx(c), yy(c, lo) + 0.8 * S, String.fromCharCode(97 + c));
  }
  for (let r = 1; r <= 11; r++) {
    const lo = Math.min(...v.points.filter((p) => p.row === r).map((p) => p.col));
    text(labels, yx(lo) - 0.62 * S, yy(lo, r), String(r));
  }

  // The last ring move: its path, and a halo on the ring.
  if (v.last_from && pts.get(v.last_from) && pts.get(v.last_to)) {
    const a = pts.get(v.last_from), b = pts.get(v.last_to);
    el("line", { x1: yx(a.col), y1: yy(a.col, a.row), x2: yx(b.col), y2: yy(b.col, b.row), class: "lastpath" }, svg);
    el("circle", { cx: yx(b.col), cy: yy(b.col, b.row), r: S * 0.47, class: "lasthalo" }, svg);
  }

  const pieces = el("g", {}, svg);
  for (const p of v.points) {
    const x = yx(p.col), y = yy(p.col, p.row);
    switch (p.piece) {
      case "w": el("circle", { cx: x, cy: y, r: S * 0.26, class: "marker-w" }, pieces); break;
      case "b": el("circle", { cx: x, cy: y, r: S * 0.26, class: "marker-b" }, pieces); break;
      case "W":
        el("circle", { cx: x, cy: y, r: S * 0.34, class: "ring-w-out" }, pieces);
        el("circle", { cx: x, cy: y, r: S * 0.34, class: "ring-w" }, pieces);
        break;
      case "B": el("circle", { cx: x, cy: y, r: S * 0.34, class: "ring-b" }, pieces); break;
    }
    if (p.piece) pieces.lastElementChild.dataset.piece = p.piece;
  }

  // What the person can do now.
  const ui = el("g", { id: "yinsh-ui" }, svg);
  const hit = (name, cls, onClick) => {
    const p = pts.get(name);
    const x = yx(p.col), y = yy(p.col, p.row);
    const c = el("circle", { cx: x, cy: y, r: S * 0.45, class: "hit " + cls }, ui);
    c.dataset.point = name;
    el("title", {}, c).textContent = name;
    c.addEventListener("click", onClick);
    el("circle", { cx: x, cy: y, r: S * 0.42, class: "hover" }, ui);
    return c;
  };
  const mark = (name, cls, r) => {
    const p = pts.get(name);
    el("circle", { cx: yx(p.col), cy: yy(p.col, p.row), r: r * S, class: cls }, ui);
  };
  const items = [];
  const moves = new Map(); // ring → its destinations
  for (const m of st.legal) {
    const [verb, arg] = m.split(" ");
    if (verb === "place") {
      hit(arg, "place", () => play(m));
    } else if (verb === "move") {
      const [a, b] = arg.split("-");
      if (!moves.has(a)) moves.set(a, []);
      moves.get(a).push(b);
    } else if (verb === "row") {
      items.push([m, m, rowBand(ui, pts, arg, m)]);
    } else if (verb === "ring") {
      mark(arg, "removable", 0.44);
      hit(arg, "remove", () => play(m));
    } else {
      items.push([m === "pass" ? "pass (no ring can move)" : m, m]);
    }
  }
  if (page.selected && !moves.has(page.selected)) page.selected = null;
  for (const [ring, dests] of moves) {
    if (ring === page.selected) {
      mark(ring, "selected", 0.46);
      for (const d of dests) {
        mark(d, "target", 0.14);
        hit(d, "dest", () => play(`move ${ring}-${d}`));
      }
    } else {
      mark(ring, "movable", 0.46);
    }
    hit(ring, "ring", () => { page.selected = page.selected === ring ? null : ring; render(); });
  }
  choices(items);
  const legend = $("score");
  legend.replaceChildren(...st.names.map((n) => {
    const row = document.createElement("div");
    row.className = "row";
    const chip = document.createElement("span");
    chip.className = "chip " + n;
    const pips = document.createElement("span");
    pips.className = "pips";
    for (let i = 0; i < v.target; i++) {
      const pip = document.createElement("span");
      pip.className = "pip" + (i < v.removed[n] ? " on" : "");
      pips.append(pip);
    }
    row.append(chip, `${n}: ${v.removed[n]} of ${v.target} rings removed`, pips);
    return row;
  }), Object.assign(document.createElement("div"), { className: "muted", textContent: `${v.pool} markers left in the pool` }));
}

function text(g, x, y, s) {
  const t = el("text", { x, y, class: "coord" }, g);
  t.textContent = s;
}

// rowBand draws a clickable band over a row of five markers (arg "c4-c8") and returns the
// function that highlights it.
function rowBand(g, pts, arg, move) {
  const [a, b] = arg.split("-").map((n) => pts.get(n));
  const band = el("line", { x1: yx(a.col), y1: yy(a.col, a.row), x2: yx(b.col), y2: yy(b.col, b.row), class: "rowband", "stroke-width": S * 0.62 }, g);
  band.dataset.row = arg;
  band.addEventListener("click", () => play(move));
  return (on) => band.classList.toggle("on", on);
}

// ---------------------------------------------------------------- start

async function init() {
  document.body.dataset.busy = "false";
  $("newgame").addEventListener("submit", newGame);
  $("agent-move").addEventListener("click", () => run(agentTurn));
  $("undo").addEventListener("click", undo);
  $("resign").addEventListener("click", resign);
  $("analyze").addEventListener("click", analyze);
  $("hints-on").addEventListener("change", () => { page.showHints = $("hints-on").checked; render(); });
  $("pv-prev").addEventListener("click", () => lineStep(page.pv.at - 1));
  $("pv-next").addEventListener("click", () => lineStep(page.pv.at + 1));
  $("pv-exit").addEventListener("click", backToGame);
  document.addEventListener("keydown", (e) => {
    if (!page.pv || e.altKey || e.ctrlKey || e.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) return;
    const to = { ArrowLeft: page.pv.at - 1, ArrowRight: page.pv.at + 1, Home: 0, End: page.pv.steps.length }[e.key];
    if (to !== undefined) lineStep(to);
    else if (e.key === "Escape") backToGame();
    else return;
    e.preventDefault();
  });
  $("load").addEventListener("click", () => $("load-file").click());
  $("load-file").addEventListener("change", loadRecord);
  try {
    const info = await api("GET", "/api/games");
    page.games = info.games;
    page.strengths = info.strengths;
    $("runs-link").hidden = !info.runs;
  } catch (e) {
    showMessage("Cannot reach the server: " + e.message);
    return;
  }
  fillForm();
  const want = new URLSearchParams(location.search);
  // A link's game or side that is not among the choices is said, and the form's own kept (a
  // select set to an unknown value holds none, and nothing would start).
  const notes = [];
  const choose = (select, value, what) => {
    if ([...select.options].some((x) => x.value === value)) {
      select.value = value;
      return true;
    }
    notes.push(`No ${what} "${value}" here: playing ${select.value}.`);
    return false;
  };
  if (want.get("game") && choose($("ng-game"), want.get("game"), "game")) fillGameChoices();
  if (want.get("side")) choose($("ng-side"), want.get("side"), "side");
  if (want.get("opponent")) showSpec(want.get("opponent"));
  newGame();
  if (notes.length) showMessage(notes.join(" ")); // after newGame's run cleared the line
}

// The drawings of the other games are in scripts loaded after this one: start once all are.
document.addEventListener("DOMContentLoaded", init);
