// Hints on the page: a line whose clue, from what the player has broken, marked and painted,
// decides at least one more cube (the search is web/src/hint.js); its line and the cubes it
// decides lit until the player acts, what it decides said in the hint panel, hints counted.
import { BREAK, EMPTY, MODEL, deeper, paintAction } from "./hint.js";
import { BROKEN, knowledgeOf } from "./game.js";
import { placeOf } from "./grid.js";
import { $ } from "./hud.js";

const clueText = (c) => (c.text.endsWith("o") ? c.text.slice(0, -1) + "○" : c.text.endsWith("s") ? c.text.slice(0, -1) + "□" : c.text);

// "the X line at y 2, z 1 (clue 3○)"
export function lineText(line, k) {
  const names = ["X", "Y", "Z"], other = [[1, 2], [0, 2], [0, 1]][line.axis];
  const clue = k ? line.clue.counts.map((c, j) => (c.total ? `${clueText(c)} in colour ${j + 1}` : "")).filter(Boolean).join(", ") || "0"
    : clueText(line.clue);
  return `the ${names[line.axis]} line at ${"xyz"[other[0]]} ${line.a + 1}, ${"xyz"[other[1]]} ${line.b + 1} (clue ${clue})`;
}

// "4 to break, 1 part of the model, 2 to paint colour 1"
export function newsText(news, k) {
  const count = (a) => news.filter(([, b]) => b === a).length;
  const parts = [];
  if (count(BREAK)) parts.push(`${count(BREAK)} to break`);
  if (count(MODEL)) parts.push(`${count(MODEL)} part of the model`);
  for (let c = 1; c <= k; c++) if (count(paintAction(c))) parts.push(`${count(paintAction(c))} to paint colour ${c}`);
  return parts.join(", ");
}

// A probe's hint: the cube, the value ruled out and what follows.
function probeText(r, shape, k) {
  const [x, y, z] = placeOf(shape, r.cube), [, a] = r.news[0];
  const assumed = k ? (r.ruledOut === 1 ? "empty" : r.ruledOut === ((1 << (k + 1)) - 1 & ~1) ? "part of the model" : `colour ${31 - Math.clz32(r.ruledOut)}`)
    : r.ruledOut === EMPTY ? "empty" : "part of the model";
  const result = a === BREAK ? "so break it" : a === MODEL ? "so it is part of the model" : `so paint it colour ${a - 2}`;
  return `Hint (probing): if the cube at x ${x + 1}, y ${y + 1}, z ${z + 1} were ${assumed}, the lines would contradict each other: ${result}.`;
}

// The hints of a game. `seeing()`: the camera placed, a function telling whether the player can
// see cube i (hints they can act on come first); `changed(eventTime, cubes, persist)` redraws
// cubes whose light changed; `showCounts()` the HUD.
export function makeHintPanel(game, hinter, { seeing, changed, showCounts }) {
  const P = game.P, k = game.k, n = game.n;
  // how a hint lights each cube: 0 not, 1 on its line, 2 a cube it decides
  const mark = new Uint8Array(n);
  const shown = { hint: null, ms: null };   // the hint on screen, how long the last search took
  function showPanel(text, offerDeeper, deeperLabel) {
    $("hint-text").textContent = text;
    $("hint-deeper").classList.toggle("hidden", !offerDeeper);
    if (deeperLabel) $("hint-deeper").textContent = deeperLabel;
    $("hint").classList.remove("hidden");
    showCounts();
  }
  function light(lineCubes, news, text) {
    const lit = [];
    for (const i of lineCubes) { mark[i] = 1; lit.push(i); }
    for (const [i] of news) { mark[i] = 2; lit.push(i); }
    shown.hint = { cubes: lit, news: news.map(([i, a]) => [i, a]) };
    game.hints++;
    showPanel(text, false);
    changed(undefined, lit);
  }
  // take the hint's light away (the player acted); the cubes to redraw
  function clear() {
    $("hint").classList.add("hidden");
    if (!shown.hint) return [];
    const cubes = shown.hint.cubes;
    for (const i of cubes) mark[i] = 0;
    shown.hint = null;
    return cubes;
  }
  function ask() {
    if (game.solved) return;
    const cleared = clear();
    if (cleared.length) changed(undefined, cleared, false);
    const t0 = performance.now();
    const r = hinter.find(knowledgeOf(game), seeing(), t0 + 2000);
    shown.ms = performance.now() - t0;
    if (r.line >= 0) {
      const line = hinter.lines[r.line];
      light(line.cells, r.news, `Hint: ${lineText(line, k)} decides ${newsText(r.news, k)}.`);
      shown.hint.line = { axis: line.axis, a: line.a, b: line.b, id: r.line };
      return;
    }
    const skipped = r.skipped ? ` (${r.skipped} long colour line${r.skipped > 1 ? "s were" : " was"} too long to work out)` : "";
    const more = r.unfinished ? "No line decided anything in the time a hint may take: ask again to look further."
      : `No single line decides a cube now${skipped}.`;
    const probing = P.info.logic === "probe";
    showPanel(more + (probing ? " This puzzle was designed for probing: try a cube both ways." : ""), true,
              probing ? "Probe" : "Lines together");
  }
  // when no single line decides anything: all lines together, then probing
  function askDeeper() {
    if (game.solved) return;
    const state = knowledgeOf(game), order = [], { cells, paints } = game, seen = seeing();
    for (let i = 0; i < n; i++) if (cells[i] !== BROKEN && !paints[i] && seen(i)) order.push(i);
    for (let i = 0; i < n; i++) if (cells[i] !== BROKEN && !paints[i] && !seen(i)) order.push(i);
    const t0 = performance.now();
    const r = deeper(hinter, state, k, order, t0 + 4000);
    shown.ms = performance.now() - t0;
    if (r.kind === "lines") {
      light([], r.news, `Hint: several lines together decide ${newsText(r.news, k)} (each line narrows what the next one allows).`);
    } else if (r.kind === "probe") {
      light([], r.news, probeText(r, P.shape, k));
      shown.hint.probe = { cube: r.cube, ruledOut: r.ruledOut };
    } else {
      showPanel("Nothing found in the time a hint may take.", false);
    }
  }
  // forget every hint (a restart)
  function reset() {
    clear();
    mark.fill(0);
    hinter.reset();
  }
  // what the test window shows of the hint
  const report = () => shown.hint && { line: shown.hint.line || null, news: shown.hint.news, probe: shown.hint.probe || null,
                                       text: $("hint-text").textContent };
  return { mark, shown, ask, askDeeper, clear, reset, report };
}
