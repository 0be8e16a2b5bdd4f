// The clue numbers, drawn once into one texture (an atlas of tiles) that every cube samples.
import { CanvasTexture, LinearFilter, LinearMipmapLinearFilter } from "three";

export const TILE = 128;
const FONT = 'system-ui, "DejaVu Sans", Arial, sans-serif';
const MAX_ATLAS = 4096;   // texture side every WebGL 2 implementation takes

// The tile size and grid for `count` tiles: 128 px while they fit a 2048² texture, then
// smaller (a colour puzzle at 36³ can have a few thousand distinct clues; on screen a face is
// a few dozen pixels, so 64 px tiles lose nothing there).
function grid(count) {
  let tile = TILE;
  for (;;) {
    const cols = Math.max(1, Math.min(Math.floor((tile === TILE ? 2048 : MAX_ATLAS) / tile), count));
    const rows = Math.max(1, Math.ceil(count / cols));
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
  texture.anisotropy = 8;   // the top faces are seen at a slant
  // colour tiles are sampled as colour over the face: premultiplied, so the filtering does not
  // bleed the transparent pixels' black into the numbers' edges
  texture.premultiplyAlpha = premultiplied;
  return texture;
}

const kindOf = (label) => (label.endsWith("o") ? "circle" : label.endsWith("s") ? "square" : "plain");

// One number with its mark, centred at (cx, cy) in a square of side `s`. `halo`: a contrasting
// outline drawn under it (colour clues: a yellow number must read on a cream cube too).
function drawNumber(g, label, cx, cy, s, ink, halo) {
  const kind = kindOf(label);
  const number = kind === "plain" ? label : label.slice(0, -1);
  let size = s * (number.length > 1 ? 0.5 : 0.62);
  g.font = `bold ${Math.round(size)}px ${FONT}`;
  const room = s * (kind === "plain" ? 0.92 : 0.6);
  const w = g.measureText(number).width;
  if (w > room) { size *= room / w; g.font = `bold ${Math.round(size)}px ${FONT}`; }
  const mark = () => {
    g.beginPath();
    if (kind === "circle") g.arc(cx, cy, s * 0.37, 0, 2 * Math.PI);
    else { const h = s * 0.35; g.rect(cx - h, cy - h, 2 * h, 2 * h); }
  };
  if (halo) {
    g.strokeStyle = halo;
    g.lineJoin = "round";
    g.lineWidth = s * 0.16;
    g.strokeText(number, cx, cy + s * 0.03);
    if (kind !== "plain") { g.lineWidth = s * 0.06 + s * 0.12; mark(); g.stroke(); }
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
    drawNumber(g, label, cx, cy, tile, "#000", null);
  });
  return { texture: textureOf(canvas, false), cols, rows, tile, canvas, colour: false };
}

const css = (rgb) => `rgb(${rgb.map((v) => Math.round(v * 255)).join(",")})`;
// relative luminance (sRGB, roughly): light numbers get a dark outline, dark ones a light one
const luminance = (rgb) => 0.2126 * rgb[0] ** 2.2 + 0.7152 * rgb[1] ** 2.2 + 0.0722 * rgb[2] ** 2.2;
export const haloOf = (rgb) => (luminance(rgb) > 0.3 ? "#1b1d22" : "#ffffff");

// The numbers' places in a tile for m numbers (fractions of the tile) and their square's side.
export function layout(m) {
  if (m <= 1) return { size: 1, at: [[0.5, 0.5]] };
  if (m === 2) return { size: 0.54, at: [[0.27, 0.5], [0.73, 0.5]] };
  if (m === 3) return { size: 0.5, at: [[0.26, 0.27], [0.74, 0.27], [0.5, 0.73]] };
  const side = Math.ceil(Math.sqrt(m)), size = 1 / side;
  return { size, at: Array.from({ length: m }, (_, j) => [(j % side + 0.5) * size, (Math.floor(j / side) + 0.5) * size]) };
}

// tiles: per distinct colour clue, what it shows: [{text, rgb}] (the colours present in the
// line, each number in its clue colour with a contrasting outline; a line with no filled cube
// shows one dark "0"). RGBA, premultiplied.
export function buildColourAtlas(tiles) {
  const { canvas, g, tile, cols, rows } = canvasFor(tiles.length);
  tiles.forEach((items, i) => {
    const x0 = (i % cols) * tile, y0 = Math.floor(i / cols) * tile;
    const { size, at } = layout(items.length);
    items.forEach((item, j) => {
      drawNumber(g, item.text, x0 + at[j][0] * tile, y0 + at[j][1] * tile, size * tile, css(item.rgb), haloOf(item.rgb));
    });
  });
  return { texture: textureOf(canvas, true), cols, rows, tile, canvas, colour: true };
}
