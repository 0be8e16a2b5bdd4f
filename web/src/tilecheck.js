// The atlas check for tests (tests/test_web_tiles.py): every atlas tile drawn by the block's own
// shader, to compare with the atlas itself (issue #39's speckled tiles).
import {
  BufferAttribute, BufferGeometry, Color, Mesh, OrthographicCamera, PerspectiveCamera, Scene, Vector3, WebGLRenderTarget,
} from "three";
import { CORNERS } from "./grid.js";
import { BACKGROUND, CUBE, MARKED_CENTRE, MARKED_CUBE, PLAIN_INK, SHOW_INTACT, SHOW_MARKED } from "./shading.js";

// bytes as base64, in chunks (one call with a million arguments is too many for some engines)
function base64Of(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 8192) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  return btoa(bin);
}

// Every atlas tile drawn by the block's shader (without light or edge shading) on a square
// laid out as in the atlas, px pixels a side. `tilt` (degrees): each square turned back about
// its horizontal middle and seen in perspective, as the block's faces are: only then does the
// interpolated tile index come out a hair off a whole number (the speckled tiles of #39).
// `marked`: the squares are a marked cube's faces (the numbers on its light centre, a blue frame).
// Returns the pixels, the atlas and each square's corners on screen (uv (0,0) (1,0) (1,1) (0,1)),
// the colour under the numbers (`cube`) and the marked frame's.
export function renderTiles(renderer, material, atlas, labels, px, tilt, marked = false) {
  const cols = atlas.cols, rows = atlas.rows, count = cols * rows, w = cols * px, h = rows * px;
  const a = (tilt * Math.PI) / 180;
  const pos = [], nor = [], uv = [], data = [], col = [], index = [];
  for (let t = 0; t < count; t++) {
    const x = t % cols, y = rows - 1 - Math.floor(t / cols);
    CORNERS.forEach(([u, v]) => {
      pos.push(x + u, y + 0.5 + (v - 0.5) * Math.cos(a), -(v - 0.5) * Math.sin(a));
      nor.push(0, Math.sin(a), Math.cos(a)); uv.push(u, v); data.push(t, marked ? SHOW_MARKED : SHOW_INTACT, -1, 0); col.push(0, 0, 0);
    });
    index.push(4 * t, 4 * t + 1, 4 * t + 2, 4 * t, 4 * t + 2, 4 * t + 3);
  }
  const g = new BufferGeometry();
  g.setAttribute("position", new BufferAttribute(new Float32Array(pos), 3));
  g.setAttribute("normal", new BufferAttribute(new Float32Array(nor), 3));
  g.setAttribute("uv", new BufferAttribute(new Float32Array(uv), 2));
  g.setAttribute("aData", new BufferAttribute(new Float32Array(data), 4));
  g.setAttribute("aColour", new BufferAttribute(new Float32Array(col), 3));
  g.setIndex(index);
  const tiles = new Scene();
  tiles.add(new Mesh(g, material));
  let cam;
  if (tilt) {
    const fov = 30, dist = (rows / 2) / Math.tan((fov * Math.PI) / 360) * 1.02;
    cam = new PerspectiveCamera(fov, w / h, dist / 4, dist * 4);
    cam.position.set(cols / 2, rows / 2, dist);
    cam.lookAt(cols / 2, rows / 2, 0);
  } else {
    cam = new OrthographicCamera(0, cols, rows, 0, -1, 1);
  }
  cam.updateMatrixWorld();
  cam.updateProjectionMatrix();
  const corners = [];
  for (let t = 0; t < count; t++) {
    const c = [];
    for (let j = 0; j < 4; j++) {
      const p = new Vector3(pos[12 * t + 3 * j], pos[12 * t + 3 * j + 1], pos[12 * t + 3 * j + 2]).project(cam);
      c.push([((p.x + 1) / 2) * w, ((1 - p.y) / 2) * h]);
    }
    corners.push(c);
  }
  const target = new WebGLRenderTarget(w, h);
  const out = new Uint8Array(4 * w * h);
  material.uniforms.uPlain.value = 1;
  try {
    renderer.setRenderTarget(target);
    renderer.setClearColor(new Color(0x000000), 1);
    renderer.clear();
    renderer.render(tiles, cam);
    renderer.readRenderTargetPixels(target, 0, 0, w, h, out);
  } finally {
    renderer.setRenderTarget(null);
    renderer.setClearColor(new Color(BACKGROUND), 1);
    material.uniforms.uPlain.value = 0;
    target.dispose();
    g.dispose();
  }
  const img = atlas.canvas.getContext("2d").getImageData(0, 0, atlas.canvas.width, atlas.canvas.height).data;
  // rows bottom up (as GL reads them); the atlas's RGBA not premultiplied (as the canvas gives it)
  return { width: w, height: h, rgba: base64Of(out), atlas: base64Of(img), atlasWidth: atlas.canvas.width,
           atlasHeight: atlas.canvas.height, tile: atlas.tile, cols, rows, corners,
           colour: atlas.colour, labels: labels.length, cube: marked ? MARKED_CENTRE : CUBE, frame: marked ? MARKED_CUBE : null,
           plainInk: PLAIN_INK };
}
