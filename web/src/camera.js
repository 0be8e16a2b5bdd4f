// The camera: an orbit round the block's centre, which sits in the middle of the free part of
// the screen (the largest rectangle of the canvas no panel covers: on a phone the panels take
// the top and bottom), fitted to fill it. The projection's view offset moves the centre there,
// so picking, aiming and partial redraws (all through the camera) follow. Puzzle z is up (as
// in Blender): three (x, y, z) = puzzle (x, z, -y); grid coordinates are the puzzle's.
import { PerspectiveCamera, Vector3 } from "three";

// the first view: from the front right, 41° above the horizon, so the top faces are not too
// foreshortened to read (sin 41° = 0.66) and the side faces still face the player
const HOME = { theta: 0.5, phi: 0.86 };

export function makeCamera(canvas, shape) {
  const [X, Y, Z] = shape;
  const camera = new PerspectiveCamera(40, 1, 0.1, 1000);
  const centre = new Vector3(X / 2, Z / 2, -Y / 2);
  const radius = 0.5 * Math.hypot(X, Y, Z);
  const view = { theta: HOME.theta, phi: HOME.phi, dist: 1 };
  const size = () => [canvas.clientWidth || window.innerWidth, canvas.clientHeight || window.innerHeight];
  let free = { x: 0, y: 0, w: 1, h: 1 };
  // `fitted`: the distance at which the block fills the free area, the zoom a resize keeps
  // relative to; `shift`: the view offset that centres the block's outline there
  let fitted = 1, shift = [0, 0];

  function place() {
    const s = Math.sin(view.phi);
    camera.position.set(centre.x + view.dist * s * Math.sin(view.theta), centre.y + view.dist * Math.cos(view.phi),
                        centre.z + view.dist * s * Math.cos(view.theta));
    camera.lookAt(centre);
    camera.near = Math.max(0.05, view.dist - radius * 2);
    camera.far = view.dist + radius * 2;
    camera.updateProjectionMatrix();
  }
  const corners = [];
  for (let c = 0; c < 8; c++) corners.push(new Vector3(c & 1 ? X : 0, c & 4 ? Z : 0, c & 2 ? -Y : 0));
  // the block's corners on the screen (CSS pixels from the canvas's top left)
  function blockRect() {
    const [w, h] = size();
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    place();
    camera.updateMatrixWorld();
    for (const c of corners) {
      const p = c.clone().project(camera), x = ((p.x + 1) / 2) * w, y = ((1 - p.y) / 2) * h;
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
    return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  }
  // the distance at which the block, seen from the current angles, just fills the free area
  function fitDistance() {
    const keep = view.dist, m = 0.03;
    const fits = (d) => {
      view.dist = d;
      const r = blockRect();
      return r.x >= free.x + m * free.w && r.y >= free.y + m * free.h
        && r.x + r.w <= free.x + (1 - m) * free.w && r.y + r.h <= free.y + (1 - m) * free.h;
    };
    let lo = radius * 1.05, hi = radius * 2;
    while (!fits(hi) && hi < radius * 1e4) hi *= 2;
    if (fits(lo)) hi = lo;
    for (let j = 0; j < 30 && hi - lo > 1e-3 * hi; j++) { const mid = (lo + hi) / 2; if (fits(mid)) hi = mid; else lo = mid; }
    view.dist = keep;
    return hi;
  }
  function applyOffset() {
    const [w, h] = size();
    camera.setViewOffset(w, h, w / 2 - (free.x + free.w / 2) - shift[0], h / 2 - (free.y + free.h / 2) - shift[1], w, h);
    camera.updateProjectionMatrix();
  }
  // Fit the block, seen from the current angles, to the free area: its outline centred there
  // (seen from above in perspective its outline is not centred on its middle) and as large as
  // fits.
  function fit() {
    shift = [0, 0];
    applyOffset();
    for (let k = 0; k < 3; k++) {
      view.dist = fitDistance();
      const r = blockRect();
      shift[0] += free.x + free.w / 2 - (r.x + r.w / 2);
      shift[1] += free.y + free.h / 2 - (r.y + r.h / 2);
      applyOffset();
    }
    view.dist = fitted = fitDistance();
  }
  function reset() {
    view.theta = HOME.theta; view.phi = HOME.phi;
    fit();
  }
  // the canvas changed size; `area`: the free part of it now
  function resize(area) {
    const [w, h] = size();
    camera.aspect = w / Math.max(1, h);
    free = area;
    applyOffset();
  }
  const clampDist = (d) => Math.min(fitted * 4, Math.max(radius * 1.05, d));
  // a turned phone or a resized window: fitted anew, at the same zoom relative to the fit
  function refit(area) {
    const zoom = view.dist / fitted;
    resize(area);
    fit();
    view.dist = clampDist(fitted * zoom);
  }
  function turn(dx, dy) {
    view.theta -= dx * 0.008;
    view.phi = Math.min(Math.PI - 0.05, Math.max(0.05, view.phi - dy * 0.008));
  }

  // the ray from the eye through a point of the screen (client pixels), in grid coordinates
  const ndc = new Vector3();
  function rayAt(clientX, clientY) {
    const r = canvas.getBoundingClientRect();
    ndc.set(((clientX - r.left) / r.width) * 2 - 1, -((clientY - r.top) / r.height) * 2 + 1, 0.5);
    place();
    ndc.unproject(camera);
    const o = camera.position;
    const d = ndc.clone().sub(o).normalize();
    return { o: [o.x, -o.z, o.y], d: [d.x, -d.z, d.y] };
  }
  // the screen point (client pixels) of a point in grid coordinates (the camera placed)
  const screenPoint = new Vector3();
  function toScreen(g) {
    const r = canvas.getBoundingClientRect();
    screenPoint.set(g[0], g[2], -g[1]).project(camera);
    return [r.left + ((screenPoint.x + 1) / 2) * r.width, r.top + ((1 - screenPoint.y) / 2) * r.height];
  }
  // the eye in grid coordinates
  const eye = () => [camera.position.x, -camera.position.z, camera.position.y];

  return {
    camera, view, place, reset, resize, refit, blockRect, clampDist, turn, rayAt, toScreen, eye,
    free: () => free,
  };
}
