// The Nonogram 3D web player: a block of cubes with clue numbers on the faces; break the cubes
// that are not part of the model (colour puzzles: and paint the others their colours, as in
// Picross 3D Round 2). This module wires the parts (web/README.md, "Where things are"): the
// game and its rules (game.js), strokes (strokes.js), hints (hint.js, hintpanel.js), the block's
// mesh (blockmesh.js), camera (camera.js) and drawing (drawing.js), input (input.js), the
// panels (hud.js) and the saved progress (progress.js).
import { Color, Scene, WebGLRenderer } from "three";
import { PageError, readPuzzle } from "./data.js";
import {
  CHANGED, MISTAKE, PASS, actOnce, actionAt, finish, isSolved, isStarted, knowledgeOf, newGame, restart as restartGame,
  resumeClock, undoLast,
} from "./game.js";
import { axisOfDrag, endStroke, extendStroke, newStroke, reachOnLine } from "./strokes.js";
import { forgetRevealPicture, loadProgress, saveProgress, saveRevealPicture, storageKeyOf } from "./progress.js";
import { facesEye, pickCube, placeOf } from "./grid.js";
import { clueAtlas, clueTilesOf } from "./cluetiles.js";
import { BACKGROUND, blockMaterial } from "./shading.js";
import { makeBlockMesh } from "./blockmesh.js";
import { makeCamera } from "./camera.js";
import { makeDrawing } from "./drawing.js";
import { makeHinter } from "./hint.js";
import { makeHintPanel } from "./hintpanel.js";
import { bindInput } from "./input.js";
import * as hud from "./hud.js";
import { exposeTestWindow } from "./testwindow.js";

const $ = hud.$;

function main() {
  const maxSide = parseInt(document.querySelector('meta[name="nonogram-player-limit"]').content, 10) || 64;
  const dataText = $("nonogram-puzzle").textContent;
  let P;
  try {
    P = readPuzzle(dataText, maxSide);
  } catch (e) {
    const why = e instanceof PageError ? e.message : `${e.name}: ${e.message}`;
    hud.showError(why.startsWith("This is") ? why : `This puzzle page cannot be played: ${why}.`);
    return;
  }
  const K = P.k, n = P.n, shape = P.shape;
  const storageKey = storageKeyOf(dataText);
  const game = newGame(P, performance.now());
  loadProgress(game, storageKey);
  const save = () => saveProgress(game, storageKey, performance.now());
  // what the player holds (the tool, the paint colour) and the stroke under way
  const play = { tool: "break", paintColour: 1, stroke: null };
  // figures of this session for tests and benchmarks
  const metrics = { firstFrameMs: null, lastActionMs: null, timing: null, warmMs: null, strokes: 0, saveMs: null };
  const slice = [0, 0, 0];   // >0: that many layers hidden from the high end; <0: from the low end

  const clues = clueTilesOf(P);
  const atlas = clueAtlas(P, clues);
  const canvas = $("view");
  let renderer;
  try {
    // no MSAA: the cube edges are drawn by the shader, and multisampling costs most where WebGL
    // runs on the CPU (SwiftShader)
    renderer = new WebGLRenderer({ canvas, antialias: false, powerPreference: "high-performance",
                                   preserveDrawingBuffer: true });
  } catch (e) {
    hud.showError("This puzzle needs WebGL, which this browser has switched off or does not have.");
    return;
  }
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  // the most anisotropic filtering the device has: faces seen at a grazing angle (the top faces
  // from the default view) keep their numbers sharp along the slant instead of smearing
  atlas.texture.anisotropy = Math.max(1, renderer.capabilities.getMaxAnisotropy());
  renderer.setClearColor(new Color(BACKGROUND), 1);
  const scene = new Scene();
  const material = blockMaterial(atlas);
  const cam = makeCamera(canvas, shape);
  const hinter = makeHinter(P);
  // whether the player sees cube i from where the camera is now
  const seeing = () => {
    cam.place();
    const eye = cam.eye();
    return (i) => facesEye(shape, i, eye, block.faceShown);
  };
  const hints = makeHintPanel(game, hinter, { seeing, changed, showCounts });
  const block = makeBlockMesh(game, clues.tiles, hints.mark, material, slice);
  scene.add(block.mesh);
  const drawing = makeDrawing(renderer, scene, cam, canvas, shape);
  const pick = (clientX, clientY) => {
    const { o, d } = cam.rayAt(clientX, clientY);
    return pickCube(o, d, shape, block.present);
  };
  function showCounts() { hud.updateHud(game, performance.now()); }
  const sizeRenderer = () => renderer.setSize(canvas.clientWidth || window.innerWidth,
                                              canvas.clientHeight || window.innerHeight, false);

  // After a change to the game; `cubes`: the cubes it changed (their rectangle is redrawn;
  // none: all of it). `persist` false: not saved yet (a stroke saves when it ends).
  function changed(eventTime, cubes, persist = true) {
    const t0 = performance.now();
    if (cubes === undefined || game.solved) block.rebuild();
    else {
      // one upload for all the cubes: an upload replaces the update ranges still waiting for
      // the next frame, so uploading after each cube sent only the last one's faces
      for (const i of cubes) block.refreshCube(i);
      block.upload();
    }
    showCounts();
    if (persist) save();
    const t1 = performance.now();
    drawing.markDirty(cubes === undefined || game.solved ? undefined : cubes);
    drawing.render();
    drawing.finishFrame();
    const t2 = performance.now();
    metrics.timing = { update: t1 - t0, render: t2 - t1, cubes: cubes ? cubes.length : n };
    if (eventTime !== undefined) metrics.lastActionMs = t2 - eventTime;
  }
  // a refused action's cube flashes red
  let flashTimer = null;
  function flash(i) {
    const u = material.uniforms.uFlash;
    drawing.markDirty([u.value, i]);
    u.value = i;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => { u.value = -1; drawing.requestRender([i]); }, 450);
  }
  // cubes changed by the player: the hint goes, the puzzle may be solved
  function afterAct(cubes, eventTime, persist = true) {
    const cleared = hints.clear();
    const done = isSolved(game);
    if (done) {
      finish(game, performance.now());
      material.uniforms.uHover.value = -1;
      hints.clear();
      hud.showSolved(game, performance.now());
    }
    changed(eventTime, cleared.length ? cubes.concat(cleared) : cubes, persist || done);
    if (done) saveRevealPicture(storageKey, canvas, cam.blockRect());
  }
  // one action on one cube (a click or a tap), with its own undo step
  function actOn(i, action, eventTime) {
    if (game.solved || i < 0 || (action === "paint" && !K)) return;
    const r = actOnce(game, i, action, play.paintColour);
    if (r.outcome === MISTAKE) flash(i);
    if (r.why) hud.toast(r.why);
    if (r.outcome === PASS) return;
    if (r.outcome === CHANGED) hinter.touch(i);
    afterAct([i], eventTime);
  }
  function undo() {
    if (game.solved) return;
    const cubes = undoLast(game);
    if (!cubes) { hud.toast("Nothing to undo"); return; }
    for (const i of cubes) hinter.touch(i);
    afterAct(cubes);
  }
  function restart() {
    restartGame(game, performance.now());
    hints.reset();
    hud.hideSolved(game);
    forgetRevealPicture(storageKey);
    changed();
  }

  // strokes: the drag's direction on the screen picks one of the pressed cube's lines
  function startStroke(i, marking, dx, dy) {
    cam.place();
    cam.camera.updateMatrixWorld();
    const g = placeOf(shape, i).map((v) => v + 0.5);
    const ends = [0, 1, 2].map((a) => { const h = g.slice(); h[a] += 1; return cam.toScreen(h); });
    const along = axisOfDrag(cam.toScreen(g), ends, dx, dy);
    if (!along) return false;
    play.stroke = newStroke(game, i, actionAt(game, i, marking, play.tool), along.axis, along.dir);
    return true;
  }
  function strokeTo(clientX, clientY, eventTime) {
    const s = play.stroke;
    if (!s || s.stopped || game.solved) return;
    const { o, d } = cam.rayAt(clientX, clientY);
    const r = extendStroke(game, s, reachOnLine(s, shape, o, d), block.lo, block.hi, play.paintColour);
    for (const i of r.changed) hinter.touch(i);
    if (r.mistake >= 0) flash(r.mistake);
    if (r.why) hud.toast(r.why);
    const done = r.mistake >= 0 ? r.changed.concat(r.mistake) : r.changed;
    if (done.length) afterAct(done, eventTime, false);
  }
  function stopStroke() {
    if (!play.stroke) return;
    metrics.strokes += endStroke(game, play.stroke) ? 1 : 0;
    play.stroke = null;
    const t = performance.now();
    save();   // once a stroke, when it ends
    metrics.saveMs = performance.now() - t;
  }

  function setSlice(a, v) {
    v = Math.max(-(shape[a] - 1), Math.min(shape[a] - 1, v | 0));
    slice[a] = v;
    hud.showSlice(a, v);
    block.rebuild();
    drawing.requestRender();
  }
  function setTool(t, c) {
    play.tool = t;
    if (c !== undefined) play.paintColour = c;
    hud.showTool(t, play.paintColour, K);
  }
  function hover(clientX, clientY) {
    const i = pick(clientX, clientY), u = material.uniforms.uHover, was = u.value;
    if (i !== was) { u.value = i; drawing.requestRender([was, i]); }
  }

  if (K) hud.buildPalette(P.inks, (j) => setTool("paint", j));
  hud.showTitle(P);
  hud.startClock(game);
  bindInput(canvas, cam, {
    k: K, pick, solved: () => game.solved,
    click: (i, marking, t) => actOn(i, actionAt(game, i, marking, play.tool), t),
    startStroke, strokeTo, endStroke: stopStroke, hover,
    render: () => drawing.requestRender(),
    undo, hint: hints.ask, tool: setTool,
    slice: (a, step) => setSlice(a, slice[a] + step),
  });
  hud.bindSliders(shape, setSlice);
  $("tool-break").addEventListener("click", () => setTool("break"));
  $("tool-mark").addEventListener("click", () => setTool("mark"));
  $("undo").addEventListener("click", () => undo());
  $("hint-button").addEventListener("click", () => hints.ask());
  $("hint-deeper").addEventListener("click", () => hints.askDeeper());
  $("hint-close").addEventListener("click", () => { const c = hints.clear(); if (c.length) changed(undefined, c, false); });
  $("reset-view").addEventListener("click", () => { cam.reset(); drawing.requestRender(); });
  $("restart").addEventListener("click", () => {
    if (!isStarted(game) || window.confirm("Start this puzzle again? Your progress is lost.")) restart();
  });
  $("play-again").addEventListener("click", () => restart());
  window.addEventListener("resize", () => {
    sizeRenderer();
    cam.refit(hud.freeArea(canvas));
    drawing.requestRender();
  });
  window.addEventListener("pagehide", save);
  document.addEventListener("visibilitychange", () => { if (document.hidden) save(); else resumeClock(game, performance.now()); });

  exposeTestWindow({ P, game, clues, atlas, block, cam, drawing, hints, play, metrics, slice, canvas, renderer, material,
                     storageKey, pick });

  hud.helpAsTip();
  showCounts();   // first: the panels at their size before the free area is measured
  sizeRenderer();
  cam.resize(hud.freeArea(canvas));
  cam.reset();
  block.rebuild();
  if (game.solved) hud.showSolved(game, performance.now());
  drawing.render();
  requestAnimationFrame(() => { metrics.firstFrameMs = performance.now(); });
  // The first hint would pay for compiling the line solvers (a 36³ block's first scan took 180
  // ms, the next ones 10-20 ms): once the page is idle after opening, a throwaway hint finder
  // scans the lines once, so the code is compiled. Nothing it finds is kept.
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 200));
  idle(() => {
    if (game.solved) return;
    const t = performance.now();
    makeHinter(P).find(knowledgeOf(game));
    metrics.warmMs = performance.now() - t;
  });
}

try {
  main();
} catch (e) {
  hud.showError(`This puzzle page failed to start: ${e && e.message ? e.message : e}`);
  throw e;
}
