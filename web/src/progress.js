// The player's progress kept in the browser (localStorage), per page: a reload or coming back
// later continues the game. The key is a hash of the page's data (engine/play/catalogue.py
// `storage_key` computes the same, so the catalogue finds a page's progress), and beside it the
// reveal as a small picture once the puzzle is solved.
import { BROKEN, INTACT, MARKED, bankTime, countLeft, isSolved } from "./game.js";

const STORAGE_PREFIX = "nonogram3d:";

// FNV-1a of the page's data
export function hashText(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return h.toString(16);
}
export const storageKeyOf = (dataText) => STORAGE_PREFIX + hashText(dataText);
const revealKeyOf = (key) => key + ":reveal";

// the characters "0"+v of a state array, built in chunks (one call with 262,144 arguments
// is too many for some engines)
export function stateText(arr) {
  const codes = new Uint16Array(arr.length);
  for (let i = 0; i < arr.length; i++) codes[i] = 48 + arr[i];
  let out = "";
  for (let i = 0; i < codes.length; i += 8192) out += String.fromCharCode.apply(null, codes.subarray(i, i + 8192));
  return out;
}

// The record saved of a game, its clock banked at `now`.
export function progressRecord(game, now) {
  const total = bankTime(game, now);
  const record = { cells: stateText(game.cells), mistakes: game.mistakes, hints: game.hints, elapsed: total,
                   solved: game.solved };
  if (game.k) record.paint = stateText(game.paints);
  return record;
}

// A saved record put back into a new game. What the record says is checked against the puzzle:
// a stored break of a model cube, or a paint that is not the cube's colour, is never trusted.
// A record of another size is ignored.
export function restoreProgress(game, s) {
  const { cells, paints, n } = game, { solution, paint } = game.P;
  if (!s || typeof s.cells !== "string" || s.cells.length !== n) return;
  for (let i = 0; i < n; i++) {
    const v = s.cells.charCodeAt(i) - 48;
    if (v === BROKEN && solution[i]) continue;
    cells[i] = v === MARKED || v === BROKEN ? v : INTACT;
  }
  if (game.k && typeof s.paint === "string" && s.paint.length === n) {
    for (let i = 0; i < n; i++) {
      const c = s.paint.charCodeAt(i) - 48;
      if (c > 0 && c === paint[i] && cells[i] !== BROKEN) { paints[i] = c; if (cells[i] === MARKED) cells[i] = INTACT; }
    }
  }
  game.mistakes = Number.isInteger(s.mistakes) ? s.mistakes : 0;
  game.hints = Number.isInteger(s.hints) ? s.hints : 0;
  game.elapsedBefore = Number.isFinite(s.elapsed) ? s.elapsed : 0;
  countLeft(game);
  game.solved = isSolved(game);
}

export function loadProgress(game, key) {
  let s = null;
  try { s = JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { s = null; }
  restoreProgress(game, s);
}

export function saveProgress(game, key, now) {
  const record = progressRecord(game, now);
  try {
    localStorage.setItem(key, JSON.stringify(record));
  } catch (e) { /* storage full or disabled (file:// in some browsers): play on without saving */ }
}

// The reveal as a small picture beside the saved progress, for the catalogue (index.html) to
// show once this puzzle is solved in this browser: a square of the canvas round the block's
// outline `rect` (CSS pixels; the model is inside it).
export function saveRevealPicture(key, canvas, rect) {
  try {
    const scale = canvas.width / (canvas.clientWidth || canvas.width);
    const side = Math.min(Math.max(rect.w, rect.h) * 1.04 * scale, canvas.width, canvas.height);
    const x = Math.min(Math.max(0, (rect.x + rect.w / 2) * scale - side / 2), canvas.width - side);
    const y = Math.min(Math.max(0, (rect.y + rect.h / 2) * scale - side / 2), canvas.height - side);
    const out = document.createElement("canvas");
    out.width = out.height = 192;
    out.getContext("2d").drawImage(canvas, x, y, side, side, 0, 0, 192, 192);
    localStorage.setItem(revealKeyOf(key), out.toDataURL("image/jpeg", 0.85));
  } catch (e) { /* no storage: the catalogue shows its own picture */ }
}

export function forgetRevealPicture(key) {
  try { localStorage.removeItem(revealKeyOf(key)); } catch (e) { /* no storage */ }
}
