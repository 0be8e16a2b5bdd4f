// The game as one plain object — what the player has done to each cube, the mistakes and hints
// counted, the undo stack and the clock — and the rules of an action as plain functions over
// it. Nothing here draws or touches the page: tests run it in node (tests/test_web_game.py).
//
// A cube is INTACT, MARKED (protected) or BROKEN; a colour puzzle's cube of the model is
// painted as well (Round 2): paints[i] is the colour (1..k) it was painted, only ever its own.
import { EMPTY, FILLED, UNKNOWN } from "./lines.js";

export const INTACT = 0, MARKED = 1, BROKEN = 2;

// What an action did to a cube (`act`). CHANGED: done (its undo step appended to `steps`);
// PASS: nothing to change (a stroke goes on over it); STOP: a cube the action may not change
// (a stroke ends there; `why` says why); MISTAKE: refused and counted (a stroke ends there).
export const CHANGED = 0, PASS = 1, STOP = 2, MISTAKE = 3;
const DONE = Object.freeze({ outcome: CHANGED, why: "" });
const OVER = Object.freeze({ outcome: PASS, why: "" });
const stop = (why) => ({ outcome: STOP, why });
const mistake = (why) => ({ outcome: MISTAKE, why });

// A new game of puzzle P (web/src/data.js readPuzzle); `now`: the clock's start (ms).
export function newGame(P, now = 0) {
  const game = {
    P, k: P.k, n: P.n,
    cells: new Uint8Array(P.n),
    paints: new Uint8Array(P.n),
    mistakes: 0,
    hints: 0,
    // one entry a step the player can take back: the changes of a click or of a whole stroke,
    // ["break", i], ["mark", i] (a mark or an unmark) or ["paint", i, the cube's state before]
    undo: [],
    // the clock: time played in earlier sessions, and when this session's count started
    elapsedBefore: 0, sessionStart: now,
    solved: false,
    toBreak: 0, toPaint: 0,   // cubes not in the model still intact; cubes of the model unpainted
  };
  countLeft(game);
  return game;
}

export function countLeft(game) {
  const { cells, paints, k, n } = game, { solution, paint } = game.P;
  game.toBreak = 0; game.toPaint = 0;
  for (let i = 0; i < n; i++) {
    if (!solution[i]) { if (cells[i] !== BROKEN) game.toBreak++; }
    else if (k && paints[i] !== paint[i]) game.toPaint++;
  }
}

export const isSolved = (game) => game.toBreak === 0 && game.toPaint === 0;

// Whether the player has done anything (a restart then asks first).
export const isStarted = (game) => game.cells.some((v) => v !== INTACT) || game.paints.some((v) => v !== 0)
  || game.mistakes > 0;

// ---- the clock
export const elapsed = (game, now) => (game.solved ? game.elapsedBefore : game.elapsedBefore + (now - game.sessionStart));
// the time so far, banked into elapsedBefore (this session's count starts again at `now`)
export function bankTime(game, now) {
  const total = elapsed(game, now);
  if (!game.solved) { game.elapsedBefore = total; game.sessionStart = now; }
  return total;
}
// the page is seen again: the time it was hidden does not count
export function resumeClock(game, now) { game.sessionStart = now; }

// The puzzle is solved: the clock stops.
export function finish(game, now) {
  game.solved = true;
  game.elapsedBefore += now - game.sessionStart;
}

// ---- actions

// What action `action` ("break", "mark", "unmark", "paint" with colour `colour`) does to cube i:
// { outcome, why } (CHANGED, PASS, STOP, MISTAKE above); a change is made to the game and its
// undo step pushed onto `steps`; a refused one is counted as a mistake.
export function act(game, i, action, colour, steps) {
  const { cells, paints, P } = game;
  if (cells[i] === BROKEN) return OVER;
  if (action === "break") {
    if (cells[i] === MARKED) return stop("That cube is marked: unmark it to break it");
    if (paints[i]) return stop("That cube is painted: it is part of the model");
    if (P.solution[i]) {
      game.mistakes++;
      return mistake("That cube is part of the model: not broken (a mistake)");
    }
    cells[i] = BROKEN;
    game.toBreak--;
    steps.push(["break", i]);
  } else if (action === "mark" || action === "unmark") {
    if (paints[i]) return stop("That cube is painted: it is protected already");
    if ((cells[i] === MARKED) === (action === "mark")) return OVER;
    cells[i] = action === "mark" ? MARKED : INTACT;
    steps.push(["mark", i]);
  } else {
    // paint a cube of a colour puzzle: only a cube of the model, only its own colour; anything
    // else is refused and counted as a mistake, as a wrong break is
    if (paints[i] === colour) return OVER;
    if (paints[i]) return stop("That cube is painted already");
    if (!P.solution[i] || P.paint[i] !== colour) {
      game.mistakes++;
      return mistake(P.solution[i] ? `That cube is not colour ${colour}: not painted (a mistake)`
        : "That cube is not part of the model: not painted (a mistake)");
    }
    steps.push(["paint", i, cells[i]]);
    paints[i] = colour;
    cells[i] = INTACT;   // painting a marked cube takes its mark: paint protects it as well
    game.toPaint--;
  }
  return DONE;
}

// One action on one cube (a click or a tap), as its own undo step.
export function actOnce(game, i, action, colour) {
  const steps = [];
  const r = act(game, i, action, colour, steps);
  if (steps.length) game.undo.push(steps);
  return r;
}

// The action a press on cube i starts, from the tool ("break", "mark", "paint") and whether it
// marks anyway (the right button, Shift): marking a marked cube unmarks.
export function actionAt(game, i, marking, tool) {
  if (marking || tool === "mark") return game.cells[i] === MARKED ? "unmark" : "mark";
  return tool === "paint" ? "paint" : "break";
}

// Take back the last step (a click's change or a whole stroke's): the cubes it changed, or
// null when there is nothing to undo. Mistakes stay counted.
export function undoLast(game) {
  const steps = game.undo.pop();
  if (!steps) return null;
  const { cells, paints } = game, cubes = [];
  for (let j = steps.length - 1; j >= 0; j--) {
    const [what, i] = steps[j];
    if (what === "break") { cells[i] = INTACT; game.toBreak++; }
    else if (what === "paint") { paints[i] = 0; cells[i] = steps[j][2]; game.toPaint++; }
    else cells[i] = cells[i] === MARKED ? INTACT : MARKED;
    cubes.push(i);
  }
  return cubes;
}

// Start again: every cube intact, nothing counted, the clock at 0 from `now`.
export function restart(game, now) {
  game.cells.fill(INTACT);
  game.paints.fill(0);
  game.mistakes = 0; game.hints = 0; game.elapsedBefore = 0; game.sessionStart = now; game.solved = false;
  game.undo.length = 0;
  countLeft(game);
}

// What the player knows of each cube, as the hint solvers read it (web/src/hint.js): broken
// cubes are empty, painted ones their colour, marked ones part of the model, except a wrong
// mark (the one use of the solution: a mistaken belief is not knowledge, and a hint built on it
// could be wrong). Black and white: EMPTY / FILLED / UNKNOWN; colour: a bit set (bit 0 empty).
export function knowledgeOf(game) {
  const { k, n, cells, paints } = game, solution = game.P.solution;
  const full = (1 << (k + 1)) - 1, s = k ? new Int32Array(n) : new Int8Array(n);
  for (let i = 0; i < n; i++) {
    if (cells[i] === BROKEN) s[i] = k ? 1 : EMPTY;
    else if (k && paints[i]) s[i] = 1 << paints[i];
    else if (cells[i] === MARKED && solution[i]) s[i] = k ? full & ~1 : FILLED;
    else s[i] = k ? full : UNKNOWN;
  }
  return s;
}
