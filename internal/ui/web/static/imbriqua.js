// zero · play: the Imbriqua board (view kind "imbriqua"). The 8×8 board, its edge squares
// shaded, as light sees it (as dark does when the person plays dark); beside it the card just
// turned over and the pile it comes from. Framed squares are drawn as strokes along the lines
// that frame them. Like the rest of the page it only draws and turns clicks into moves.
"use strict";

const IQ = 60; // a square
// IVIEW is the board's viewBox: the board and, on its right, the deck.
const IVIEW = { x: -0.62 * IQ, y: -0.62 * IQ, w: 13.2 * IQ, h: 9.24 * IQ };

function drawImbriqua(st) {
  const v = st.view;
  const flip = st.human === "dark";
  const file = (name) => name.charCodeAt(0) - 97;
  const rank = (name) => +name[1] - 1;
  const ix = (f) => (flip ? 7 - f : f) * IQ;
  const iy = (r) => (flip ? r : 7 - r) * IQ;
  const cx = (name) => ix(file(name)) + IQ / 2;
  const cy = (name) => iy(rank(name)) + IQ / 2;
  const sqName = (i) => String.fromCharCode(97 + (i % 8)) + (Math.floor(i / 8) + 1);
  const pawn = (name) => v.squares[rank(name) * 8 + file(name)];
  const me = st.human, opp = st.names.find((n) => n !== me);
  const svg = showBoard(IVIEW.x, IVIEW.y, IVIEW.w, IVIEW.h);
  // Where a move goes on the board, for the agent's view (drawHints): a placement's or a
  // removal's square, a move's or a jump's landing square (from its pawn).
  const sq = (n) => /^[a-h][1-8]$/.test(n) ? [cx(n), cy(n)] : null;
  page.spot = (m) => {
    const k = m.match(/^([a-h][1-8])[-x]([a-h][1-8])$/);
    if (k) return { at: sq(k[2]), from: sq(k[1]), size: IQ };
    const at = sq(m.startsWith("remove ") ? m.slice(7) : m);
    return at && { at, size: IQ };
  };

  el("rect", { x: -0.16 * IQ, y: -0.16 * IQ, width: 8.32 * IQ, height: 8.32 * IQ, rx: 8, class: "i-frame" }, svg);
  for (let i = 0; i < 64; i++) {
    const n = sqName(i), f = i % 8, r = Math.floor(i / 8);
    const edge = f === 0 || f === 7 || r === 0 || r === 7;
    el("rect", { x: ix(f), y: iy(r), width: IQ, height: IQ, class: "i-square" + (edge ? " edge" : "") }, svg).dataset.square = n;
  }
  const labels = el("g", {}, svg);
  for (let f = 0; f < 8; f++) {
    text(labels, ix(f) + IQ / 2, -0.36 * IQ, String.fromCharCode(97 + f));
    text(labels, ix(f) + IQ / 2, 8.36 * IQ, String.fromCharCode(97 + f));
  }
  for (let r = 0; r < 8; r++) text(labels, -0.4 * IQ, iy(r) + IQ / 2, String(r + 1));

  // Framed squares: a stroke along each line that frames one, light's hollow, dark's solid.
  const frames = el("g", { class: "i-frames" }, svg);
  const dirs = { row: [1, 0], column: [0, 1], diagonal: [1, -1], anti: [1, 1] }; // on screen, unflipped
  for (const fr of v.framed) {
    const x = cx(fr.square), y = cy(fr.square);
    const g = el("g", {}, frames);
    g.dataset.framed = fr.square;
    for (const [who, lines] of [["light", fr.light], ["dark", fr.dark]]) {
      for (const l of lines) {
        const [dx, dy] = dirs[l].map((d) => d * IQ * (l === "row" || l === "column" ? 0.36 : 0.27));
        for (const cls of who === "light" ? ["i-frame-light-edge", "i-frame-light"] : ["i-frame-dark"]) {
          el("line", { x1: x - dx, y1: y - dy, x2: x + dx, y2: y + dy, class: cls }, g);
        }
      }
    }
    el("title", {}, g).textContent = `${fr.square} framed` +
      (fr.light.length ? ` by light (${fr.light.join(", ")})` : "") + (fr.dark.length ? ` by dark (${fr.dark.join(", ")})` : "");
  }

  // A pawn removed by a penalty in the turns just shown: a cross where it stood.
  const removed = [];
  for (const t of v.recent) for (const d of t.decisions) if (d.kind === "remove") removed.push([d.move.slice(7), t]);
  const lastRemoved = removed.length ? removed[removed.length - 1][0] : "";

  // The last turn played and the turn in progress: the way each move and jump went, under
  // the pawns, and the placements circled where the pawn still stands (the turn's own
  // placement has its square marked instead).
  const done = v.recent.filter((t) => t.turn > 0 && t.turn !== v.turn);
  const shown = v.recent.filter((t) => t.turn > 0 && (t.turn === v.turn || t === done[done.length - 1]));
  const lastG = el("g", { id: "i-last" }, svg);
  for (const t of shown) {
    for (const d of t.decisions) {
      const m = d.move.match(/^([a-h][1-8])[-x]([a-h][1-8])$/);
      if ((d.kind === "move" || d.kind === "capture") && m) {
        el("line", { x1: cx(m[1]), y1: cy(m[1]), x2: cx(m[2]), y2: cy(m[2]), class: "lastpath i-lastmove" }, lastG).dataset.move = d.move;
        arrowHead(lastG, cx(m[1]), cy(m[1]), cx(m[2]), cy(m[2]), 13, "lastpath-head");
      } else if ((d.kind === "place" || d.kind === "bonus") && pawn(d.move) && d.move !== v.placed) {
        el("circle", { cx: cx(d.move), cy: cy(d.move), r: IQ * 0.44, class: "lasthalo i-lastplace" }, lastG).dataset.square = d.move;
      }
    }
  }

  const pieces = el("g", {}, svg);
  for (let i = 0; i < 64; i++) {
    const n = sqName(i);
    const p = v.squares[i];
    if (!p) continue;
    const c = el("circle", { cx: cx(n), cy: cy(n), r: IQ * 0.34, class: p === "L" ? "i-light" : "i-dark" }, pieces);
    c.dataset.pawn = p;
    c.dataset.square = n;
  }
  if (lastRemoved && !pawn(lastRemoved)) {
    const x = cx(lastRemoved), y = cy(lastRemoved), d = IQ * 0.22;
    const g = el("g", { class: "i-removed" }, pieces);
    g.dataset.removed = lastRemoved;
    el("line", { x1: x - d, y1: y - d, x2: x + d, y2: y + d }, g);
    el("line", { x1: x - d, y1: y + d, x2: x + d, y2: y - d }, g);
  }
  if (v.placed) {
    const m = el("rect", { x: ix(file(v.placed)) + 4, y: iy(rank(v.placed)) + 4, width: IQ - 8, height: IQ - 8, rx: 6, class: "i-placed" }, pieces);
    m.dataset.placed = v.placed;
    el("title", {}, m).textContent = `${v.placed}: the pawn placed this turn`;
  }

  drawImbriquaDeck(svg, st);
  scoreImbriqua(st);
  notesImbriqua(st);

  const penaltyText = () => {
    const c = v.card;
    const what = `${v.mover} cannot play card ${c.number} (${c.name})`;
    if (v.decider === me) return `Your decision — ${what}: remove one of ${v.mover}'s pawns (circled in red).`;
    return `${what}: ${v.decider}, the opponent, removes one of ${v.mover === me ? "your" : v.mover + "'s"} pawns.`;
  };
  if (!st.your_turn) return v.phase === "penalty" ? { text: penaltyText(), state: "penalty" } : undefined;

  // What the person may do.
  const ui = el("g", { id: "imbriqua-ui" }, svg);
  const hint = el("g", { class: "i-hint" }, svg);
  const hit = (name, cls, onClick, hover) => {
    const r = el("rect", { x: ix(file(name)), y: iy(rank(name)), width: IQ, height: IQ, class: "hit " + cls }, ui);
    r.dataset.square = name;
    el("title", {}, r).textContent = name;
    r.addEventListener("click", onClick);
    if (hover) {
      r.addEventListener("mouseenter", () => hover(true));
      r.addEventListener("mouseleave", () => hover(false));
    }
    return r;
  };
  const mark = (name, cls, r) => el("circle", { cx: cx(name), cy: cy(name), r: r * IQ, class: cls }, ui);
  const pawnMoves = new Map(); // from → [[to, move, capture]]
  const items = [];
  let removing = false;
  for (const m of st.legal) {
    let k;
    if (/^[a-h][1-8]$/.test(m)) {
      mark(m, "target", 0.1);
      hit(m, "place", () => play(m));
    } else if (m.startsWith("remove ")) {
      const sq = m.slice(7);
      removing = true;
      mark(sq, "removable", 0.45);
      hit(sq, "remove", () => play(m));
    } else if ((k = m.match(/^([a-h][1-8])([-x])([a-h][1-8])$/))) {
      if (!pawnMoves.has(k[1])) pawnMoves.set(k[1], []);
      pawnMoves.get(k[1]).push([k[3], m, k[2] === "x"]);
    } else if (m === "stop") {
      items.push(["Stop the chain", m, null, "primary-choice"]);
    } else {
      items.push([m, m]);
    }
  }
  // One pawn to act (a red card, a chain): pick it at once.
  if (page.selected && !pawnMoves.has(page.selected)) page.selected = null;
  if (!page.selected && pawnMoves.size === 1) page.selected = [...pawnMoves.keys()][0];
  // captured lists the opponent's pawns a jump from a to b passes over.
  const captured = (a, b) => {
    const df = Math.sign(file(b) - file(a)), dr = Math.sign(rank(b) - rank(a));
    const out = [];
    for (let f = file(a) + df, r = rank(a) + dr; f !== file(b) || r !== rank(b); f += df, r += dr) {
      const n = String.fromCharCode(97 + f) + (r + 1);
      if (pawn(n)) out.push(n);
    }
    return out;
  };
  for (const [from, list] of pawnMoves) {
    if (from === page.selected) {
      mark(from, "selected", 0.46);
      for (const [to, m, capture] of list) {
        const show = (on) => {
          hint.replaceChildren();
          if (!on) return;
          el("line", { x1: cx(from), y1: cy(from), x2: cx(to), y2: cy(to), class: "i-path" }, hint);
          arrowHead(hint, cx(from), cy(from), cx(to), cy(to), 14, "i-path-head");
          for (const c of capture ? captured(from, to) : []) {
            const d = IQ * 0.2;
            el("line", { x1: cx(c) - d, y1: cy(c) - d, x2: cx(c) + d, y2: cy(c) + d, class: "i-take" }, hint);
            el("line", { x1: cx(c) - d, y1: cy(c) + d, x2: cx(c) + d, y2: cy(c) - d, class: "i-take" }, hint);
          }
        };
        mark(to, capture ? "target capture" : "target", 0.14);
        hit(to, "dest", () => play(m), show);
        items.push([m, m, show]);
      }
    } else {
      mark(from, "movable", 0.46);
    }
    hit(from, "pawn", () => { page.selected = page.selected === from ? null : from; render(); });
  }
  choices(items);
  if (removing) return { text: penaltyText(), state: "penalty" };
  if (v.phase === "chain") return { text: `Your turn — jump again from ${v.chain} (click a landing square), or stop the chain.`, state: "you" };
  return undefined;
}

// drawImbriquaDeck draws, right of the board, the card turned over and the pile it comes from.
function drawImbriquaDeck(svg, st) {
  const v = st.view;
  const x0 = 8.55 * IQ, w = 3.9 * IQ;
  const g = el("g", { class: "i-deck" }, svg);
  const head = (y, s) => { el("text", { x: x0, y, class: "i-head" }, g).textContent = s; };

  // The card: the turn's own once turned over, else the one before it (or the next, known).
  let c = v.card, caption = "";
  if (c) caption = `${c.by === st.human ? "your" : c.by + "'s"} card · turn ${c.turn}`;
  else if (v.previous) { c = v.previous; caption = `last card · ${c.by}, turn ${c.turn}`; }
  head(0.1 * IQ, v.phase === "over" ? `All ${v.turns} turns played` : v.turn ? `Turn ${v.turn} of ${v.turns} · ${v.mover === st.human ? "yours" : v.mover + "'s"}` : "The opening");
  el("text", { x: x0, y: 0.5 * IQ, class: "i-sub" }, g).textContent = c ? caption : "4 pawns each anywhere, then cards";
  const cardY = 0.8 * IQ, cw = 2.35 * IQ, ch = 3.25 * IQ;
  const card = el("g", { class: "i-card " + (c ? (c.colour || "neutral") : "back") }, g);
  card.dataset.card = c ? c.number : "";
  if (c && (c === v.card) && page.revealed !== `${c.turn}:${c.number}`) {
    card.classList.add("reveal"); // just turned over
    page.revealed = `${c.turn}:${c.number}`;
  }
  el("rect", { x: x0, y: cardY, width: cw, height: ch, rx: 12, class: "i-cardface" }, card);
  if (c) {
    el("rect", { x: x0, y: cardY, width: cw, height: 0.62 * IQ, rx: 12, class: "i-band" }, card);
    el("rect", { x: x0, y: cardY + 0.4 * IQ, width: cw, height: 0.22 * IQ, class: "i-band" }, card);
    el("text", { x: x0 + cw / 2, y: cardY + 0.34 * IQ, class: "i-bandtext" }, card).textContent =
      c.colour === "green" ? "GREEN · any pawn" : c.colour === "red" ? "RED · placed pawn" : "PLACE 2 PAWNS";
    el("text", { x: x0 + cw / 2, y: cardY + 1.55 * IQ, class: "i-number" }, card).textContent = c.number;
    drawCardGlyph(card, x0 + cw / 2, cardY + 2.28 * IQ, c.number);
    const [l1, l2] = c.name.split(", ");
    // The name within the card's face.
    for (const [i, line] of [l1, l2].entries()) {
      if (!line) continue;
      const t = el("text", { x: x0 + cw / 2, y: cardY + (2.8 + 0.26 * i) * IQ, class: "i-name" }, card);
      t.textContent = line;
      fitWidth(t, cw - 12);
    }
  } else {
    el("text", { x: x0 + cw / 2, y: cardY + 1.8 * IQ, class: "i-number back" }, card).textContent = "?";
  }

  // Beside it: the next card, when it is known which (else chance draws it).
  const next = v.next;
  if (v.phase !== "over") {
    const nx = x0 + cw + 0.25 * IQ;
    el("text", { x: nx, y: cardY + 0.25 * IQ, class: "i-sub" }, g).textContent = "next";
    const ng = el("g", { class: "i-mini " + (next ? next.colour || "neutral" : "back") }, g);
    ng.dataset.next = next ? next.number : "";
    el("rect", { x: nx, y: cardY + 0.45 * IQ, width: 0.95 * IQ, height: 1.3 * IQ, rx: 6, class: "i-cardface" }, ng);
    el("text", { x: nx + 0.475 * IQ, y: cardY + 1.2 * IQ, class: "i-mininum" }, ng).textContent = next ? next.number : "?";
    el("text", { x: nx, y: cardY + 2.05 * IQ, class: "i-sub" }, g).textContent = next ? "known" : "by chance";
    if (next) el("text", { x: nx, y: cardY + 2.4 * IQ, class: "i-sub" }, g).textContent = `turn ${next.turn}, ${next.by === st.human ? "you" : next.by}`;
  }

  // The pile: its 11 cards in the order they are turned over.
  const py = cardY + ch + 0.65 * IQ;
  const p = v.pile;
  head(py, `Pile ${p.number} of 4${p.reversed ? " (the first, reversed)" : ""}`);
  el("text", { x: x0, y: py + 0.38 * IQ, class: "i-sub" }, g).textContent = `${11 - p.done} card${11 - p.done === 1 ? "" : "s"} left to turn over`;
  const mw = w / 11;
  p.cards.forEach((k, i) => {
    const state = i < p.done - (v.card ? 1 : 0) ? "done" : i === p.done - 1 && v.card ? "now" : "coming";
    const m = el("g", { class: `i-pilecard ${state}` }, g);
    m.dataset.pile = i;
    el("rect", { x: x0 + i * mw, y: py + 0.6 * IQ, width: mw - 3, height: 0.62 * IQ, rx: 3 }, m);
    el("text", { x: x0 + i * mw + (mw - 3) / 2, y: py + 0.92 * IQ }, m).textContent = k || "?";
  });
  if (v.unknown.length && v.turn <= 10) {
    el("text", { x: x0, y: py + 1.6 * IQ, class: "i-sub" }, g).textContent = `? is drawn by chance, one of`;
    el("text", { x: x0, y: py + 1.95 * IQ, class: "i-sub" }, g).textContent = v.unknown.join(" ");
  }
  fitRight(g, IVIEW.x + IVIEW.w - 4);
}

// drawCardGlyph draws the card's movement: arrows along its lines (+ orthogonal, × diagonal),
// a pawn jumped for the captures, two for the double captures, two pawns for card 11.
function drawCardGlyph(g, x, y, k) {
  const gl = el("g", { class: "i-glyph" }, g);
  if (k === 11) {
    el("circle", { cx: x - 12, cy: y, r: 9, class: "i-glyph-pawn" }, gl);
    el("circle", { cx: x + 12, cy: y, r: 9, class: "i-glyph-pawn" }, gl);
    return;
  }
  const diag = k % 2 === 0;
  const len = k === 3 || k === 4 || k === 7 || k === 8 ? 26 : 17;
  for (let i = 0; i < 4; i++) {
    const a = (diag ? Math.PI / 4 : 0) + i * Math.PI / 2;
    const x2 = x + len * Math.cos(a), y2 = y + len * Math.sin(a);
    el("line", { x1: x, y1: y, x2, y2, class: "i-glyph-line" + (len > 20 ? " long" : "") }, gl);
    arrowHead(gl, x, y, x2, y2, 7, "i-glyph-head");
    if (k >= 5) {
      const n = k >= 9 ? 2 : 1;
      for (let j = 0; j < n; j++) {
        const t = 0.45 + 0.25 * j;
        el("circle", { cx: x + t * len * Math.cos(a), cy: y + t * len * Math.sin(a), r: 2.6, class: "i-glyph-taken" }, gl);
      }
    }
  }
  el("circle", { cx: x, cy: y, r: 5, class: "i-glyph-pawn" }, gl);
}

// scoreImbriqua fills the Game box: the framed squares and the pawns of each player.
function scoreImbriqua(st) {
  const v = st.view;
  const total = Math.max(1, v.score.light + v.score.dark);
  const rows = st.names.map((n) => {
    const row = document.createElement("div");
    row.className = "row";
    const chip = Object.assign(document.createElement("span"), { className: "chip " + n });
    const label = Object.assign(document.createElement("span"), { textContent: `${n}${n === st.human ? " (you)" : ""}` });
    const nums = Object.assign(document.createElement("span"), { className: "nums", textContent: `${v.score[n]} framed · ${v.pawns[n]} pawn${v.pawns[n] === 1 ? "" : "s"}` });
    nums.dataset.score = n;
    const bar = Object.assign(document.createElement("div"), { className: "bar thin" });
    const fill = document.createElement("div");
    fill.style.width = `${Math.round(100 * v.score[n] / total)}%`;
    bar.append(fill);
    row.append(chip, label, nums);
    const wrap = document.createElement("div");
    wrap.append(row, bar);
    return wrap;
  });
  const [l, d] = [v.score.light, v.score.dark];
  const lead = l === d ? (v.pawns.light === v.pawns.dark ? "level" : `level on frames; ${v.pawns.light > v.pawns.dark ? "light" : "dark"} has more pawns`) : `${l > d ? "light" : "dark"} leads by ${Math.abs(l - d)}`;
  rows.push(Object.assign(document.createElement("div"), { className: "muted", textContent: `Framed squares (an empty square between two of one's pawns, once per line): ${lead}.` }));
  $("score").replaceChildren(...rows);
}

// notesImbriqua lists under the board what the last turns did, a penalty set apart.
function notesImbriqua(st) {
  for (const t of st.view.recent) {
    const who = t.mover === st.human ? "you" : t.mover;
    const box = document.createElement("div");
    box.className = "i-turn";
    const h = Object.assign(document.createElement("div"), { className: "i-turnhead", textContent: t.turn ? `Turn ${t.turn} · ${who}` : "The opening" });
    box.append(h);
    const list = document.createElement("ul");
    const shown = t.turn ? t.decisions : t.decisions.slice(-4);
    for (const d of shown) {
      const li = document.createElement("li");
      li.textContent = d.text;
      li.className = "k-" + d.kind + (d.kind === "remove" || /impossible/.test(d.text) ? " penalty" : "");
      list.append(li);
    }
    box.append(list);
    $("notes").append(box);
  }
}

boards.imbriqua = drawImbriqua;
