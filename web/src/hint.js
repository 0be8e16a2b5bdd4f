// Hints: a line where logic, from exactly what the player knows (broken, marked, painted),
// decides at least one more cube. Only the visible clues are used: the page's own line solvers
// (lines.js) on the player's knowledge of each cube. The solution is never read here; the page
// uses it only to leave a wrong mark out of what the player knows.
//
// Knowledge of a cube: black and white, a line state (EMPTY broken, FILLED marked, UNKNOWN);
// colour, a bit set (bit 0 empty, bit c colour c). What a deduction tells the player (`actionOf`):
// break it, it is part of the model (mark it), or paint it colour c.
import { EMPTY, FILLED, UNKNOWN, relaxColour, solveColour, solveColourLine, solveCount } from "./lines.js";

export const NONE = 0, BREAK = 1, MODEL = 2;   // PAINT c: 2 + c
export const paintAction = (c) => 2 + c;

// the action a value (what is left possible) tells the player
export function actionOf(v, k) {
  if (!k) return v === EMPTY ? BREAK : v === FILLED ? MODEL : NONE;
  if (v === 1) return BREAK;
  if (v & 1) return NONE;
  return (v & (v - 1)) === 0 ? paintAction(31 - Math.clz32(v)) : MODEL;
}

// Every line of the block with its clue: x-lines by (y, z), y-lines by (x, z), z-lines by (x, y)
// (the puzzle file's order). `lineOf[3 i + axis]`: the line of that axis through cube i.
export function blockLines(P) {
  const [X, Y, Z] = P.shape, idx = (x, y, z) => (x * Y + y) * Z + z;
  const lines = [], lineOf = new Int32Array(3 * P.n);
  const add = (axis, a, b, clue, length, cell) => {
    const cells = new Int32Array(length);
    for (let t = 0; t < length; t++) { cells[t] = cell(t); lineOf[3 * cells[t] + axis] = lines.length; }
    lines.push({ axis, a, b, clue, cells });
  };
  for (let y = 0; y < Y; y++) for (let z = 0; z < Z; z++) add(0, y, z, P.clues.x[y][z], X, (t) => idx(t, y, z));
  for (let x = 0; x < X; x++) for (let z = 0; z < Z; z++) add(1, x, z, P.clues.y[x][z], Y, (t) => idx(x, t, z));
  for (let x = 0; x < X; x++) for (let y = 0; y < Y; y++) add(2, x, y, P.clues.z[x][y], Z, (t) => idx(x, y, t));
  return { lines, lineOf };
}

// One line solved on `state` (the knowledge of every cube): the values its cubes can take, or
// null on a contradiction. `exact` false: a colour line gets only the per-colour pass (sound).
// The values are in a scratch array, valid until the next call.
let lineIn = new Int8Array(64), lineOut = new Int8Array(64);
function solveLine(line, state, k, exact, budget) {
  const n = line.cells.length, cells = line.cells;
  if (!k) {
    if (lineIn.length !== n) { lineIn = new Int8Array(n); lineOut = new Int8Array(n); }
    for (let t = 0; t < n; t++) lineIn[t] = state[cells[t]];
    return { values: solveCount(lineIn, line.clue.total, line.clue.kind, lineOut) ? lineOut : null, gaveUp: false };
  }
  const m = new Int32Array(n);
  for (let t = 0; t < n; t++) m[t] = state[cells[t]];
  if (!exact) return { values: relaxColour(m, line.clue.counts), gaveUp: false };
  return ((r) => ({ values: r.masks, gaveUp: r.gaveUp }))(solveColourLine(m, line.clue.counts, budget));
}

// The cubes of a line whose value tells the player something new: [[cube, action], ...]
const NO_NEWS = [];
function newsOf(line, state, values, k) {
  let changed = false;
  for (let t = 0; t < line.cells.length && !changed; t++) changed = values[t] !== state[line.cells[t]];
  if (!changed) return NO_NEWS;
  const out = [];
  for (let t = 0; t < line.cells.length; t++) {
    const i = line.cells[t], a = actionOf(values[t], k);
    if (a !== NONE && a !== actionOf(state[i], k)) out.push([i, a]);
  }
  return out;
}

// A colour line's exact solve may take long; past this many automaton steps it is left (sound).
const LINE_BUDGET = 400000;

// The hint finder of one puzzle. Each line's deduction depends only on its own cubes, so it is
// kept until one of them changes (`touch`): a hint after a few moves solves only their lines.
export function makeHinter(P, blocks = blockLines(P)) {
  const { lines, lineOf } = blocks, k = P.k;
  const clued = lines.map((l, j) => j).filter((j) => lines[j].clue !== null);
  const cheap = new Array(lines.length).fill(null);      // news of the cheap pass, null: stale
  const exact = new Array(lines.length).fill(null);      // colour: news of the exact pass
  const gaveUp = new Uint8Array(lines.length);
  function touch(i) {
    for (let a = 0; a < 3; a++) { const l = lineOf[3 * i + a]; cheap[l] = null; exact[l] = null; }
  }
  function reset() { cheap.fill(null); exact.fill(null); }
  // best of the lines with news: one whose news the player can see, then the most news
  function best(found, visible) {
    let pick = -1, score = -1;
    for (const [l, news] of found) {
      const seen = news.filter(([i]) => visible(i)).length;
      const s = (seen ? 1e6 : 0) + 1000 * seen + news.length;
      if (s > score) { score = s; pick = l; }
    }
    return pick;
  }
  // A hint from `state` (the player's knowledge of every cube): { line, news: [[cube, action]],
  // values } or { line: -1, skipped } when no single line decides anything (`skipped`: colour
  // lines too long for the exact solver, left out). `deadline` (performance.now()): the exact
  // colour pass stops there, and a later call goes on where it stopped.
  function find(state, visible = () => true, deadline = Infinity) {
    const found = [];
    for (const l of clued) {
      if (cheap[l] === null) {
        const r = solveLine(lines[l], state, k, false);
        cheap[l] = r.values ? newsOf(lines[l], state, r.values, k) : [];
      }
      if (cheap[l].length) found.push([l, cheap[l]]);
    }
    if (!found.length && k) {
      let stopped = false;
      for (const l of clued) {
        if (exact[l] === null) {
          if (performance.now() > deadline) { stopped = true; break; }
          const r = solveLine(lines[l], state, k, true, LINE_BUDGET);
          gaveUp[l] = r.gaveUp ? 1 : 0;
          exact[l] = r.values ? newsOf(lines[l], state, r.values, k) : [];
        }
        if (exact[l].length) found.push([l, exact[l]]);
      }
      if (stopped && !found.length) return { line: -1, unfinished: true, skipped: 0 };
    }
    if (!found.length) {
      return { line: -1, unfinished: false, skipped: k ? clued.filter((l) => gaveUp[l]).length : 0 };
    }
    const l = best(found, visible);
    // the line's whole deduction: for a colour line the exact pass (it may decide more)
    const r = solveLine(lines[l], state, k, true, LINE_BUDGET);
    return { line: l, news: newsOf(lines[l], state, r.values, k), values: r.values };
  }
  return { lines, lineOf, find, touch, reset };
}

// ---- deeper: lines together (propagation to their fixpoint), then probing

// Propagate `state` (changed in place) over every clued line until no line narrows it; the
// lines to look at first: `queue` (default all). Returns false on a contradiction. `budget`
// counts line solves (null: unlimited); past it returns null (nothing concluded).
export function propagate(hinter, state, k, queue = null, budget = null) {
  const { lines, lineOf } = hinter;
  const inQueue = new Uint8Array(lines.length);
  const todo = [];
  for (const l of queue || lines.keys()) if (lines[l].clue !== null && !inQueue[l]) { inQueue[l] = 1; todo.push(l); }
  let solves = 0;
  while (todo.length) {
    const l = todo.pop();
    inQueue[l] = 0;
    if (budget !== null && ++solves > budget) return null;
    const line = lines[l], r = solveLine(line, state, k, true, LINE_BUDGET);
    if (!r.values) return false;
    for (let t = 0; t < line.cells.length; t++) {
      const i = line.cells[t], v = r.values[t];
      if (v === state[i]) continue;
      state[i] = v;
      for (let a = 0; a < 3; a++) {
        const m = lineOf[3 * i + a];
        if (m !== l && !inQueue[m] && lines[m].clue !== null) { inQueue[m] = 1; todo.push(m); }
      }
    }
  }
  return true;
}

const valuesOf = (v, k) => {
  const out = [];
  for (let b = k ? 0 : 1; b < (k ? k + 1 : 3); b++) { const bit = k ? 1 << b : b; if (v & bit) out.push(bit); }
  return out;
};

// When no single line decides anything: first all lines together (`kind` "lines": the cubes
// their propagation decides), then probing (`kind` "probe": a value of one cube that leads to a
// contradiction, so the cube is decided). `order`: the cubes to probe, visible ones first.
// Returns { kind, news } or { kind: null } (nothing found before `deadline`).
export function deeper(hinter, state, k, order, deadline = Infinity) {
  const base = k ? Int32Array.from(state) : Int8Array.from(state);
  if (propagate(hinter, base, k) === false) return { kind: null };
  const news = [];
  for (let i = 0; i < base.length; i++) {
    const a = actionOf(base[i], k);
    if (a !== NONE && a !== actionOf(state[i], k)) news.push([i, a]);
  }
  if (news.length) return { kind: "lines", news };
  for (const i of order) {
    if (performance.now() > deadline) break;
    const options = valuesOf(base[i], k);
    if (options.length < 2) continue;
    for (const v of options) {
      const trial = k ? Int32Array.from(base) : Int8Array.from(base);
      trial[i] = v;
      const queue = [0, 1, 2].map((a) => hinter.lineOf[3 * i + a]);
      if (propagate(hinter, trial, k, queue, 20000) !== false) continue;
      // v is impossible: the cube keeps the rest
      const rest = base[i] & ~v;
      const a = actionOf(rest, k);
      if (a !== NONE && a !== actionOf(state[i], k)) return { kind: "probe", news: [[i, a]], ruledOut: v, cube: i };
      base[i] = rest;
    }
  }
  return { kind: null };
}

export { EMPTY, FILLED, UNKNOWN };
