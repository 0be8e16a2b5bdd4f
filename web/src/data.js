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

// A colour clue (docs/PUZZLE_FORMAT.md, "Colour puzzles"): one count per puzzle colour, each
// in the 3D clue syntax ("0" = the colour is not in the line). Its text (the atlas key) is the
// counts joined by "|".
export function parseColourClue(c, where, length, k) {
  if (c === null) return null;
  if (!Array.isArray(c) || c.length !== k) throw new PageError(`clue ${where} should list ${k} counts, one per colour`);
  const counts = c.map((v, j) => parseClue(v, `${where}[${j}]`, length));
  const sum = counts.reduce((a, v) => a + v.total, 0);
  if (sum > length) throw new PageError(`clue ${where} (${c.join(" ")}) is longer than its line of ${length} cubes`);
  return { text: c.join("|"), counts };
}

function table(d, axis, rows, cols, length, k) {
  const t = d[axis];
  if (!Array.isArray(t) || t.length !== rows || t.some((r) => !Array.isArray(r) || r.length !== cols)) {
    throw new PageError(`the clue table '${axis}' should be ${rows} × ${cols}`);
  }
  const parse = k ? (c, w) => parseColourClue(c, w, length, k) : (c, w) => parseClue(c, w, length);
  return t.map((r, i) => r.map((c, j) => parse(c, `${axis}[${i}][${j}]`)));
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

// Does a line of colours (0 empty, 1..k) satisfy a colour clue? A run of colour c ends at an
// empty cell or a cell of another colour (Round 2's rule).
export function colourLineFits(clue, values) {
  const k = clue.counts.length;
  const total = new Array(k + 1).fill(0), runs = new Array(k + 1).fill(0);
  let prev = 0;
  for (const v of values) {
    if (v) { total[v]++; if (v !== prev) runs[v]++; }
    prev = v;
  }
  return clue.counts.every((c, j) => {
    const t = total[j + 1], r = runs[j + 1];
    if (t !== c.total) return false;
    if (t === 0) return true;
    return c.kind === KIND.plain ? r === 1 : c.kind === KIND.circle ? r === 2 : r >= 3;
  });
}

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;
const rgbOf = (c) => [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16) / 255);

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
  let clueColours = null;
  if (d.clue_colours != null) {
    if (!Array.isArray(d.clue_colours) || d.clue_colours.length < 2 || d.clue_colours.length > 9
        || d.clue_colours.some((c) => typeof c !== "string" || !HEX_COLOUR.test(c))) {
      throw new PageError("its clue colours are not a list of 2 to 9 #rrggbb colours");
    }
    clueColours = d.clue_colours.map(rgbOf);
  }
  // the inks the numbers, buttons and paint are drawn in (engine/colour/inks.py); a page
  // without them draws in the clue colours
  let inks = clueColours;
  if (clueColours && d.inks != null) {
    if (!Array.isArray(d.inks) || d.inks.length !== clueColours.length
        || d.inks.some((c) => typeof c !== "string" || !HEX_COLOUR.test(c))) {
      throw new PageError("its inks are not one #rrggbb colour per clue colour");
    }
    inks = d.inks.map(rgbOf);
  }
  const k = clueColours ? clueColours.length : 0;
  const clues = { x: table(d, "x", Y, Z, X, k), y: table(d, "y", X, Z, Y, k), z: table(d, "z", X, Y, Z, k) };
  const key = d.key;
  if (!Number.isInteger(key) || key < 1 || key > 0xffffffff) throw new PageError("its key is missing");
  const packed = base64Bytes(d.solution, "solution");
  const need = Math.ceil(n / 8);
  if (packed.length !== need) {
    throw new PageError(`its solution has ${packed.length} bytes but a ${X}×${Y}×${Z} puzzle needs ${need}: the page was damaged or edited`);
  }
  // the keystream: solution bytes, one byte a cell for the reveal colours, one for the paint
  const ks = keystream(key, need + 2 * n);
  const solution = new Uint8Array(n);
  for (let i = 0; i < n; i++) solution[i] = ((packed[i >> 3] ^ ks[i >> 3]) >> (i & 7)) & 1;
  let paint = null;
  if (k) {
    const raw = base64Bytes(d.paint, "paint");
    if (raw.length !== n) throw new PageError(`its paint has ${raw.length} entries but the puzzle has ${n} cubes: the page was damaged or edited`);
    paint = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      paint[i] = raw[i] ^ ks[need + n + i];
      if (paint[i] > k || (paint[i] > 0) !== (solution[i] === 1)) {
        throw new PageError("its paint does not match its solution: the page was damaged or edited");
      }
    }
  }
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
      for (let t = 0; t < L; t++) f.push(k ? paint[cell(a, b, t)] : solution[cell(a, b, t)] === 1);
      if (!(k ? colourLineFits(c, f) : lineFits(c, f))) throw new PageError(`its solution does not fit clue ${axis}[${a}][${b}] (${c.text}): the page was damaged or edited`);
    }
  }
  let palette = null, colours = null;
  if (d.palette != null) {
    if (!Array.isArray(d.palette) || d.palette.length < 1 || d.palette.length > 256
        || d.palette.some((c) => typeof c !== "string" || !HEX_COLOUR.test(c))) {
      throw new PageError("its palette is not a list of #rrggbb colours");
    }
    palette = d.palette.map(rgbOf);
    const raw = base64Bytes(d.colours, "colours");
    if (raw.length !== n) throw new PageError(`its colours have ${raw.length} entries but the puzzle has ${n} cubes: the page was damaged or edited`);
    colours = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      colours[i] = raw[i] ^ ks[need + i];
      if (solution[i] && colours[i] >= palette.length) throw new PageError("its colours name a colour the palette does not have");
    }
  }
  return { name: typeof d.name === "string" && d.name ? d.name : "Nonogram", shape: [X, Y, Z], n, clues,
           solution, palette, colours, clueColours, inks, paint, k, info: d.info && typeof d.info === "object" ? d.info : {} };
}
