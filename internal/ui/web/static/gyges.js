// zero · play: the Gygès board (view kind "gyges"). The 6×6 board between the two goals, as
// South sees it, or as North does when the person plays north. Pieces belong to nobody and
// are told apart by size, drawn as 1, 2 or 3 rings. Like the rest of the page it only draws
// and turns clicks into moves: the server sends the legal moves and, for each, the way it goes
// square by square (view.routes), and checks whatever is played.
"use strict";

const GQ = 80; // a square
const GSIZE = ["", "single", "double", "triple"];
const GSIZES = ["", "singles", "doubles", "triples"];
// GVIEW is the board's viewBox: the goals above and below, the side column on the right.
const GVIEW = { x: -0.62 * GQ, y: -1.32 * GQ, w: 9.55 * GQ, h: 8.64 * GQ };

function drawGyges(st) {
  const v = st.view;
  const flip = st.human === "north";
  const col = (name) => name.charCodeAt(0) - 97;
  const row = (name) => +name[1];
  const gx = (c) => (flip ? 5 - c : c) * GQ;        // a column's left edge
  const gy = (r) => (flip ? r - 1 : 6 - r) * GQ;    // a row's top edge
  const cx = (name) => gx(col(name)) + GQ / 2;
  const cy = (name) => gy(row(name)) + GQ / 2;
  const names = [];
  for (let r = 1; r <= 6; r++) for (let c = 0; c < 6; c++) names.push(String.fromCharCode(97 + c) + r);
  const size = (name) => v.squares[(row(name) - 1) * 6 + col(name)];

  // The goals: the north goal lies beyond row 6, the south goal beyond row 1.
  const goalTop = flip ? "south" : "north";
  const goalY = (g) => (g === goalTop ? -0.78 * GQ : 6.78 * GQ); // its middle
  const aims = (player) => (player === "south" ? "north" : "south");
  const svg = showBoard(GVIEW.x, GVIEW.y, GVIEW.w, GVIEW.h);
  // Where a move goes on the board, for the agent's view (drawHints): a placement's square, a
  // move's end (the goal beside the square it enters from), from the piece that moves; a
  // replacement's end, its drop beside.
  page.spot = (m) => {
    const at = m.indexOf("@");
    if (at > 0) return { at: [cx(m.slice(at + 1)), cy(m.slice(at + 1))], size: GQ };
    const [rest, drop] = m.split("*");
    const [from, to] = rest.split("-");
    if (!/^[a-f][1-6]$/.test(from || "")) return null;
    const end = to === "goal" ? [cx(from), goalY(aims(v.side))] : /^[a-f][1-6]$/.test(to || "") ? [cx(to), cy(to)] : null;
    return end && { at: end, from: [cx(from), cy(from)], drop: drop ? [cx(drop), cy(drop)] : null, size: GQ };
  };

  el("rect", { x: -0.18 * GQ, y: -0.18 * GQ, width: 6.36 * GQ, height: 6.36 * GQ, rx: 10, class: "g-frame" }, svg);
  for (const n of names) {
    el("rect", { x: gx(col(n)), y: gy(row(n)), width: GQ, height: GQ, class: "g-square" + ((col(n) + row(n)) % 2 ? " alt" : "") }, svg);
  }
  // The row the side to move places on or must move from.
  if (v.row) {
    el("rect", { x: 0, y: gy(v.row), width: 6 * GQ, height: GQ, class: "g-rowband" + (st.your_turn ? " yours" : "") }, svg);
  }
  for (const g of ["north", "south"]) drawGygesGoal(svg, g, goalY(g), g === goalTop);
  const labels = el("g", {}, svg);
  for (let c = 0; c < 6; c++) {
    const letter = String.fromCharCode(97 + c);
    text(labels, gx(c) + GQ / 2, -0.3 * GQ, letter);
    text(labels, gx(c) + GQ / 2, 6.3 * GQ, letter);
  }
  for (let r = 1; r <= 6; r++) text(labels, -0.4 * GQ, gy(r) + GQ / 2, String(r));

  // point is where a route passes: a square's centre, or the goal beside the square before.
  const point = (sq, prev, mover) => (sq === "goal" ? [cx(prev), goalY(aims(mover))] : [cx(sq), cy(sq)]);
  const route = (g, way, cls, mover) => {
    const pts = [], bounces = [];
    way.forEach((mv, j) => {
      mv.forEach((sq, i) => {
        if (j === 0 || i > 0) pts.push(point(sq, mv[i - 1], mover));
      });
      if (j < way.length - 1) bounces.push(mv[mv.length - 1]);
    });
    const line = el("polyline", { points: pts.map((p) => p.join(",")).join(" "), class: cls }, g);
    const [a, b] = [pts[pts.length - 2], pts[pts.length - 1]];
    arrowHead(g, a[0], a[1], b[0], b[1], 16, cls + "-head");
    for (const sq of bounces) el("circle", { cx: cx(sq), cy: cy(sq), r: GQ * 0.45, class: cls + "-bounce" }, g);
    return line;
  };

  // The last move: its way, the square it left, where it ended and where a replacement put the
  // piece it displaced.
  const last = v.last;
  if (last && last.route) {
    const g = el("g", { id: "g-last" }, svg);
    route(g, last.route, "lastpath", last.by);
    el("circle", { cx: cx(last.start), cy: cy(last.start), r: GQ * 0.12, class: "g-laststart" }, g);
  }

  const pieces = el("g", {}, svg);
  for (const n of names) {
    if (size(n)) drawGygesPiece(pieces, cx(n), cy(n), size(n), GQ * 0.36).dataset.square = n;
  }
  if (last) {
    if (last.end === "goal") {
      // The winning piece, in the goal where it entered; the goal's words step aside.
      const mv = last.route[last.route.length - 1];
      const x = cx(mv[mv.length - 2]);
      drawGygesPiece(pieces, x, goalY(aims(last.by)), last.size, GQ * 0.3, "in-goal");
      for (const t of svg.querySelectorAll(`[data-goal="${aims(last.by)}"] text`)) t.setAttribute("x", x < 3 * GQ ? 4.25 * GQ : 1.75 * GQ);
      svg.querySelector(`[data-goal="${aims(last.by)}"] .g-goalnote`).textContent = `${last.by} won: a piece entered here`;
    } else {
      el("circle", { cx: cx(last.end), cy: cy(last.end), r: GQ * 0.44, class: "lasthalo" }, pieces);
    }
    if (last.drop) el("circle", { cx: cx(last.drop), cy: cy(last.drop), r: GQ * 0.44, class: "g-lastdrop" }, pieces);
  }
  drawGygesSide(svg, st, gy, flip);

  const ui = el("g", { id: "gyges-ui" }, svg);
  const preview = el("g", { class: "g-preview" }, svg);
  const hit = (name, cls, onClick, hover) => {
    const r = name === "goal"
      ? el("rect", { x: 0.1 * GQ, y: goalY(aims(v.side)) - 0.42 * GQ, width: 5.8 * GQ, height: 0.84 * GQ, rx: 20, class: "hit " + cls }, ui)
      : el("rect", { x: gx(col(name)), y: gy(row(name)), width: GQ, height: GQ, class: "hit " + cls }, ui);
    r.dataset.square = name;
    el("title", {}, r).textContent = name;
    r.addEventListener("click", onClick);
    if (hover) {
      r.addEventListener("mouseenter", () => hover(true));
      r.addEventListener("mouseleave", () => hover(false));
    }
    return r;
  };
  const mark = (name, cls, r) => el("circle", { cx: cx(name), cy: cy(name), r: r * GQ, class: cls }, ui);
  const showRoute = (key) => (on) => {
    preview.replaceChildren();
    if (on && v.routes[key]) route(preview, v.routes[key], "g-route", v.side);
  };

  scoreGyges(st);
  if (last) {
    const what = last.route
      ? `${last.by} played ${last.move}` + (last.path !== last.move.split("*")[0] ? `, by ${last.path.split("*")[0]}` : "") +
        (last.end === "goal" ? ", into the goal" : "") + (last.drop ? `, dropping the displaced ${GSIZE[size(last.drop)]} on ${last.drop}` : "")
      : `${last.by} placed a ${GSIZE[last.size]} on ${last.end}`;
    note(`Last move: ${what}.`, "g-lastnote");
  }
  if (!st.your_turn) return;

  // What the person may do: place a piece in the set-up, or move one.
  const places = new Map();   // size → the squares it may go on
  const pieceMoves = new Map(); // start → {ends: [[end, move]], replaces: Map(end → [[drop, move]])}
  for (const m of st.legal) {
    const at = m.indexOf("@");
    if (at > 0) {
      const k = +m.slice(0, at);
      if (!places.has(k)) places.set(k, []);
      places.get(k).push(m.slice(at + 1));
      continue;
    }
    const [rest, drop] = m.split("*");
    const [from, to] = rest.split("-");
    if (!pieceMoves.has(from)) pieceMoves.set(from, { ends: [], replaces: new Map() });
    const pm = pieceMoves.get(from);
    if (drop === undefined) {
      pm.ends.push([to, m]);
    } else {
      if (!pm.replaces.has(to)) pm.replaces.set(to, []);
      pm.replaces.get(to).push([drop, m]);
    }
  }

  if (places.size > 0) {
    if (!places.has(page.size)) page.size = Math.max(...places.keys());
    for (const sq of places.get(page.size)) {
      mark(sq, "target", 0.13);
      hit(sq, "place", () => play(`${page.size}@${sq}`));
    }
    choices([...places.keys()].sort().reverse().map((k) => [
      [gygesIcon(k), `${GSIZE[k]} (${v.to_place[v.side][k - 1]} left)`],
      () => { page.size = k; render(); }, null, "toggle" + (k === page.size ? " on" : ""), { size: k }]));
    $("choices").firstChild.before(Object.assign(document.createElement("span"), { className: "choices-label", textContent: "Piece to place:" }));
    return { text: `Your turn — ${v.side}: choose a piece below, then a highlighted square of row ${v.row}.` };
  }

  if (page.selected && !pieceMoves.has(page.selected)) clearPicks();
  for (const [from] of pieceMoves) {
    if (from !== page.selected) mark(from, "movable", 0.46);
    hit(from, "piece", () => {
      page.pending = null;
      page.selected = page.selected === from ? null : from;
      render();
    });
  }
  const sel = page.selected;
  if (!sel) return;
  const pm = pieceMoves.get(sel);
  mark(sel, "selected", 0.47);

  if (page.pending && pm.replaces.has(page.pending)) {
    // A replacement chosen: where the displaced piece goes.
    const end = page.pending;
    route(preview, v.routes[`${sel}-${end}*`], "g-route", v.side);
    mark(end, "g-replace on", 0.46);
    for (const [drop, m] of pm.replaces.get(end)) {
      el("rect", { x: cx(drop) - 0.15 * GQ, y: cy(drop) - 0.15 * GQ, width: 0.3 * GQ, height: 0.3 * GQ, class: "g-drop", transform: `rotate(45 ${cx(drop)} ${cy(drop)})` }, ui);
      hit(drop, "drop", () => play(m));
    }
    choices([["Cancel the replacement", () => { page.pending = null; render(); }]]);
    const k = size(end);
    return { text: `Your turn — the ${GSIZE[size(sel)]} from ${sel} replaces the ${GSIZE[k]} on ${end}: click a highlighted square to drop the ${GSIZE[k]} (${k}) on.` };
  }
  page.pending = null;

  const items = [];
  for (const [end, m] of pm.ends) {
    const key = m;
    const way = v.routes[key] ? v.routes[key].map((mv) => `${mv[0]}-${mv[mv.length - 1]}`).join("^") : m;
    if (end !== "goal") mark(end, "target", 0.14);
    hit(end, end === "goal" ? "dest goal" : "dest", () => play(m), showRoute(key));
    const bounces = v.routes[key] ? v.routes[key].length - 1 : 0;
    items.push([[end === "goal" ? "→ goal (wins)" : `→ ${end}`, small(bounces ? way : "")], m, showRoute(key)]);
  }
  for (const [end] of pm.replaces) {
    const key = `${sel}-${end}*`;
    mark(end, "g-replace", 0.46);
    const pick = () => { page.pending = end; render(); };
    hit(end, "replace", pick, showRoute(key));
    items.push([[`⇄ replace ${end}`, small(v.routes[key].map((mv) => `${mv[0]}-${mv[mv.length - 1]}`).join("^"))], pick, showRoute(key), "replace"]);
  }
  choices(items);
}

function small(s) {
  const e = document.createElement("small");
  e.textContent = s;
  return e;
}

// drawGygesPiece draws a piece of size k at (x, y): a disc with k rings, as the tiers of the
// wooden pieces seen from above.
function drawGygesPiece(g, x, y, k, r, cls) {
  const p = el("g", { class: "g-piece" + (cls ? " " + cls : "") }, g);
  p.dataset.size = k;
  el("circle", { cx: x, cy: y, r, class: "g-body" }, p);
  for (let i = 0; i < k; i++) el("circle", { cx: x, cy: y, r: r * (0.74 - 0.25 * i), class: "g-ring" }, p);
  el("title", {}, p).textContent = `a ${GSIZE[k]} (size ${k})`;
  return p;
}

// gygesIcon is a small piece of size k for a button.
function gygesIcon(k) {
  const s = document.createElementNS(SVG, "svg");
  s.setAttribute("viewBox", "-20 -20 40 40");
  s.setAttribute("class", "icon");
  drawGygesPiece(s, 0, 0, k, 18);
  return s;
}

function drawGygesGoal(svg, g, y, top) {
  const grp = el("g", { class: "g-goal" }, svg);
  grp.dataset.goal = g;
  el("rect", { x: 0.1 * GQ, y: y - 0.42 * GQ, width: 5.8 * GQ, height: 0.84 * GQ, rx: 20, class: "g-goalbox" }, grp);
  const t = el("text", { x: 3 * GQ, y: y - 0.1 * GQ, class: "g-goalname" }, grp);
  t.textContent = `${g.toUpperCase()} GOAL`;
  const n = el("text", { x: 3 * GQ, y: y + 0.2 * GQ, class: "g-goalnote" }, grp);
  n.textContent = `${g === "north" ? "south" : "north"} wins by entering it ${top ? "from the top row" : "from the bottom row"}`;
}

// drawGygesSide draws, right of the board, what is to place in the set-up, or which row may
// move.
function drawGygesSide(svg, st, gy, flip) {
  const v = st.view;
  const x0 = 6.45 * GQ;
  const g = el("g", { class: "g-side" }, svg);
  if (v.phase === "setup") {
    for (const p of st.names) {
      const start = p === "south" ? 1 : 6;
      const y = gy(start) + 0.18 * GQ;
      const t = el("text", { x: x0, y, class: "g-sidehead" }, g);
      t.textContent = `${p}${p === st.human ? " (you)" : ""} to place`;
      // Two rows of three: six pieces in a row would run past the viewBox.
      let n = 0;
      for (let k = 3; k >= 1; k--) {
        for (let i = 0; i < v.to_place[p][k - 1]; i++, n++) {
          const px = x0 + 0.3 * GQ + (n % 3) * 0.6 * GQ, py = y + 0.5 * GQ + Math.floor(n / 3) * 0.6 * GQ;
          drawGygesPiece(g, px, py, k, 0.26 * GQ, "reserve").dataset.reserve = p;
        }
      }
      if (!n) el("text", { x: x0, y: y + 0.5 * GQ, class: "g-sidenote" }, g).textContent = "all placed";
    }
    fitRight(g, GVIEW.x + GVIEW.w - 4);
    return;
  }
  if (!v.row) return;
  const y = gy(v.row) + GQ / 2;
  arrowHead(g, x0 + 0.5 * GQ, y, x0 + 0.1 * GQ, y, 18, "g-rowarrow");
  const t = el("text", { x: x0 + 0.62 * GQ, y: y - 0.12 * GQ, class: "g-sidehead" }, g);
  t.textContent = `${v.side} moves`;
  el("text", { x: x0 + 0.62 * GQ, y: y + 0.2 * GQ, class: "g-sidenote" }, g).textContent = `a piece from row ${v.row}`;
  if (v.nearest && v.nearest !== v.row) {
    el("text", { x: x0 + 0.62 * GQ, y: y + 0.45 * GQ, class: "g-sidenote" }, g).textContent = `(row ${v.nearest} is blocked)`;
  }
  fitRight(g, GVIEW.x + GVIEW.w - 4);
}

// scoreGyges fills the Game box: the move count, the rule, what is left to place.
function scoreGyges(st) {
  const v = st.view;
  const rows = [];
  const line = (text, cls) => {
    const d = document.createElement("div");
    d.className = cls || "row";
    d.textContent = text;
    rows.push(d);
    return d;
  };
  line(`${v.advanced ? "Advanced rule: a move may end on a piece and replace it." : "Basic rule."} Move ${v.moves} of ${v.move_cap} (a draw at ${v.move_cap}).`, "muted");
  if (v.phase === "setup") {
    for (const p of st.names) {
      const left = [3, 2, 1].filter((k) => v.to_place[p][k - 1] > 0).map((k) => `${v.to_place[p][k - 1]} ${v.to_place[p][k - 1] > 1 ? GSIZES[k] : GSIZE[k]}`);
      const d = line(`${p}: ${left.length ? left.join(", ") + " to place" : "all placed"}`);
      d.prepend(Object.assign(document.createElement("span"), { className: "chip " + p }));
    }
  }
  line("Pieces belong to nobody: each moves as many squares as its rings (1, 2, 3), and bounces on the pieces it ends on.", "muted");
  $("score").replaceChildren(...rows);
}

boards.gyges = drawGyges;
