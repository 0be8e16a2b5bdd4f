// Drawing on demand: nothing runs while nobody touches the page. A change to a few cubes (a
// break, a mark, a paint, the hover and flash highlights) redraws only the screen rectangle
// those cubes cover: every pixel that changes lies inside it (what a broken cube uncovers is
// behind it), and the rest of the frame is kept (preserveDrawingBuffer). Where WebGL runs on
// the CPU, shading the whole block's pixels was ~90 % of a click's cost.
import { Vector3 } from "three";

export function makeDrawing(renderer, scene, cam, canvas, shape) {
  const [, Y, Z] = shape, camera = cam.camera;
  const stats = { frames: 0, partialFrames: 0, lastRect: null };
  let pending = null, dirtyAll = true;
  const dirtyCubes = [];
  const pixel = new Uint8Array(4);
  // the cubes to redraw at the next frame (none: all of it)
  function markDirty(cubes) {
    if (!cubes) { dirtyAll = true; return; }
    for (const i of cubes) if (i >= 0) dirtyCubes.push(i);
  }
  const corner = new Vector3();
  // the rectangle (CSS pixels, origin bottom left, as setScissor takes it) that the cubes
  // cover on screen, or null when one of them is (partly) behind the camera
  function screenRect(cubes) {
    const w = canvas.clientWidth || window.innerWidth, h = canvas.clientHeight || window.innerHeight;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const i of cubes) {
      const z = i % Z, y = Math.floor(i / Z) % Y, x = Math.floor(i / (Y * Z));
      for (let c = 0; c < 8; c++) {
        corner.set(x + (c & 1), z + ((c >> 1) & 1), -(y + (c >> 2))).applyMatrix4(camera.matrixWorldInverse);
        if (corner.z > -camera.near) return null;
        corner.applyMatrix4(camera.projectionMatrix);
        x0 = Math.min(x0, corner.x); x1 = Math.max(x1, corner.x);
        y0 = Math.min(y0, corner.y); y1 = Math.max(y1, corner.y);
      }
    }
    // two pixels of margin for rounding and the rasteriser's edge rules
    const left = Math.max(0, Math.floor(((x0 + 1) / 2) * w) - 2), bottom = Math.max(0, Math.floor(((y0 + 1) / 2) * h) - 2);
    const right = Math.min(w, Math.ceil(((x1 + 1) / 2) * w) + 2), top = Math.min(h, Math.ceil(((y1 + 1) / 2) * h) + 2);
    if (right <= left || top <= bottom) return { x: 0, y: 0, w: 0, h: 0 };
    return { x: left, y: bottom, w: right - left, h: top - bottom };
  }
  // draw what is dirty, now
  function render() {
    if (!dirtyAll && dirtyCubes.length === 0) return;
    cam.place();
    camera.updateMatrixWorld();
    const rect = dirtyAll ? null : screenRect(dirtyCubes);
    dirtyAll = false;
    dirtyCubes.length = 0;
    stats.lastRect = rect;
    if (rect && rect.w === 0) return;   // off screen: nothing to draw
    if (rect) {
      renderer.setScissor(rect.x, rect.y, rect.w, rect.h);
      renderer.setScissorTest(true);
      stats.partialFrames++;
    }
    renderer.render(scene, camera);
    renderer.setScissorTest(false);
    stats.frames++;
  }
  // draw at the next animation frame (cubes: what changed; none: all of it)
  function requestRender(cubes) {
    markDirty(cubes);
    if (pending !== null) return;
    pending = requestAnimationFrame(() => { pending = null; render(); });
  }
  // wait until the frame is drawn: reading a pixel back cannot return before it is
  function finishFrame() {
    const gl = renderer.getContext();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
  }
  // a hash (FNV-1a) of the frame on screen
  function frameHash() {
    const gl = renderer.getContext();
    const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight, px = new Uint8Array(4 * w * h);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    let a = 0x811c9dc5;
    for (let j = 0; j < px.length; j++) { a ^= px[j]; a = Math.imul(a, 0x01000193) >>> 0; }
    return a.toString(16);
  }
  // how long drawing takes (benchmarks): `count` whole frames, each waited for
  function timeRenders(count) {
    const out = [];
    for (let k = 0; k < count; k++) {
      const t = performance.now();
      markDirty();
      render();
      finishFrame();
      out.push(performance.now() - t);
    }
    return out;
  }
  return { stats, markDirty, render, requestRender, finishFrame, frameHash, timeRenders };
}
