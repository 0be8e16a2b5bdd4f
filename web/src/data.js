// Reading and checking the puzzle a page carries (the exporter is engine/webpage.py).
// Any problem throws a PageError whose message the page shows instead of the block.

export class PageError extends Error {}

const CLUE_RE = /^(\d+)([os]?)$/;
export const KIND = { plain: 0, circle: 1, square: 2 };

// The same keystream as engine/webpage.py: xorshift32 from the page's key, one byte per step.
// It only keeps the solution from being read at a glance; it is not a security measure.
export function keystream(key, n) {
  const out = new Uint8Array(n);
  let s = key >>> 0 || 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    out[i] = s & 0xff;
  }
  return out;
}

function base64Bytes(text, what) {
  if (typeof text !== "string") throw new PageError(`the ${what} is missing`);
  let bin;
  try { bin = atob(text); } catch (e) { throw new PageError(`the ${what} is not valid base64`); }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function parseClue(c, where, length) {
  if (c === null) return null;
  const m = typeof c === "string" ? CLUE_RE.exec(c) : null;
  if (!m) throw new PageError(`clue ${where} is ${JSON.stringify(c)}, not a clue`);
  const total = parseInt(m[1], 10);
  const kind = m[2] === "o" ? KIND.circle : m[2] === "s" ? KIND.square : KIND.plain;
  if (total > length) throw new PageError(`clue ${where} (${c}) is longer than its line of ${length} cubes`);
  return { text: c, total, kind };
}

function table(d, axis, rows, cols, length) {
  const t = d[axis];
  if (!Array.isArray(t) || t.length !== rows || t.some((r) => !Array.isArray(r) || r.length !== cols)) {
    throw new PageError(`the clue table '${axis}' should be ${rows} × ${cols}`);
  }
  return t.map((r, i) => r.map((c, j) => parseClue(c, `${axis}[${i}][${j}]`, length)));
}

// Does a line of filled flags satisfy a 3D clue? (docs/PUZZLE_FORMAT.md: plain = one block,
// circle = two blocks, square = three or more)
export function lineFits(clue, filled) {
  let total = 0, blocks = 0, prev = false;
  for (const f of filled) {
    if (f) { total++; if (!prev) blocks++; }
    prev = f;
  }
  if (total !== clue.total) return false;
  if (clue.kind === KIND.plain) return blocks <= 1;
  if (clue.kind === KIND.circle) return blocks === 2;
  return blocks >= 3;
}

export function readPuzzle(text, maxSide) {
  text = (text || "").trim();
  if (!text || text.startsWith("__NONOGRAM" + "_PUZZLE")) {
    throw new PageError("This is the player without a puzzle.\nExport one: python -m engine export-html PUZZLE.json -o PAGE.html");
  }
  let d;
  try { d = JSON.parse(text); } catch (e) { throw new PageError(`its data is not valid JSON (${e.message})`); }
  if (!d || d.format !== "nonogram-page" || d.version !== 1) throw new PageError("its data is not a Nonogram 3D page (format/version)");
  const shape = d.shape;
  if (!Array.isArray(shape) || shape.length !== 3 || shape.some((v) => !Number.isInteger(v) || v < 1)) {
    throw new PageError("its shape is not three whole numbers ≥ 1");
  }
  if (shape.some((v) => v > maxSide)) throw new PageError(`its shape ${shape.join("×")} is over the player's limit of ${maxSide} per side`);
  const [X, Y, Z] = shape;
  const n = X * Y * Z;
  const clues = { x: table(d, "x", Y, Z, X), y: table(d, "y", X, Z, Y), z: table(d, "z", X, Y, Z) };
  const key = d.key;
  if (!Number.isInteger(key) || key < 1 || key > 0xffffffff) throw new PageError("its key is missing");
  const packed = base64Bytes(d.solution, "solution");
  const need = Math.ceil(n / 8);
  if (packed.length !== need) {
    throw new PageError(`its solution has ${packed.length} bytes but a ${X}×${Y}×${Z} puzzle needs ${need}: the page was damaged or edited`);
  }
  const ks = keystream(key, need + n);
  const solution = new Uint8Array(n);
  for (let i = 0; i < n; i++) solution[i] = ((packed[i >> 3] ^ ks[i >> 3]) >> (i & 7)) & 1;
  const idx = (x, y, z) => (x * Y + y) * Z + z;
  const lines = [
    ["x", Y, Z, X, (a, b, t) => idx(t, a, b)],
    ["y", X, Z, Y, (a, b, t) => idx(a, t, b)],
    ["z", X, Y, Z, (a, b, t) => idx(a, b, t)],
  ];
  for (const [axis, A, B, L, cell] of lines) {
    for (let a = 0; a < A; a++) for (let b = 0; b < B; b++) {
      const c = clues[axis][a][b];
      if (c === null) continue;
      const f = [];
      for (let t = 0; t < L; t++) f.push(solution[cell(a, b, t)] === 1);
      if (!lineFits(c, f)) throw new PageError(`its solution does not fit clue ${axis}[${a}][${b}] (${c.text}): the page was damaged or edited`);
    }
  }
  let palette = null, colours = null;
  if (d.palette != null) {
    if (!Array.isArray(d.palette) || d.palette.length < 1 || d.palette.length > 256
        || d.palette.some((c) => typeof c !== "string" || !/^#[0-9a-fA-F]{6}$/.test(c))) {
      throw new PageError("its palette is not a list of #rrggbb colours");
    }
    palette = d.palette.map((c) => [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16) / 255));
    const raw = base64Bytes(d.colours, "colours");
    if (raw.length !== n) throw new PageError(`its colours have ${raw.length} entries but the puzzle has ${n} cubes: the page was damaged or edited`);
    colours = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      colours[i] = raw[i] ^ ks[need + i];
      if (solution[i] && colours[i] >= palette.length) throw new PageError("its colours name a colour the palette does not have");
    }
  }
  return { name: typeof d.name === "string" && d.name ? d.name : "Nonogram", shape: [X, Y, Z], n, clues,
           solution, palette, colours, info: d.info && typeof d.info === "object" ? d.info : {} };
}
