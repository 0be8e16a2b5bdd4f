// The panels round the block (web/src/template.html): the title and counts, the tools and the
// palette bar, the slices, the help, a toast for a refused action, the solved panel and the
// error message; and the part of the canvas they leave free for the block.
import { elapsed } from "./game.js";
import { largestFreeRect } from "./layout.js";

export const $ = (id) => document.getElementById(id);
export const plural = (v, word) => `${v} ${word}${v === 1 ? "" : "s"}`;
const SMALL_SCREEN = "(max-width: 700px), (max-height: 500px)";   // as web/src/player.css
const LAYOUT_PANELS = ["hud", "tools", "palette", "slices", "help"];

// The page cannot be played: its message instead of the block, and a test window that says so.
export function showError(message) {
  const el = $("error");
  el.textContent = message;
  el.classList.remove("hidden");
  for (const id of ["hud", "tools", "palette", "slices", "help"]) $(id).classList.add("hidden");
  window.nonogram = { state: () => ({ error: message, ready: false }) };
}

export function formatTime(ms) {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : `${m}`) + `:${String(r).padStart(2, "0")}`;
}

export function showTitle(P) {
  const [X, Y, Z] = P.shape;
  const band = typeof P.info.band === "string" && P.info.band ? ` · ${P.info.band}` : "";
  $("title").textContent = `${P.name} · ${X}×${Y}×${Z}${band}`;
  document.title = `${P.name} · Nonogram 3D`;
}

export function updateHud(game, now) {
  $("time").textContent = formatTime(elapsed(game, now));
  $("mistakes").textContent = plural(game.mistakes, "mistake");
  $("hints").textContent = plural(game.hints, "hint");
  $("left").textContent = game.solved ? "solved" : game.k ? `${game.toBreak} to break · ${game.toPaint} to paint`
    : `${game.toBreak} to break`;
}

// the clock ticks once a second while the puzzle is unsolved
export function startClock(game) {
  setInterval(() => { if (!game.solved) $("time").textContent = formatTime(elapsed(game, performance.now())); }, 1000);
}

let toastTimer = null;
export function toast(text) {
  const el = $("toast");
  el.textContent = text;
  el.classList.remove("hidden");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.add("hidden"), 1600);
}

// the solved panel (the time, mistakes and hints) in place of the slices and the palette
export function showSolved(game, now) {
  $("solved-text").textContent = `${game.P.name}: ${formatTime(elapsed(game, now))}, ${plural(game.mistakes, "mistake")}, `
    + plural(game.hints, "hint");
  $("solved").classList.remove("hidden");
  $("slices").classList.add("hidden");
  $("palette").classList.add("hidden");
}
export function hideSolved(game) {
  $("solved").classList.add("hidden");
  $("slices").classList.remove("hidden");
  if (game.k) $("palette").classList.remove("hidden");
}
export const revealShown = () => !$("solved").classList.contains("hidden");

// The palette bar of a colour puzzle: one button per clue colour in its ink (keys 1..k);
// `pick(c)` when colour c is chosen.
export function buildPalette(inks, pick) {
  const bar = $("palette"), k = inks.length;
  for (let j = 1; j <= k; j++) {
    const b = document.createElement("button");
    b.id = `paint-${j}`;
    b.className = "swatch";
    b.textContent = String(j);
    const rgb = inks[j - 1];
    b.style.background = `rgb(${rgb.map((v) => Math.round(v * 255)).join(",")})`;
    b.style.color = 0.2126 * rgb[0] ** 2.2 + 0.7152 * rgb[1] ** 2.2 + 0.0722 * rgb[2] ** 2.2 > 0.3 ? "#111" : "#fff";
    b.title = `Paint colour ${j} (key ${j})`;
    b.addEventListener("click", () => pick(j));
    bar.appendChild(b);
  }
  bar.classList.remove("hidden");
  $("help").textContent += ` · 1–${k}: paint`;
}

// which tool's button is lit
export function showTool(tool, paintColour, k) {
  $("tool-break").classList.toggle("active", tool === "break");
  $("tool-mark").classList.toggle("active", tool === "mark");
  for (let j = 1; j <= k; j++) $(`paint-${j}`).classList.toggle("active", tool === "paint" && paintColour === j);
}

// The slice sliders: their ranges for a block of `shape`, `change(a, v)` when one is moved.
export function bindSliders(shape, change) {
  for (let a = 0; a < 3; a++) {
    const input = $(`slice-${"xyz"[a]}`);
    input.min = String(-(shape[a] - 1));
    input.max = String(shape[a] - 1);
    input.addEventListener("input", () => change(a, parseInt(input.value, 10) || 0));
    $(`slice-${"xyz"[a]}-text`).textContent = "all layers";
  }
}
export function showSlice(a, v) {
  $(`slice-${"xyz"[a]}`).value = String(v);
  $(`slice-${"xyz"[a]}-text`).textContent = v === 0 ? "all layers" : v > 0 ? `${v} hidden from +` : `${-v} hidden from −`;
}

// The largest rectangle of the canvas no panel covers (CSS pixels from its top left). On a
// small screen the help is a tip that goes at the first touch: the block is fitted without it.
export function freeArea(canvas) {
  const c = canvas.getBoundingClientRect(), m = 4;
  const rects = [];
  const small = window.matchMedia(SMALL_SCREEN).matches;
  for (const id of LAYOUT_PANELS) {
    const el = $(id);
    if (el.classList.contains("hidden") || (small && id === "help") || getComputedStyle(el).display === "none") continue;
    const r = el.getBoundingClientRect();
    if (r.width && r.height) rects.push([r.left - c.left - m, r.top - c.top - m, r.right - c.left + m, r.bottom - c.top + m]);
  }
  return largestFreeRect(c.width, c.height, rects);
}

// On a small screen the help is a tip until the player first touches or types.
export function helpAsTip() {
  $("help").classList.add("tip");
  const seen = () => $("help").classList.add("seen");
  document.addEventListener("pointerdown", seen, { once: true, capture: true });
  document.addEventListener("keydown", seen, { once: true, capture: true });
}
