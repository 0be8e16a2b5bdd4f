// The clue numbers, drawn once into one texture (an atlas of tiles) that every cube samples.
import { CanvasTexture, LinearFilter, LinearMipmapLinearFilter } from "three";

export const TILE = 128;
const FONT = 'system-ui, "DejaVu Sans", Arial, sans-serif';
const MAX_ATLAS = 4096;   // texture side every WebGL 2 implementation takes

// The tile size and grid for `count` tiles: 128 px, 16 a row (a black-and-white puzzle has
// at most a few hundred distinct clues); a colour puzzle can have thousands: 32 a row, and
// past 1,024 tiles smaller ones (at that size a face is a few dozen pixels on screen).
function grid(count) {
  if (count <= 256) return { tile: TILE, cols: Math.max(1, Math.min(16, count)), rows: Math.max(1, Math.ceil(count / 16)) };
  let tile = TILE;
  for (;;) {
    const cols = Math.floor(MAX_ATLAS / tile);
    const rows = Math.ceil(count / cols);
    if (rows * tile <= MAX_ATLAS || tile <= 16) return { tile, cols, rows };
    tile /= 2;
  }
}

function canvasFor(count) {
  const { tile, cols, rows } = grid(count);
  const canvas = document.createElement("canvas");
  canvas.width = cols * tile;
  canvas.height = rows * tile;
  const g = canvas.getContext("2d");
  g.clearRect(0, 0, canvas.width, canvas.height);
  g.textAlign = "center";
  g.textBaseline = "middle";
  return { canvas, g, tile, cols, rows };
}

function textureOf(canvas, premultiplied) {
  const texture = new CanvasTexture(canvas);
  texture.minFilter = LinearMipmapLinearFilter;
  texture.magFilter = LinearFilter;
  // colour tiles are sampled as colour over the face: premultiplied, so the filtering does not
  // bleed the transparent pixels' black into the numbers' edges
  texture.premultiplyAlpha = premultiplied;
  return texture;
}

const kindOf = (label) => (label.endsWith("o") ? "circle" : label.endsWith("s") ? "square" : "plain");

// One number with its mark, centred at (cx, cy) in a cell of w × h (a tile, or part of one
// when a colour clue shows several numbers; the mark is then an oval or a rectangle filling
// the cell, so the number stays as large as the cell allows). `halo`: a contrasting outline
// drawn under it (colour clues: a yellow number must read on a cream cube too).
function drawNumber(g, label, cx, cy, w, h, ink, halo, whole = true) {
  const kind = kindOf(label);
  const number = kind === "plain" ? label : label.slice(0, -1);
  const s = Math.min(w, h);
  // as large as the face allows (a face is a few dozen pixels on a phone); the room checks
  // below keep a number inside its circle or square
  let size = whole ? s * (number.length > 1 ? 0.6 : 0.74) : s * (kind === "plain" ? 0.9 : 0.8);
  g.font = `bold ${Math.round(size)}px ${FONT}`;
  const roomW = w * (kind === "plain" ? 0.92 : 0.6), roomH = h * (kind === "plain" ? 0.9 : 0.62);
  const tw = g.measureText(number).width;
  if (tw > roomW) size *= roomW / tw;
  if (size * 0.75 > roomH) size = roomH / 0.75;
  g.font = `bold ${Math.round(size)}px ${FONT}`;
  const rx = w * 0.37, ry = h * (whole ? 0.37 : 0.44);
  const mark = () => {
    g.beginPath();
    if (kind === "circle") g.ellipse(cx, cy, rx, ry, 0, 0, 2 * Math.PI);
    else { const hx = w * 0.35, hy = h * (whole ? 0.35 : 0.42); g.rect(cx - hx, cy - hy, 2 * hx, 2 * hy); }
  };
  if (halo) {
    g.strokeStyle = halo;
    g.lineJoin = "round";
    g.lineWidth = size * 0.2;   // half of it shows outside the number's edge
    g.strokeText(number, cx, cy + s * 0.03);
    if (kind !== "plain") { g.lineWidth = s * 0.075 + size * 0.16; mark(); g.stroke(); }
  }
  g.fillStyle = ink;
  g.strokeStyle = ink;
  g.fillText(number, cx, cy + s * 0.03);
  if (kind !== "plain") { g.lineWidth = s * (halo ? 0.075 : 0.06); mark(); g.stroke(); }
}

// labels: the distinct clue texts ("3", "2o", "4s") of a black-and-white puzzle, drawn in
// alpha only (the shader inks them); returns the texture and its grid size.
export function buildAtlas(labels) {
  const { canvas, g, tile, cols, rows } = canvasFor(labels.length);
  labels.forEach((label, i) => {
    const cx = (i % cols) * tile + tile / 2;
    const cy = Math.floor(i / cols) * tile + tile / 2;
    drawNumber(g, label, cx, cy, tile, tile, "#000", null);
  });
  return { texture: textureOf(canvas, false), cols, rows, tile, canvas, colour: false };
}

const css = (rgb) => `rgb(${rgb.map((v) => Math.round(v * 255)).join(",")})`;
// relative luminance (sRGB, roughly): light numbers get a dark outline, dark ones a light one
const luminance = (rgb) => 0.2126 * rgb[0] ** 2.2 + 0.7152 * rgb[1] ** 2.2 + 0.0722 * rgb[2] ** 2.2;
export const haloOf = (rgb) => (luminance(rgb) > 0.3 ? "#1b1d22" : "#ffffff");

// The cells of m numbers in a tile, [centre x, centre y, width, height] as fractions of it:
// two one over the other (wide cells keep two-digit numbers and their marks large), three as
// two over one, more in a grid.
export function layout(m) {
  if (m <= 1) return [[0.5, 0.5, 1, 1]];
  if (m === 2) return [[0.5, 0.25, 1, 0.5], [0.5, 0.75, 1, 0.5]];
  if (m === 3) return [[0.25, 0.25, 0.5, 0.5], [0.75, 0.25, 0.5, 0.5], [0.5, 0.75, 1, 0.5]];
  const side = Math.ceil(Math.sqrt(m)), size = 1 / side;
  return Array.from({ length: m }, (_, j) => [(j % side + 0.5) * size, (Math.floor(j / side) + 0.5) * size, size, size]);
}

// tiles: per distinct colour clue, what it shows: [{text, rgb}] (the colours present in the
// line, each number in its clue colour with a contrasting outline; a line with no filled cube
// shows one dark "0"). RGBA, premultiplied.
export function buildColourAtlas(tiles) {
  const { canvas, g, tile, cols, rows } = canvasFor(tiles.length);
  tiles.forEach((items, i) => {
    const x0 = (i % cols) * tile, y0 = Math.floor(i / cols) * tile;
    const cells = layout(items.length);
    items.forEach((item, j) => {
      const [cx, cy, w, h] = cells[j];
      drawNumber(g, item.text, x0 + cx * tile, y0 + cy * tile, w * tile, h * tile, css(item.rgb), haloOf(item.rgb),
                 items.length === 1);
    });
  });
  return { texture: textureOf(canvas, true), cols, rows, tile, canvas, colour: true };
}
