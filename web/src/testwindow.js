// `window.nonogram`: the page's read-only window on the game for tests and benchmarks
// (web/README.md lists what it offers). `page` holds the player's parts (web/src/player.js).
import { Vector3 } from "three";
import { elapsed } from "./game.js";
import { placeOf } from "./grid.js";
import { clueDrawings, clueTables } from "./cluetiles.js";
import { $, revealShown } from "./hud.js";
import { renderTiles } from "./tilecheck.js";

export function exposeTestWindow(page) {
  const { P, game, clues, atlas, block, cam, drawing, hints, play, metrics, slice, canvas } = page;
  const K = game.k;
  // a point on the screen where a click reaches cube i (the centre of a face of it that the
  // camera sees and nothing covers), or null
  function aim(i) {
    const [x, y, z] = placeOf(P.shape, i);
    const r = canvas.getBoundingClientRect();
    const centres = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];
    cam.place();
    for (const [dx, dy, dz] of centres) {
      const w = new Vector3(x + 0.5 + 0.45 * dx, z + 0.5 + 0.45 * dz, -(y + 0.5 + 0.45 * dy)).project(cam.camera);
      if (Math.abs(w.x) > 1 || Math.abs(w.y) > 1) continue;
      const px = r.left + ((w.x + 1) / 2) * r.width, py = r.top + ((1 - w.y) / 2) * r.height;
      if (document.elementFromPoint(px, py) !== canvas) continue;
      if (page.pick(px, py) === i) return { x: px, y: py };
    }
    return null;
  }
  window.nonogram = Object.freeze({
    state: () => ({
      ready: true, error: null, name: P.name, shape: P.shape.slice(), clues: clueTables(P, clues), labels: clues.labels.slice(),
      // what each line's tile draws: [text, colour (1..k; 0 the plain ink)] per number
      drawnClues: clueDrawings(P, clues),
      clueColours: K ? P.clueColours.map((c) => c.slice()) : null, inks: K ? P.inks.map((c) => c.slice()) : null, k: K,
      paints: Array.from(game.paints), tool: play.tool, paintColour: play.paintColour, toPaint: game.toPaint,
      cells: Array.from(game.cells), mistakes: game.mistakes, solved: game.solved, elapsedMs: elapsed(game, performance.now()),
      slices: slice.slice(),
      visible: { lo: block.lo.slice(), hi: block.hi.slice() }, drawn: block.drawnCubes(), faces: block.faceCount(),
      revealed: game.solved && revealShown(), undoDepth: game.undo.length,
      view: { theta: cam.view.theta, phi: cam.view.phi, dist: cam.view.dist },
      frames: drawing.stats.frames, partialFrames: drawing.stats.partialFrames, lastRect: drawing.stats.lastRect,
      firstFrameMs: metrics.firstFrameMs, lastActionMs: metrics.lastActionMs, timing: metrics.timing, left: game.toBreak,
      hasColours: P.palette !== null,
      hints: game.hints, hintMs: hints.shown.ms, warmMs: metrics.warmMs, strokes: metrics.strokes, saveMs: metrics.saveMs,
      stroke: play.stroke && { start: play.stroke.start, axis: play.stroke.axis, dir: play.stroke.dir, reached: play.stroke.reached },
      hint: hints.report(),
      hintShown: !$("hint").classList.contains("hidden"), hintText: $("hint-text").textContent,
      storageKey: page.storageKey,
    }),
    aim, pick: (cx, cy) => page.pick(cx, cy),
    // the free area the block is fitted in and the block's corners on the screen (CSS pixels
    // from the canvas's top left)
    layout: () => ({ free: { ...cam.free() }, block: cam.blockRect() }),
    // where the centre of cube i is on the screen (client pixels), seen or not
    screenOf: (i) => { cam.place(); cam.camera.updateMatrixWorld(); return cam.toScreen(placeOf(P.shape, i).map((v) => v + 0.5)); },
    atlas: () => ({ url: atlas.canvas.toDataURL("image/png"), cols: atlas.cols, rows: atlas.rows, tile: atlas.tile }),
    // a hash of the frame on screen; `full`: rebuild the faces and draw the whole frame first
    // (tests compare what per-cube updates and partial redraws left with a full redraw)
    frameHash: (full = false) => {
      if (full) { block.rebuild(); drawing.markDirty(); drawing.render(); }
      return drawing.frameHash();
    },
    // every atlas tile drawn by the block's own shader on a face-on square of px × px pixels,
    // laid out as the atlas is, without light or edge shading: tests compare it with the atlas
    // (`marked`: on a marked cube's face)
    renderTiles: (px = atlas.tile, tilt = 0, marked = false) => renderTiles(page.renderer, page.material, atlas,
                                                                             clues.labels, px, tilt, marked),
    // how long drawing takes (benchmarks): n renders, each waited for by reading a pixel back
    timeRenders: (count = 5) => drawing.timeRenders(count),
  });
}
