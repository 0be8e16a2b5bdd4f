// The clues on the cubes: one atlas tile per distinct clue text, and every cube carries its
// three lines' tiles (a face shows the clue of the line through it). A colour clue's tile shows
// the numbers of the colours in its line, each in its colour's ink (a line with no filled cube:
// one dark "0"); `items[t]` is what tile t shows.
import { buildAtlas, buildColourAtlas } from "./atlas.js";
import { indexOf } from "./grid.js";
import { ZERO_INK } from "./shading.js";

// { labels, items, tiles: [x, y, z] }: tiles[a][i] is the tile of cube i's a-line (-1: hidden)
export function clueTilesOf(P) {
  const [X, Y, Z] = P.shape, K = P.k, n = P.n;
  const labels = [], items = [], tileOf = new Map();
  const itemsOf = (c) => {
    if (!K) return [{ text: c.text, colour: 0 }];
    const out = [];
    c.counts.forEach((v, j) => { if (v.total > 0) out.push({ text: v.text, colour: j + 1 }); });
    return out.length ? out : [{ text: "0", colour: 0 }];
  };
  const tile = (c) => {
    if (c === null) return -1;
    if (!tileOf.has(c.text)) { tileOf.set(c.text, labels.length); labels.push(c.text); items.push(itemsOf(c)); }
    return tileOf.get(c.text);
  };
  const tilesX = new Int16Array(n), tilesY = new Int16Array(n), tilesZ = new Int16Array(n);
  for (let x = 0; x < X; x++) for (let y = 0; y < Y; y++) for (let z = 0; z < Z; z++) {
    const i = indexOf(P.shape, x, y, z);
    tilesX[i] = tile(P.clues.x[y][z]);
    tilesY[i] = tile(P.clues.y[x][z]);
    tilesZ[i] = tile(P.clues.z[x][y]);
  }
  return { labels, items, tiles: [tilesX, tilesY, tilesZ] };
}

// The atlas of the clue tiles: coloured numbers of a colour puzzle, alpha only for black and white.
export function clueAtlas(P, clues) {
  if (!P.k) return buildAtlas(clues.labels.length ? clues.labels : ["0"]);
  const items = clues.items.length ? clues.items : [[{ text: "0", colour: 0 }]];
  return buildColourAtlas(items.map((tile) => tile.map(
    (it) => ({ text: it.text, rgb: it.colour ? P.inks[it.colour - 1] : ZERO_INK }))));
}

// The clue tables each line's tile stands for (`show(tile)`; -1 hidden), as in the puzzle file:
// x-lines by (y, z), y-lines by (x, z), z-lines by (x, y).
function tables(P, clues, show) {
  const [X, Y, Z] = P.shape, [tilesX, tilesY, tilesZ] = clues.tiles, at = (x, y, z) => indexOf(P.shape, x, y, z);
  return {
    x: Array.from({ length: Y }, (_, y) => Array.from({ length: Z }, (_, z) => show(tilesX[at(0, y, z)]))),
    y: Array.from({ length: X }, (_, x) => Array.from({ length: Z }, (_, z) => show(tilesY[at(x, 0, z)]))),
    z: Array.from({ length: X }, (_, x) => Array.from({ length: Y }, (_, y) => show(tilesZ[at(x, y, 0)]))),
  };
}

// the clues drawn, as in the puzzle file: a colour clue is its list of counts
export const clueTables = (P, clues) => tables(P, clues, (t) => (t < 0 ? null : P.k ? clues.labels[t].split("|") : clues.labels[t]));

// what each line's tile draws: [text, colour (1..k; 0 the plain ink)] per number
export const clueDrawings = (P, clues) => tables(P, clues, (t) => (t < 0 ? null : clues.items[t].map((it) => [it.text, it.colour])));
