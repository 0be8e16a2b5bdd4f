// Strokes: press on a cube and drag along one of its three lines; every cube the pointer passes
// on that line gets the press's action, as ONE undo step (as in Picross 3D). The stroke ends at
// a cube it may not change (marked, painted, or a model cube: that mistake is counted once), at
// the block's or the slices' end. From the gesture to the line (`axisOfDrag`), from the pointer
// to how far along it (`reachOnLine`), and the cubes (`extendStroke`): plain functions, the
// screen geometry passed in, so tests run them in node (tests/test_web_game.py).
import { CHANGED, MISTAKE, STOP, act, isSolved } from "./game.js";
import { indexOf, placeOf } from "./grid.js";

// Which of a cube's three lines a drag by (dx, dy) pixels follows, and which way: the axis
// whose direction on the screen is closest to the drag's. `centre`: the cube's centre on the
// screen; `ends[a]`: the point one cube further along axis a. Lines seen end-on (less than 2
// pixels a cube) are left out; null when every line is.
export function axisOfDrag(centre, ends, dx, dy) {
  let best = null, bestCos = 0;
  for (let a = 0; a < 3; a++) {
    const vx = ends[a][0] - centre[0], vy = ends[a][1] - centre[1], len = Math.hypot(vx, vy);
    if (len < 2) continue;
    const cos = (dx * vx + dy * vy) / (len * Math.hypot(dx, dy));
    if (Math.abs(cos) > bestCos) { bestCos = Math.abs(cos); best = { axis: a, dir: cos > 0 ? 1 : -1 }; }
  }
  return best;
}

// How many cells along the stroke's line (from its first cube, its way) the pointer is: the
// point of the line nearest the pointer's ray (origin o, unit direction d, grid coordinates).
// A ray along the line tells nothing: the stroke keeps its reach.
export function reachOnLine(stroke, shape, o, d) {
  const c = placeOf(shape, stroke.start).map((v) => v + 0.5), a = stroke.axis;
  const w0 = [c[0] - o[0], c[1] - o[1], c[2] - o[2]];
  const b = d[a], denom = 1 - b * b;
  if (denom < 1e-6) return stroke.reached;
  const dd = w0[a], ee = d[0] * w0[0] + d[1] * w0[1] + d[2] * w0[2];
  const t = (b * ee - dd) / denom;
  return Math.max(0, Math.floor(stroke.dir * t + 0.5));
}

// A stroke from cube `start` along `axis` (0 x, 1 y, 2 z) in direction `dir` (±1): its undo
// step is on the game's stack from the start, filled as it goes.
export function newStroke(game, start, action, axis, dir) {
  const stroke = { start, action, axis, dir, reached: -1, stopped: false, steps: [], cubes: [] };
  game.undo.push(stroke.steps);
  return stroke;
}

// Extend the stroke to `reach` cells from its first cube, within the drawn part of the block
// (`lo`..`hi` per axis), painting with `colour`. Returns the cubes it changed, the cube of a
// mistake it ran into (-1: none), and why it stopped ("" when it did not, or not for a reason
// worth telling).
export function extendStroke(game, stroke, reach, lo, hi, colour) {
  const changed = [];
  let mistakeAt = -1, why = "";
  if (stroke.stopped || game.solved) return { changed, mistake: mistakeAt, why };
  const shape = game.P.shape, g = placeOf(shape, stroke.start), a = stroke.axis;
  while (stroke.reached < reach && !stroke.stopped) {
    const j = stroke.reached + 1, p = g.slice();
    p[a] += stroke.dir * j;
    if (p[a] < lo[a] || p[a] > hi[a]) { stroke.stopped = true; break; }
    const i = indexOf(shape, p[0], p[1], p[2]);
    const r = act(game, i, stroke.action, colour, stroke.steps);
    stroke.reached = j;
    if (r.outcome === CHANGED) changed.push(i);
    if (r.outcome === MISTAKE) mistakeAt = i;
    if (r.outcome === STOP || r.outcome === MISTAKE) {
      stroke.stopped = true;
      if (r.why) why = r.why;
    }
    if (isSolved(game)) break;
  }
  stroke.cubes.push(...changed);
  if (mistakeAt >= 0) stroke.cubes.push(mistakeAt);
  return { changed, mistake: mistakeAt, why };
}

// The stroke is over: a stroke that changed nothing leaves no undo step. Whether it counts as
// a stroke made (it reached a cube it changed or refused).
export function endStroke(game, stroke) {
  if (!stroke.steps.length && game.undo[game.undo.length - 1] === stroke.steps) game.undo.pop();
  return stroke.cubes.length > 0;
}
