"""The web player's game rules as plain functions, run in node (no browser): what an action does
to a cube (break, mark, paint: made, passed over, stopped at, or refused and counted), a stroke
that runs into a model cube counting one mistake and stopping there, a stroke undone as one step,
the line a drag follows and how far along it the pointer is, what the player knows for a hint,
and saved progress read back with what it may not claim left out (web/src/game.js, strokes.js,
progress.js)."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INTACT, MARKED, BROKEN = 0, 1, 2
CHANGED, PASS, STOP, MISTAKE = 0, 1, 2, 3
EMPTY, FILLED, UNKNOWN = 1, 2, 3

pytestmark = pytest.mark.skipif(shutil.which("node") is None,
                                reason="node is not installed (the web player's game runs in JavaScript)")

# puzzle(shape, model): a puzzle as web/src/data.js reads it, `model` the cubes of the model
# (black and white) or {cube: colour} (a colour puzzle of k colours)
PRELUDE = """
import * as G from './web/src/game.js';
import * as S from './web/src/strokes.js';
import * as R from './web/src/progress.js';
const puzzle = (shape, model, k = 0) => {
  const n = shape[0] * shape[1] * shape[2], solution = new Uint8Array(n), paint = new Uint8Array(n);
  for (const [i, c] of Array.isArray(model) ? model.map((i) => [i, 1]) : Object.entries(model)) {
    solution[i] = 1; if (k) paint[i] = c;
  }
  return { name: 'test', shape, n, k, solution, paint, info: {} };
};
const cells = (g) => Array.from(g.cells), paints = (g) => Array.from(g.paints);
const out = (v) => console.log(JSON.stringify(v));
"""


def run(js: str):
    """An ES module body (after PRELUDE) that prints JSON with ``out``; its value."""
    done = subprocess.run(["node", "--input-type=module", "-e", PRELUDE + js], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_break_is_made_passed_stopped_or_refused_and_counted():
    # a line of six cubes, the fourth of the model
    r = run("""
      const g = G.newGame(puzzle([6, 1, 1], [3])), steps = [], log = [];
      const act = (i, a) => { const r = G.act(g, i, a, 0, steps); log.push([i, a, r.outcome, r.why]); };
      const left0 = g.toBreak;
      act(0, 'break'); act(0, 'break');          // made; then nothing to change
      act(3, 'break');                            // the model's: refused, a mistake
      act(1, 'mark'); act(1, 'break');            // a marked cube stops a break, no mistake
      act(1, 'mark'); act(1, 'unmark'); act(1, 'break');
      out({ log, cells: cells(g), mistakes: g.mistakes, left0, left: g.toBreak, steps });
    """)
    outcomes = [(i, a, o) for i, a, o, _ in r["log"]]
    assert outcomes == [(0, "break", CHANGED), (0, "break", PASS), (3, "break", MISTAKE), (1, "mark", CHANGED),
                        (1, "break", STOP), (1, "mark", PASS), (1, "unmark", CHANGED), (1, "break", CHANGED)]
    assert "part of the model" in r["log"][2][3] and "marked" in r["log"][4][3]
    assert r["cells"] == [BROKEN, BROKEN, INTACT, INTACT, INTACT, INTACT]
    assert r["mistakes"] == 1
    assert (r["left0"], r["left"]) == (5, 3)
    # an undo step for each change, none for what was passed, stopped or refused
    assert r["steps"] == [["break", 0], ["mark", 1], ["mark", 1], ["break", 1]]


def test_paint_only_a_model_cube_its_own_colour_and_it_is_protected():
    # two colours: cube 1 is colour 1, cube 2 colour 2, cubes 0 and 3 not in the model
    r = run("""
      const g = G.newGame(puzzle([4, 1, 1], { 1: 1, 2: 2 }, 2)), log = [];
      const act = (i, a, c = 0) => { const r = G.actOnce(g, i, a, c); log.push(r.outcome); };
      const toPaint0 = g.toPaint;
      act(1, 'paint', 2);          // the wrong colour: a mistake
      act(0, 'paint', 1);          // not in the model: a mistake
      act(2, 'mark'); act(2, 'paint', 2);   // painting a marked cube takes its mark
      const painted = { cells: cells(g), paints: paints(g), toPaint: g.toPaint };
      act(2, 'paint', 2); act(2, 'paint', 1); act(2, 'break'); act(2, 'mark');
      const depth = g.undo.length;
      G.undoLast(g);               // the paint taken back: the mark is back
      out({ log, toPaint0, painted, mistakes: g.mistakes, depth, after: { cells: cells(g), paints: paints(g), toPaint: g.toPaint } });
    """)
    assert r["log"] == [MISTAKE, MISTAKE, CHANGED, CHANGED, PASS, STOP, STOP, STOP]
    assert r["mistakes"] == 2
    assert r["painted"] == {"cells": [INTACT] * 4, "paints": [0, 0, 2, 0], "toPaint": 1}
    assert r["toPaint0"] == 2 and r["depth"] == 2
    assert r["after"] == {"cells": [INTACT, INTACT, MARKED, INTACT], "paints": [0] * 4, "toPaint": 2}


def test_a_stroke_into_a_model_cube_counts_one_mistake_and_stops():
    r = run("""
      const g = G.newGame(puzzle([6, 1, 1], [3]));
      const s = S.newStroke(g, 0, 'break', 0, 1), lo = [0, 0, 0], hi = [5, 0, 0];
      const first = S.extendStroke(g, s, 1, lo, hi, 0);
      const second = S.extendStroke(g, s, 5, lo, hi, 0);   // over two cubes, into the model's
      const third = S.extendStroke(g, s, 5, lo, hi, 0);    // the pointer moves on: nothing more
      const made = S.endStroke(g, s);
      out({ first, second, third, made, cells: cells(g), mistakes: g.mistakes, depth: g.undo.length,
            stopped: s.stopped, reached: s.reached });
    """)
    assert r["first"] == {"changed": [0, 1], "mistake": -1, "why": ""}
    assert r["second"]["changed"] == [2] and r["second"]["mistake"] == 3 and "model" in r["second"]["why"]
    assert r["third"] == {"changed": [], "mistake": -1, "why": ""}
    assert r["cells"] == [BROKEN] * 3 + [INTACT] * 3
    assert r["mistakes"] == 1 and r["stopped"] and r["reached"] == 3
    assert r["made"] and r["depth"] == 1


def test_a_stroke_is_undone_as_one_step():
    r = run("""
      const g = G.newGame(puzzle([6, 1, 1], [])), lo = [0, 0, 0], hi = [5, 0, 0];
      G.actOnce(g, 5, 'break', 0);                       // a click before: a step of its own
      const s = S.newStroke(g, 0, 'break', 0, 1);
      for (const reach of [1, 2, 4]) S.extendStroke(g, s, reach, lo, hi, 0);
      S.endStroke(g, s);
      const broken = cells(g), depth = g.undo.length;
      const undone = G.undoLast(g);
      const after = cells(g), left = g.toBreak;
      // a stroke that changes nothing (over broken cubes) leaves no step
      const idle = S.newStroke(g, 5, 'break', 0, -1);
      S.extendStroke(g, idle, 0, lo, hi, 0);
      const made = S.endStroke(g, idle);
      out({ broken, depth, undone, after, left, made, depthAfter: g.undo.length,
            next: G.undoLast(g), last: G.undoLast(g) });
    """)
    assert r["broken"] == [BROKEN] * 6 and r["depth"] == 2
    assert r["undone"] == [4, 3, 2, 1, 0]                    # the whole stroke, last cube first
    assert r["after"] == [INTACT] * 5 + [BROKEN] and r["left"] == 5
    assert r["made"] is False and r["depthAfter"] == 1
    assert r["next"] == [5] and r["last"] is None


def test_a_stroke_stops_at_a_marked_cube_and_at_the_slices():
    r = run("""
      const g = G.newGame(puzzle([6, 1, 1], []));
      G.actOnce(g, 3, 'mark', 0);
      const s = S.newStroke(g, 0, 'break', 0, 1);
      const marked = S.extendStroke(g, s, 5, [0, 0, 0], [5, 0, 0], 0);
      const a = cells(g);
      const t = S.newStroke(g, 5, 'break', 0, -1);            // from the far end, layers 0..3 sliced away
      S.extendStroke(g, t, 5, [4, 0, 0], [5, 0, 0], 0);
      out({ marked, a, b: cells(g), stopped: t.stopped, mistakes: g.mistakes });
    """)
    assert r["marked"]["changed"] == [0, 1, 2] and "marked" in r["marked"]["why"]
    assert r["a"] == [BROKEN] * 3 + [MARKED, INTACT, INTACT]
    assert r["b"] == [BROKEN] * 3 + [MARKED, BROKEN, BROKEN] and r["stopped"] and r["mistakes"] == 0


def test_a_right_stroke_from_a_marked_cube_unmarks():
    r = run("""
      const g = G.newGame(puzzle([4, 1, 1], [2]));
      for (const i of [0, 1, 2]) G.actOnce(g, i, 'mark', 0);
      const s = S.newStroke(g, 0, G.actionAt(g, 0, true, 'break'), 0, 1);
      S.extendStroke(g, s, 3, [0, 0, 0], [3, 0, 0], 0);
      out({ action: s.action, cells: cells(g), tools: [G.actionAt(g, 3, false, 'break'), G.actionAt(g, 3, false, 'mark'),
           G.actionAt(g, 3, true, 'paint'), G.actionAt(g, 3, false, 'paint')] });
    """)
    assert r["action"] == "unmark" and r["cells"] == [INTACT] * 4
    assert r["tools"] == ["break", "mark", "mark", "paint"]


def test_the_line_a_drag_follows_and_how_far_the_pointer_is_along_it():
    # the cube's centre at (100, 100) on the screen; one cube along x goes right and a little
    # down, along y left and down, along z straight up
    r = run("""
      const centre = [100, 100], ends = [[130, 110], [80, 115], [100, 70]];
      const drags = [[20, 5], [-20, -8], [-10, 9], [2, -30], [0, 12]].map(([dx, dy]) => S.axisOfDrag(centre, ends, dx, dy));
      const endOn = S.axisOfDrag(centre, [[101, 100], [80, 115], [100, 70]], 20, 5);   // x seen end-on
      const none = S.axisOfDrag(centre, [[101, 100], [100, 101], [100, 100]], 20, 5);
      // a stroke from cube (1, 2, 3) of a 8 x 8 x 8 block along x; rays straight down (-z) at x = 5.2,
      // and at x = 0 against the stroke's way
      const shape = [8, 8, 8], start = (1 * 8 + 2) * 8 + 3;
      const s = { start, axis: 0, dir: 1, reached: 2 };
      const down = (x) => S.reachOnLine(s, shape, [x, 2.5, 20], [0, 0, -1]);
      const back = S.reachOnLine({ ...s, dir: -1 }, shape, [-1.6, 2.5, 20], [0, 0, -1]);
      const along = S.reachOnLine(s, shape, [-5, 2.5, 3.5], [1, 0, 0]);   // the ray along the line
      out({ drags, endOn, none, reach: [down(5.2), down(3.4), down(1.5), down(-3)], back, along });
    """)
    assert r["drags"] == [{"axis": 0, "dir": 1}, {"axis": 0, "dir": -1}, {"axis": 1, "dir": 1},
                          {"axis": 2, "dir": 1}, {"axis": 2, "dir": -1}]
    assert r["endOn"] == {"axis": 1, "dir": -1}     # x left out: the drag is nearest -y then
    assert r["none"] is None
    assert r["reach"] == [4, 2, 0, 0]               # the cell nearest the pointer, never behind the start
    assert r["back"] == 3 and r["along"] == 2


def test_what_the_player_knows_leaves_a_wrong_mark_out():
    r = run("""
      const g = G.newGame(puzzle([5, 1, 1], [1, 2]));
      G.actOnce(g, 0, 'break', 0); G.actOnce(g, 1, 'mark', 0); G.actOnce(g, 3, 'mark', 0);
      const c = G.newGame(puzzle([4, 1, 1], { 1: 1, 2: 2 }, 2));
      G.actOnce(c, 0, 'break', 0); G.actOnce(c, 1, 'paint', 1); G.actOnce(c, 2, 'mark', 0); G.actOnce(c, 3, 'mark', 0);
      out({ plain: Array.from(G.knowledgeOf(g)), colour: Array.from(G.knowledgeOf(c)) });
    """)
    assert r["plain"] == [EMPTY, FILLED, UNKNOWN, UNKNOWN, UNKNOWN]   # the mark on cube 3 is wrong
    assert r["colour"] == [0b001, 0b010, 0b110, 0b111]


def test_saved_progress_comes_back_without_what_it_may_not_claim():
    r = run("""
      const P = puzzle([4, 1, 1], { 1: 1, 2: 2 }, 2), g = G.newGame(P, 0);
      G.actOnce(g, 0, 'break', 0); G.actOnce(g, 1, 'paint', 1); G.actOnce(g, 3, 'mark', 0); G.actOnce(g, 2, 'paint', 1);
      g.hints = 2;
      const record = R.progressRecord(g, 5000);
      const back = G.newGame(P, 0);
      R.restoreProgress(back, JSON.parse(JSON.stringify(record)));
      // a hand-edited record: a break of a model cube, a paint of the wrong colour
      const forged = G.newGame(P, 0);
      R.restoreProgress(forged, { ...record, cells: '2200', paint: '0110' });
      const other = G.newGame(P, 0);
      R.restoreProgress(other, { cells: '22', mistakes: 4 });    // another page's size: ignored
      const view = (x) => ({ cells: cells(x), paints: paints(x), mistakes: x.mistakes, hints: x.hints,
                             elapsed: x.elapsedBefore, toBreak: x.toBreak, toPaint: x.toPaint, solved: x.solved });
      out({ record, back: view(back), forged: view(forged), other: view(other) });
    """)
    assert r["record"] == {"cells": "2001", "mistakes": 1, "hints": 2, "elapsed": 5000, "solved": False, "paint": "0100"}
    assert r["back"] == {"cells": [BROKEN, INTACT, INTACT, MARKED], "paints": [0, 1, 0, 0], "mistakes": 1, "hints": 2,
                         "elapsed": 5000, "toBreak": 1, "toPaint": 1, "solved": False}
    assert r["forged"]["cells"] == [BROKEN, INTACT, INTACT, INTACT] and r["forged"]["paints"] == [0, 1, 0, 0]
    assert r["other"]["cells"] == [INTACT] * 4 and r["other"]["mistakes"] == 0


def test_the_clock_counts_play_until_solved():
    r = run("""
      const g = G.newGame(puzzle([2, 1, 1], [1]), 1000);
      const a = G.elapsed(g, 4000);
      G.bankTime(g, 4000);
      G.resumeClock(g, 10000);                  // hidden from 4 s to 10 s: not counted
      G.actOnce(g, 0, 'break', 0);
      const solved = G.isSolved(g);
      G.finish(g, 12000);
      out({ a, solved, total: G.elapsed(g, 99000) });
    """)
    assert r == {"a": 3000, "solved": True, "total": 5000}


def test_the_page_keeps_its_progress_under_the_key_the_catalogue_reads():
    from engine.play.catalogue import storage_key
    texts = ["", "a", '{"name": "Ente é ü 漢", "shape": [3, 2, 1]}', "a 😀 b"]   # UTF-16 code units, pairs too
    got = run(f"out({json.dumps(texts)}.map(R.storageKeyOf));")
    assert got == [storage_key(t) for t in texts]
