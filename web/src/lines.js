// Complete line solvers for the page's hints: given what is known of a line's cubes and its
// clue, every value each cube can still take over all fillings that fit (nothing less: a value
// left out is impossible). The same contract as the engine's solvers, which tests compare them
// with on random lines (engine/lines/linesolve.py `solve_count`, engine/lines/colourline.py
// `solve_line`).
//
// Black-and-white cells: bit 1 empty, bit 2 filled (3 unknown, 0 a contradiction), as the
// engine's EMPTY / FILLED / UNKNOWN. Colour cells: a bit set, bit 0 empty, bit c colour c.

export const EMPTY = 1, FILLED = 2, UNKNOWN = 3;
// clue kinds as web/src/data.js reads them: one block, two blocks, three or more
export const PLAIN = 0, CIRCLE = 1, SQUARE = 2;

// the accepting block count (capped at 3) of a count clue
const blocksOf = (total, kind) => (kind === PLAIN ? (total > 0 ? 1 : 0) : kind === CIRCLE ? 2 : 3);

// Scratch bit sets, grown as lines need: the reachability of the DP below.
let fw = new Uint32Array(0), bw = new Uint32Array(0);

// A 3D count clue (total filled cubes in one, two, or three or more blocks) on a line of
// black-and-white states. The reachability DP over (cells read, blocks so far capped at 3, last
// cell filled) keeps the filled counts of each state as a bit set, so a line of n cells costs
// O(8 n (total + 1) / 32) word operations. Writes the possible values into `out` and returns
// true; false when nothing fits (a contradiction).
export function solveCount(state, total, kind, out) {
  const n = state.length;
  if (total < 0 || total > n) return false;
  for (let i = 0; i < n; i++) if (state[i] === 0) return false;
  const W = (total >> 5) + 1, top = total & 31;
  const topMask = top === 31 ? 0xffffffff : ((1 << (top + 1)) - 1) >>> 0;
  const layer = 8 * W, size = (n + 1) * layer;
  if (fw.length < size) { fw = new Uint32Array(2 * size); bw = new Uint32Array(2 * size); }
  fw.fill(0, 0, size);
  bw.fill(0, 0, size);
  fw[0] = 1;   // no cell read, no block, last not filled, 0 filled
  // slot of (cells i, blocks c, last s) at word w: i * layer + (2 c + s) * W + w
  for (let i = 0; i < n; i++) {
    const canE = state[i] & EMPTY, canF = state[i] & FILLED;
    const a = i * layer, b = a + layer;
    for (let cs = 0; cs < 8; cs++) {
      const src = a + cs * W;
      let any = 0;
      for (let w = 0; w < W; w++) any |= fw[src + w];
      if (!any) continue;
      const c = cs >> 1, s = cs & 1;
      if (canE) {
        const dst = b + 2 * c * W;
        for (let w = 0; w < W; w++) fw[dst + w] |= fw[src + w];
      }
      if (canF) {
        const c2 = s ? c : Math.min(c + 1, 3), dst = b + (2 * c2 + 1) * W;
        for (let w = W - 1; w >= 0; w--) fw[dst + w] |= (fw[src + w] << 1) | (w > 0 ? fw[src + w - 1] >>> 31 : 0);
        fw[dst + W - 1] &= topMask;
      }
    }
  }
  const want = blocksOf(total, kind), end = n * layer, bit = 1 << top, word = W - 1;
  let ok = false;
  for (let s = 0; s < 2; s++) {
    const at = end + (2 * want + s) * W + word;
    if (fw[at] & bit) { bw[at] = bit; ok = true; }
  }
  if (!ok) return false;
  for (let i = n - 1; i >= 0; i--) {
    const canE = state[i] & EMPTY, canF = state[i] & FILLED;
    const a = i * layer, b = a + layer;
    let v = 0;
    for (let cs = 0; cs < 8; cs++) {
      const c = cs >> 1, s = cs & 1, here = a + cs * W;
      if (canE) {
        const next = b + 2 * c * W;
        let meet = 0;
        for (let w = 0; w < W; w++) { bw[here + w] |= bw[next + w]; meet |= fw[here + w] & bw[next + w]; }
        if (meet) v |= EMPTY;
      }
      if (canF) {
        const c2 = s ? c : Math.min(c + 1, 3), next = b + (2 * c2 + 1) * W;
        let meet = 0;
        for (let w = 0; w < W; w++) {
          const back = (bw[next + w] >>> 1) | (w + 1 < W ? bw[next + w + 1] << 31 : 0);
          bw[here + w] |= back;
          meet |= fw[here + w] & back;
        }
        if (meet) v |= FILLED;
      }
    }
    out[i] = v;
  }
  return true;
}

// ---- colour lines: per colour a count and a mark (plain, circle, square); a run of a colour
// ends at an empty cell or a cell of another colour (Round 2's rule).

// Each colour on its own against "not this colour" (sound, not complete: the cheap first pass
// of a hint, as the engine's `relax_3d`). counts: [{total, kind}] per colour. Returns the new
// masks, or null on a contradiction.
let relaxView = new Int8Array(64), relaxRes = new Int8Array(64);
export function relaxColour(masks, counts) {
  const n = masks.length, cur = Int32Array.from(masks);
  if (relaxView.length !== n) { relaxView = new Int8Array(n); relaxRes = new Int8Array(n); }
  const view = relaxView, res = relaxRes;
  for (let c = 1; c <= counts.length; c++) {
    const bit = 1 << c, { total, kind } = counts[c - 1];
    if (total === 0) {
      for (let i = 0; i < n; i++) { cur[i] &= ~bit; if (!cur[i]) return null; }
      continue;
    }
    for (let i = 0; i < n; i++) view[i] = (cur[i] & ~bit ? EMPTY : 0) | (cur[i] & bit ? FILLED : 0);
    if (!solveCount(view, total, kind, res)) return null;
    for (let i = 0; i < n; i++) {
      if (!(res[i] & FILLED)) cur[i] &= ~bit;
      if (!(res[i] & EMPTY)) cur[i] &= bit;
      if (!cur[i]) return null;
    }
  }
  return cur;
}

// The complete colour line solver: forward, the automaton states reachable after each cell;
// backward, those from which the end is reachable; a value is possible at a cell when it joins
// two of them. A state is, per colour, the cells placed and its run number (capped at the
// mark's), and the previous cell's value, in one mixed-radix number, as the engine's
// `_step3`. `budget`: state steps allowed; past it the masks come back unchanged with
// `gaveUp` set (a sound answer that deduces nothing, as the engine's STATE_CAP). Returns
// { masks, gaveUp }; all-zero masks on a contradiction.
export function solveColour(masks, counts, budget = Infinity) {
  const n = masks.length, k = counts.length, k1 = k + 1;
  const cnt = counts.map((c) => c.total);
  const rmax = counts.map((c) => (c.total === 0 ? 0 : c.kind + 1));
  const base = cnt.map((t, c) => (t + 1) * (rmax[c] + 1));
  const mult = [];
  let accept = 0;
  for (let c = 0; c < k; c++) {
    mult.push(c ? mult[c - 1] * base[c - 1] : 1);
    accept += (cnt[c] + (cnt[c] + 1) * (cnt[c] > 0 ? rmax[c] : 0)) * mult[c];
  }
  // digit c of `rest`, exactly: (rest - rest % m) / m is a whole number however large rest is
  const digit = (rest, c) => ((rest - (rest % mult[c])) / mult[c]) % base[c];
  const step = (q, s) => {
    const last = q % k1, rest = (q - last) / k1;
    if (s === 0) return rest * k1;
    const c = s - 1, d = digit(rest, c), n1 = cnt[c] + 1;
    const have = d % n1;
    let runs = (d - have) / n1;
    if (have + 1 > cnt[c]) return -1;
    if (last !== s) {
      runs++;
      if (runs > rmax[c]) { if (rmax[c] === 3) runs = 3; else return -1; }
    }
    return (rest + (have + 1 + n1 * runs - d) * mult[c]) * k1 + s;
  };
  const need = (q) => {
    const rest = (q - (q % k1)) / k1;
    let left = 0;
    for (let c = 0; c < k; c++) left += cnt[c] - (digit(rest, c) % (cnt[c] + 1));
    return left;
  };
  const layers = [[0]];
  let work = 0;
  for (let i = 0; i < n; i++) {
    const seen = new Set(), left = n - i - 1, mi = masks[i];
    for (const q of layers[i]) {
      for (let s = 0; s < k1; s++) {
        if (!((mi >> s) & 1)) continue;
        const nq = step(q, s);
        if (nq < 0 || seen.has(nq) || need(nq) > left) continue;
        seen.add(nq);
      }
    }
    work += layers[i].length * k1;
    if (work > budget) return { masks: Int32Array.from(masks), gaveUp: true };
    if (!seen.size) return { masks: new Int32Array(n), gaveUp: false };
    layers.push(Array.from(seen));
  }
  let alive = new Set(layers[n].filter((q) => (q - (q % k1)) / k1 === accept));
  const out = new Int32Array(n);
  if (!alive.size) return { masks: out, gaveUp: false };
  for (let i = n - 1; i >= 0; i--) {
    const now = new Set(), mi = masks[i];
    for (const q of layers[i]) {
      for (let s = 0; s < k1; s++) {
        if (!((mi >> s) & 1)) continue;
        const nq = step(q, s);
        if (nq >= 0 && alive.has(nq)) { out[i] |= 1 << s; now.add(q); }
      }
    }
    alive = now;
  }
  return { masks: out, gaveUp: false };
}

// A colour line solved: the cheap per-colour pass, then the exact one on what it left.
// Returns { masks (null: a contradiction), gaveUp }.
export function solveColourLine(masks, counts, budget = Infinity) {
  const relaxed = relaxColour(masks, counts);
  if (!relaxed) return { masks: null, gaveUp: false };
  const r = solveColour(relaxed, counts, budget);
  if (r.gaveUp) return { masks: relaxed, gaveUp: true };
  return { masks: r.masks.some((v) => v === 0) ? null : r.masks, gaveUp: false };
}
