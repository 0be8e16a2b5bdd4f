// The Nonogram 3D web player: a block of cubes with clue numbers on the faces; break the cubes
// that are not part of the model (colour puzzles: and paint the others their colours, as in
// Picross 3D Round 2). The block is drawn as ONE mesh of the cube faces in view (a face whose
// neighbour is broken, sliced away or outside the block); a change to one cube rewrites only
// its faces and its neighbours' and redraws only its screen rectangle. A 36³ block draws about
// 8,000 faces, not 46,656 cubes. One mesh, not an InstancedMesh: where
// WebGL runs on the CPU (SwiftShader, headless Chromium) every instance costs ~15 µs, so 7,000
// instanced cubes took ~150 ms a frame; the merged faces take a few ms there and less on a GPU.
// Picking walks the grid (a voxel ray walk), not the triangles.
import {
  BufferAttribute, BufferGeometry, Color, Mesh, OrthographicCamera, PerspectiveCamera, Scene, ShaderMaterial, Vector3,
  WebGLRenderer, WebGLRenderTarget,
} from "three";
import { PageError, readPuzzle } from "./data.js";
import { buildAtlas, buildColourAtlas } from "./atlas.js";
import { largestFreeRect } from "./layout.js";
import { BREAK, EMPTY, FILLED, MODEL, UNKNOWN, deeper, makeHinter, paintAction } from "./hint.js";

const INTACT = 0, MARKED = 1, BROKEN = 2;
// what the shader draws a face as (aData.y)
const SHOW_INTACT = 0, SHOW_MARKED = 1, SHOW_REVEALED = 2, SHOW_PAINTED = 3;
const ZERO_INK = [0.1, 0.1, 0.12];   // a colour line with no filled cube: a dark "0"
const CUBE = [0.95, 0.93, 0.88];      // an intact cube, cream as in Picross 3D
const MARKED_CUBE = [0.36, 0.58, 0.93];
const PLAIN_INK = [0.08, 0.08, 0.1];  // a black-and-white puzzle's numbers
const REVEAL = [0.93, 0.55, 0.2];   // the model's colour at the reveal when the puzzle has none
const STORAGE_PREFIX = "nonogram3d:";
const BACKGROUND = 0x2b2f36;
const SMALL_SCREEN = "(max-width: 700px), (max-height: 500px)";   // as web/src/player.css
const $ = (id) => document.getElementById(id);

function showError(message) {
  const el = $("error");
  el.textContent = message;
  el.classList.remove("hidden");
  for (const id of ["hud", "tools", "palette", "slices", "help"]) $(id).classList.add("hidden");
  window.nonogram = { state: () => ({ error: message, ready: false }) };
}

const plural = (v, word) => `${v} ${word}${v === 1 ? "" : "s"}`;

// bytes as base64, in chunks (one call with a million arguments is too many for some engines)
function base64Of(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 8192) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  return btoa(bin);
}

// FNV-1a of the page's data: the puzzle's key in localStorage
function hashText(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return h.toString(16);
}

// The six faces of a cube in three.js coordinates (puzzle z is up: three (x, y, z) = puzzle
// (x, z, -y)): normal n, and the directions U (right) and V (up) of the face's clue as seen
// from outside (U × V = n, so the two triangles face out). Top faces read from the front.
// `clue`: which puzzle line's clue the face shows (0 x-line, 1 y-line, 2 z-line);
// `d`: the puzzle-grid step to the neighbour behind the face.
const FACES = [
  { n: [1, 0, 0], u: [0, 0, -1], v: [0, 1, 0], clue: 0, d: [1, 0, 0] },
  { n: [-1, 0, 0], u: [0, 0, 1], v: [0, 1, 0], clue: 0, d: [-1, 0, 0] },
  { n: [0, 1, 0], u: [1, 0, 0], v: [0, 0, -1], clue: 2, d: [0, 0, 1] },
  { n: [0, -1, 0], u: [1, 0, 0], v: [0, 0, 1], clue: 2, d: [0, 0, -1] },
  { n: [0, 0, 1], u: [1, 0, 0], v: [0, 1, 0], clue: 1, d: [0, -1, 0] },
  { n: [0, 0, -1], u: [-1, 0, 0], v: [0, 1, 0], clue: 1, d: [0, 1, 0] },
];
const CORNERS = [[0, 0], [1, 0], [1, 1], [0, 1]];
// each face's four corners relative to its cube's centre, in CORNERS order
for (const F of FACES) {
  F.at = CORNERS.flatMap(([u, v]) => [0, 1, 2].map((a) => 0.5 * F.n[a] + (u - 0.5) * F.u[a] + (v - 0.5) * F.v[a]));
}

const VERTEX = /* glsl */ `
// clue tile (-1: none), state (0 intact, 1 marked, 2 revealed, 3 painted), cell index, hint
// (0 none, 1 on the hint's line, 2 a cube the hint decides)
attribute vec4 aData;
attribute vec3 aColour;
uniform float uHover;
uniform float uFlash;
varying vec2 vUv;
varying float vTile;
varying vec3 vNormal;
varying float vState;
varying vec3 vColour;
varying float vHover;
varying float vFlash;
varying float vHint;
void main() {
  vTile = aData.x;
  vHint = aData.w;
  vUv = uv;
  vState = aData.y;
  vColour = aColour;
  vHover = abs(aData.z - uHover) < 0.5 ? 1.0 : 0.0;
  vFlash = abs(aData.z - uFlash) < 0.5 ? 1.0 : 0.0;
  vNormal = normalize(normalMatrix * normal);
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
}`;

const vec3 = (rgb) => `vec3(${rgb.map((v) => v.toFixed(4)).join(", ")})`;
const FRAGMENT = /* glsl */ `
#define CUBE_COLOUR ${vec3(CUBE)}
#define MARKED_COLOUR ${vec3(MARKED_CUBE)}
#define PLAIN_INK_COLOUR ${vec3(PLAIN_INK)}
uniform sampler2D uAtlas;
uniform vec2 uGrid;
uniform float uColourInk;   // 1: the atlas holds coloured numbers (premultiplied RGBA)
uniform float uPlain;       // 1: the face's colour without light or edge shading (the atlas check)
varying vec2 vUv;
varying float vTile;
varying vec3 vNormal;
varying float vState;
varying vec3 vColour;
varying float vHover;
varying float vFlash;
varying float vHint;
void main() {
  vec3 base = vState > 1.5 ? vColour : (vState > 0.5 ? MARKED_COLOUR : CUBE_COLOUR);
  if ((vState < 1.5 || vState > 2.5) && vTile > -0.5) {
    // the tile index is the same at a face's four corners, but interpolated it can arrive as
    // 31.99998 for 32: floor(31.99998 / 16) is the row above and mod() a column past the
    // right edge, so a tile at the start of an atlas row was drawn as per-pixel noise
    float tileNo = floor(vTile + 0.5);
    float col = mod(tileNo, uGrid.x);
    float row = floor(tileNo / uGrid.x);
    vec2 uv = vec2((col + vUv.x) / uGrid.x, 1.0 - (row + 1.0 - vUv.y) / uGrid.y);
    vec4 t = texture2D(uAtlas, uv);
    if (uColourInk > 0.5) base = base * (1.0 - t.a) + t.rgb;
    else base = mix(base, vState > 0.5 ? vec3(1.0) : PLAIN_INK_COLOUR, t.a);
  }
  if (uPlain > 0.5) { gl_FragColor = vec4(base, 1.0); return; }
  float e = min(min(vUv.x, 1.0 - vUv.x), min(vUv.y, 1.0 - vUv.y));
  base *= mix(0.55, 1.0, smoothstep(0.0, 0.045, e));
  float light = max(dot(normalize(vNormal), normalize(vec3(0.35, 0.55, 1.0))), 0.0);
  vec3 c = base * (0.5 + 0.55 * light);
  c = mix(c, vec3(1.0, 0.78, 0.25), 0.3 * vHover);
  // a hint: its line lightly gold, the cubes it decides gold with a broad gold frame
  if (vHint > 0.5) {
    float frame = vHint > 1.5 ? 1.0 - smoothstep(0.1, 0.16, e) : 0.0;
    c = mix(c, vec3(1.0, 0.8, 0.15), vHint > 1.5 ? max(0.38, 0.9 * frame) : 0.2);
  }
  c = mix(c, vec3(0.9, 0.1, 0.1), 0.6 * vFlash);
  gl_FragColor = vec4(c, 1.0);
}`;

function main() {
  const maxSide = parseInt(document.querySelector('meta[name="nonogram-player-limit"]').content, 10) || 64;
  const dataText = $("nonogram-puzzle").textContent;
  let P;
  try {
    P = readPuzzle(dataText, maxSide);
  } catch (e) {
    const why = e instanceof PageError ? e.message : `${e.name}: ${e.message}`;
    showError(why.startsWith("This is") ? why : `This puzzle page cannot be played: ${why}.`);
    return;
  }
  const [X, Y, Z] = P.shape;
  const n = P.n;
  const idx = (x, y, z) => (x * Y + y) * Z + z;
  const storageKey = STORAGE_PREFIX + hashText(dataText);

  // ---- game state
  const cell = new Uint8Array(n);
  // colour puzzles (k ≥ 2): each cube of the model is painted its colour as well (Round 2);
  // paint[i] is the colour (1..k) a cube was painted, only ever the right one
  const K = P.k;
  const paint = new Uint8Array(n);
  let mistakes = 0, elapsedBefore = 0, solved = false;
  // hints shown (counted beside the mistakes), the hint on screen, strokes made this session
  let hints = 0, hint = null, hintMs = null, strokes = 0, saveMs = null, warmMs = null;
  let tool = "break", paintColour = 1;
  const undo = [];
  const size = [X, Y, Z];
  const slice = [0, 0, 0];   // >0: that many layers hidden from the high end; <0: from the low end
  let nonSolutionLeft = 0, toPaint = 0;
  function countLeft() {
    nonSolutionLeft = 0; toPaint = 0;
    for (let i = 0; i < n; i++) {
      if (!P.solution[i]) { if (cell[i] !== BROKEN) nonSolutionLeft++; }
      else if (K && paint[i] !== P.paint[i]) toPaint++;
    }
  }
  countLeft();
  const isSolved = () => nonSolutionLeft === 0 && toPaint === 0;
  let sessionStart = performance.now();

  function load() {
    let s = null;
    try { s = JSON.parse(localStorage.getItem(storageKey) || "null"); } catch (e) { s = null; }
    if (!s || typeof s.cells !== "string" || s.cells.length !== n) return;
    for (let i = 0; i < n; i++) {
      const v = s.cells.charCodeAt(i) - 48;
      if (v === BROKEN && P.solution[i]) continue;   // never trust a stored break of a model cube
      cell[i] = v === MARKED || v === BROKEN ? v : INTACT;
    }
    if (K && typeof s.paint === "string" && s.paint.length === n) {
      for (let i = 0; i < n; i++) {
        const c = s.paint.charCodeAt(i) - 48;
        // a stored paint counts only where it is the cube's colour (never trust it otherwise)
        if (c > 0 && c === P.paint[i] && cell[i] !== BROKEN) { paint[i] = c; if (cell[i] === MARKED) cell[i] = INTACT; }
      }
    }
    mistakes = Number.isInteger(s.mistakes) ? s.mistakes : 0;
    hints = Number.isInteger(s.hints) ? s.hints : 0;
    elapsedBefore = Number.isFinite(s.elapsed) ? s.elapsed : 0;
    countLeft();
    solved = isSolved();
  }
  function elapsed() { return solved ? elapsedBefore : elapsedBefore + (performance.now() - sessionStart); }
  // the characters "0"+v of a state array, built in chunks (one call with 262,144 arguments
  // is too many for some engines)
  function stateText(arr) {
    const codes = new Uint16Array(arr.length);
    for (let i = 0; i < arr.length; i++) codes[i] = 48 + arr[i];
    let out = "";
    for (let i = 0; i < codes.length; i += 8192) out += String.fromCharCode.apply(null, codes.subarray(i, i + 8192));
    return out;
  }
  function save() {
    const total = elapsed();
    if (!solved) { elapsedBefore = total; sessionStart = performance.now(); }
    const record = { cells: stateText(cell), mistakes, hints, elapsed: total, solved };
    if (K) record.paint = stateText(paint);
    try {
      localStorage.setItem(storageKey, JSON.stringify(record));
    } catch (e) { /* storage full or disabled (file:// in some browsers): play on without saving */ }
  }
  load();

  // ---- clues: one atlas tile per distinct clue text; every cube carries its three lines' tiles
  // A colour clue's tile shows the numbers of the colours in its line, each in its colour
  // (a line with no filled cube: one "0"); `tileItems` is what each tile shows.
  const labels = [], tileItems = [], tileOf = new Map();
  const itemsOf = (c) => {
    if (!K) return [{ text: c.text, colour: 0 }];
    const items = [];
    c.counts.forEach((v, j) => { if (v.total > 0) items.push({ text: v.text, colour: j + 1 }); });
    return items.length ? items : [{ text: "0", colour: 0 }];
  };
  const tile = (c) => {
    if (c === null) return -1;
    if (!tileOf.has(c.text)) { tileOf.set(c.text, labels.length); labels.push(c.text); tileItems.push(itemsOf(c)); }
    return tileOf.get(c.text);
  };
  const tilesX = new Int16Array(n), tilesY = new Int16Array(n), tilesZ = new Int16Array(n);
  for (let x = 0; x < X; x++) for (let y = 0; y < Y; y++) for (let z = 0; z < Z; z++) {
    const i = idx(x, y, z);
    tilesX[i] = tile(P.clues.x[y][z]);
    tilesY[i] = tile(P.clues.y[x][z]);
    tilesZ[i] = tile(P.clues.z[x][y]);
  }
  const atlas = K
    ? buildColourAtlas((tileItems.length ? tileItems : [[{ text: "0", colour: 0 }]]).map((items) => items.map(
      (it) => ({ text: it.text, rgb: it.colour ? P.inks[it.colour - 1] : ZERO_INK }))))
    : buildAtlas(labels.length ? labels : ["0"]);

  // ---- three.js scene. Puzzle z is up (as in Blender): three (x, y, z) = puzzle (x, z, -y).
  const canvas = $("view");
  let renderer;
  try {
    // no MSAA: the cube edges are drawn by the shader, and multisampling costs most where WebGL
    // runs on the CPU (SwiftShader)
    renderer = new WebGLRenderer({ canvas, antialias: false, powerPreference: "high-performance",
                                   preserveDrawingBuffer: true });
  } catch (e) {
    showError("This puzzle needs WebGL, which this browser has switched off or does not have.");
    return;
  }
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  // the most anisotropic filtering the device has: faces seen at a grazing angle (the top faces
  // from the default view) keep their numbers sharp along the slant instead of smearing
  atlas.texture.anisotropy = Math.max(1, renderer.capabilities.getMaxAnisotropy());
  renderer.setClearColor(new Color(BACKGROUND), 1);
  const scene = new Scene();
  const camera = new PerspectiveCamera(40, 1, 0.1, 1000);
  const material = new ShaderMaterial({
    vertexShader: VERTEX, fragmentShader: FRAGMENT,
    uniforms: { uAtlas: { value: atlas.texture }, uGrid: { value: [atlas.cols, atlas.rows] },
                uColourInk: { value: atlas.colour ? 1 : 0 }, uPlain: { value: 0 },
                uHover: { value: -1 }, uFlash: { value: -1 } },
  });
  // the face buffers grow (doubling) as breaking opens the block; 4 vertices, 6 indices a face
  let capacity = 0, buffers = null;
  const mesh = new Mesh(new BufferGeometry(), material);
  mesh.frustumCulled = false;
  scene.add(mesh);
  function ensureCapacity(faces) {
    if (faces <= capacity) return;
    capacity = Math.max(1024, 2 ** Math.ceil(Math.log2(faces)));
    const v = 4 * capacity;
    buffers = { position: new Float32Array(3 * v), normal: new Float32Array(3 * v), uv: new Float32Array(2 * v),
                aData: new Float32Array(4 * v), aColour: new Float32Array(3 * v) };
    const index = new Uint32Array(6 * capacity);
    for (let f = 0; f < capacity; f++) index.set([4 * f, 4 * f + 1, 4 * f + 2, 4 * f, 4 * f + 2, 4 * f + 3], 6 * f);
    const g = new BufferGeometry();
    for (const [name, arr] of Object.entries(buffers)) {
      const attr = new BufferAttribute(arr, name === "uv" ? 2 : name === "aData" ? 4 : 3);
      attr.setUsage(35048);   // DYNAMIC_DRAW
      g.setAttribute(name, attr);
    }
    g.setIndex(new BufferAttribute(index, 1));
    mesh.geometry.dispose();
    mesh.geometry = g;
  }
  const centre = new Vector3(X / 2, Z / 2, -Y / 2);

  // which cubes are drawn: in the slices, not broken (all but the model once solved)
  const lo = [0, 0, 0], hi = [X - 1, Y - 1, Z - 1];
  function updateRanges() {
    for (let a = 0; a < 3; a++) {
      const s = solved ? 0 : slice[a];
      lo[a] = s < 0 ? -s : 0;
      hi[a] = s > 0 ? size[a] - 1 - s : size[a] - 1;
    }
  }
  const present = (x, y, z) => x >= lo[0] && x <= hi[0] && y >= lo[1] && y <= hi[1] && z >= lo[2] && z <= hi[2]
    && (solved ? P.solution[idx(x, y, z)] === 1 : cell[idx(x, y, z)] !== BROKEN);
  let faceCount = 0;
  const tilesOf = [tilesX, tilesY, tilesZ];
  // presence of every cube with a border of absent ones, so the face test is one array read
  const SY = Z + 2, SX = (Y + 2) * (Z + 2);
  const pad = new Uint8Array((X + 2) * SX);
  const faceStep = FACES.map((F) => F.d[0] * SX + F.d[1] * SY + F.d[2]);
  function faceState(i) {
    if (solved) return SHOW_REVEALED;
    if (paint[i]) return SHOW_PAINTED;
    return cell[i] === MARKED ? SHOW_MARKED : SHOW_INTACT;
  }
  function faceColour(i) {
    if (solved) return P.palette ? P.palette[P.colours[i]] : K ? P.clueColours[P.paint[i] - 1] : REVEAL;
    return paint[i] ? P.inks[paint[i] - 1] : REVEAL;
  }
  // Every shown face has a slot of four vertices in the buffers; faceSlot[6 i + f] is the slot
  // of face f of cube i (-1: not shown). A full rebuild (start, slices, the reveal) fills the
  // slots in order; a change to one cube (a break, a mark, a paint, an undo) only frees and
  // fills the slots of its faces and of its neighbours' faces towards it, and uploads those.
  const faceSlot = new Int32Array(6 * n).fill(-1);
  let slotOwner = new Int32Array(0), freeSlots = [], used = 0;   // slots 0..used-1 are handed out
  let touched = [];                                               // slots written since the upload
  function growTo(slots) {
    if (slots <= capacity) return;
    const old = buffers;
    ensureCapacity(slots);
    if (old) for (const name of Object.keys(old)) buffers[name].set(old[name]);
    const owner = new Int32Array(capacity).fill(-1);
    owner.set(slotOwner);
    slotOwner = owner;
    touched = null;   // the new buffers are uploaded whole
  }
  function writeFace(slot, i, f) {
    const F = FACES[f];
    const z = i % Z, y = Math.floor(i / Z) % Y, x = Math.floor(i / (Y * Z));
    const cx = x + 0.5, cy = z + 0.5, cz = -(y + 0.5);
    const state = faceState(i), colour = faceColour(i), tileIndex = tilesOf[F.clue][i];
    const { position, normal, uv, aData, aColour } = buffers;
    for (let c = 0; c < 4; c++) {
      const j = 4 * slot + c, j3 = 3 * j;
      position[j3] = cx + F.at[3 * c]; position[j3 + 1] = cy + F.at[3 * c + 1]; position[j3 + 2] = cz + F.at[3 * c + 2];
      normal[j3] = F.n[0]; normal[j3 + 1] = F.n[1]; normal[j3 + 2] = F.n[2];
      uv[2 * j] = CORNERS[c][0]; uv[2 * j + 1] = CORNERS[c][1];
      aData[4 * j] = tileIndex; aData[4 * j + 1] = state; aData[4 * j + 2] = i; aData[4 * j + 3] = solved ? 0 : hintMark[i];
      aColour[j3] = colour[0]; aColour[j3 + 1] = colour[1]; aColour[j3 + 2] = colour[2];
    }
    slotOwner[slot] = 6 * i + f;
    faceSlot[6 * i + f] = slot;
    if (touched) touched.push(slot);
  }
  // show (write) or hide face f of cube i; a hidden face's slot becomes four equal points
  // (triangles of no area draw nothing) until a face takes it again
  function setFace(i, f, shown) {
    const slot = faceSlot[6 * i + f];
    if (shown) {
      if (slot >= 0) { writeFace(slot, i, f); return; }
      let s = freeSlots.pop();
      if (s === undefined) { growTo(used + 1); s = used++; }
      writeFace(s, i, f);
      faceCount++;
    } else if (slot >= 0) {
      buffers.position.fill(0, 12 * slot, 12 * slot + 12);
      slotOwner[slot] = -1;
      faceSlot[6 * i + f] = -1;
      freeSlots.push(slot);
      faceCount--;
      if (touched) touched.push(slot);
    }
  }
  function upload() {
    const g = mesh.geometry;
    for (const name of Object.keys(buffers)) {
      const attr = g.getAttribute(name);
      attr.clearUpdateRanges();
      if (touched === null) attr.addUpdateRange(0, 4 * used * attr.itemSize);
      else {
        // runs of consecutive slots, one upload each
        touched.sort((a, b) => a - b);
        for (let t = 0; t < touched.length;) {
          let e = t;
          while (e + 1 < touched.length && touched[e + 1] <= touched[e] + 1) e++;
          attr.addUpdateRange(4 * touched[t] * attr.itemSize, 4 * (touched[e] - touched[t] + 1) * attr.itemSize);
          t = e + 1;
        }
      }
      attr.needsUpdate = true;
    }
    g.setDrawRange(0, 6 * used);
    touched = [];
  }
  function rebuild() {
    updateRanges();
    pad.fill(0);
    for (let x = lo[0]; x <= hi[0]; x++) for (let y = lo[1]; y <= hi[1]; y++) {
      const row = (x + 1) * SX + (y + 1) * SY + 1, base = idx(x, y, 0);
      for (let z = lo[2]; z <= hi[2]; z++) {
        pad[row + z] = solved ? P.solution[base + z] : (cell[base + z] !== BROKEN ? 1 : 0);
      }
    }
    faceSlot.fill(-1);
    freeSlots = [];
    used = 0;
    faceCount = 0;
    growTo(1024);
    slotOwner.fill(-1);
    touched = null;
    for (let x = lo[0]; x <= hi[0]; x++) for (let y = lo[1]; y <= hi[1]; y++) for (let z = lo[2]; z <= hi[2]; z++) {
      const q = (x + 1) * SX + (y + 1) * SY + z + 1;
      if (!pad[q]) continue;
      const i = idx(x, y, z);
      for (let f = 0; f < 6; f++) if (!pad[q + faceStep[f]]) setFace(i, f, true);
    }
    touched = null;
    upload();
  }
  // after cube i changed (broken, mended by an undo, marked, painted): its faces and its
  // neighbours' faces towards it (then `upload()`)
  function refreshCube(i) {
    const z = i % Z, y = Math.floor(i / Z) % Y, x = Math.floor(i / (Y * Z));
    const q = (x + 1) * SX + (y + 1) * SY + z + 1;
    pad[q] = present(x, y, z) ? 1 : 0;
    for (let f = 0; f < 6; f++) {
      const nq = q + faceStep[f];
      setFace(i, f, pad[q] === 1 && !pad[nq]);
      const d = FACES[f].d, nx = x + d[0], ny = y + d[1], nz = z + d[2];
      if (nx < 0 || ny < 0 || nz < 0 || nx >= X || ny >= Y || nz >= Z) continue;
      setFace(idx(nx, ny, nz), f ^ 1, pad[nq] === 1 && !pad[q]);
    }
  }
  // the cubes with a face in view
  function drawnCubes() {
    const out = [];
    for (let i = 0; i < n; i++) {
      for (let f = 0; f < 6; f++) if (faceSlot[6 * i + f] >= 0) { out.push(i); break; }
    }
    return out;
  }

  // ---- camera: orbit around the block's centre, which sits in the middle of the free part of
  // the screen (the largest rectangle of the canvas no panel covers: on a phone the panels
  // take the top and bottom), fitted to fill it. The projection's view offset moves the centre
  // there, so picking, aiming and partial redraws (all through the camera) follow.
  const radius = 0.5 * Math.hypot(X, Y, Z);
  // the first view: from the front right, 41° above the horizon, so the top faces are not too
  // foreshortened to read (sin 41° = 0.66) and the side faces still face the player
  const HOME = { theta: 0.5, phi: 0.86 };
  const view = { theta: HOME.theta, phi: HOME.phi, dist: 1 };
  const LAYOUT_PANELS = ["hud", "tools", "palette", "slices", "help"];
  let free = { x: 0, y: 0, w: 1, h: 1 };
  function freeArea() {
    const c = canvas.getBoundingClientRect(), m = 4;
    const rects = [];
    // on a small screen the help is a tip that goes at the first touch: fitted without it
    const small = window.matchMedia(SMALL_SCREEN).matches;
    for (const id of LAYOUT_PANELS) {
      const el = $(id);
      if (el.classList.contains("hidden") || (small && id === "help") || getComputedStyle(el).display === "none") continue;
      const r = el.getBoundingClientRect();
      if (r.width && r.height) rects.push([r.left - c.left - m, r.top - c.top - m, r.right - c.left + m, r.bottom - c.top + m]);
    }
    return largestFreeRect(c.width, c.height, rects);
  }
  const corners = [];
  for (let c = 0; c < 8; c++) corners.push(new Vector3(c & 1 ? X : 0, c & 4 ? Z : 0, c & 2 ? -Y : 0));
  // the block's corners on the screen (CSS pixels from the canvas's top left)
  function blockRect() {
    const w = canvas.clientWidth || window.innerWidth, h = canvas.clientHeight || window.innerHeight;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    placeCamera();
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
  // Fit the block, seen from the current angles, to the free area: its outline centred there
  // (seen from above in perspective its outline is not centred on its middle) and as large as
  // fits. `fitted`: that distance, the zoom a resize keeps relative to.
  let fitted = 1, shift = [0, 0];
  function applyOffset() {
    const w = canvas.clientWidth || window.innerWidth, h = canvas.clientHeight || window.innerHeight;
    camera.setViewOffset(w, h, w / 2 - (free.x + free.w / 2) - shift[0], h / 2 - (free.y + free.h / 2) - shift[1], w, h);
    camera.updateProjectionMatrix();
  }
  function fitView() {
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
  function resetView() {
    view.theta = HOME.theta; view.phi = HOME.phi;
    fitView();
  }
  function placeCamera() {
    const s = Math.sin(view.phi);
    camera.position.set(centre.x + view.dist * s * Math.sin(view.theta), centre.y + view.dist * Math.cos(view.phi),
                        centre.z + view.dist * s * Math.cos(view.theta));
    camera.lookAt(centre);
    camera.near = Math.max(0.05, view.dist - radius * 2);
    camera.far = view.dist + radius * 2;
    camera.updateProjectionMatrix();
  }
  function resize() {
    const w = canvas.clientWidth || window.innerWidth, h = canvas.clientHeight || window.innerHeight;
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(1, h);
    free = freeArea();
    applyOffset();
  }

  // ---- drawing on demand (nothing runs while nobody touches the page). A change to a few
  // cubes (a break, a mark, a paint, the hover and flash highlights) redraws only the screen
  // rectangle those cubes cover: every pixel that changes lies inside it (what a broken cube
  // uncovers is behind it), and the rest of the frame is kept (preserveDrawingBuffer). Where
  // WebGL runs on the CPU, shading the whole block's pixels was ~90 % of a click's cost.
  let frames = 0, partialFrames = 0, firstFrameMs = null, lastActionMs = null, pending = null, timing = null;
  let dirtyAll = true, lastRect = null;
  const dirtyCubes = [];
  const pixel = new Uint8Array(4);
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
  function render() {
    if (!dirtyAll && dirtyCubes.length === 0) return;
    placeCamera();
    camera.updateMatrixWorld();
    const rect = dirtyAll ? null : screenRect(dirtyCubes);
    dirtyAll = false;
    dirtyCubes.length = 0;
    lastRect = rect;
    if (rect && rect.w === 0) return;   // off screen: nothing to draw
    if (rect) {
      renderer.setScissor(rect.x, rect.y, rect.w, rect.h);
      renderer.setScissorTest(true);
      partialFrames++;
    }
    renderer.render(scene, camera);
    renderer.setScissorTest(false);
    frames++;
  }
  function requestRender(cubes) {
    markDirty(cubes);
    if (pending !== null) return;
    pending = requestAnimationFrame(() => { pending = null; render(); });
  }

  // ---- picking: walk the grid cells along the ray (Amanatides & Woo)
  const ndc = new Vector3();
  function rayAt(clientX, clientY) {
    const r = canvas.getBoundingClientRect();
    ndc.set(((clientX - r.left) / r.width) * 2 - 1, -((clientY - r.top) / r.height) * 2 + 1, 0.5);
    placeCamera();
    ndc.unproject(camera);
    const o = camera.position;
    const d = ndc.clone().sub(o).normalize();
    // into grid coordinates: gx = wx, gy = -wz, gz = wy
    return { o: [o.x, -o.z, o.y], d: [d.x, -d.z, d.y] };
  }
  function pick(clientX, clientY) {
    const { o, d } = rayAt(clientX, clientY);
    let t0 = 0, t1 = Infinity;
    for (let a = 0; a < 3; a++) {
      if (Math.abs(d[a]) < 1e-12) { if (o[a] < 0 || o[a] > size[a]) return -1; continue; }
      let ta = (0 - o[a]) / d[a], tb = (size[a] - o[a]) / d[a];
      if (ta > tb) [ta, tb] = [tb, ta];
      t0 = Math.max(t0, ta); t1 = Math.min(t1, tb);
    }
    if (t0 > t1) return -1;
    const p = [0, 1, 2].map((a) => o[a] + d[a] * (t0 + 1e-6));
    const c = p.map((v, a) => Math.min(size[a] - 1, Math.max(0, Math.floor(v))));
    const step = d.map((v) => (v > 0 ? 1 : -1));
    const tMax = [0, 1, 2].map((a) => (Math.abs(d[a]) < 1e-12 ? Infinity
      : (c[a] + (d[a] > 0 ? 1 : 0) - o[a]) / d[a]));
    const tDelta = d.map((v) => (Math.abs(v) < 1e-12 ? Infinity : Math.abs(1 / v)));
    for (;;) {
      if (present(c[0], c[1], c[2])) return idx(c[0], c[1], c[2]);
      const a = tMax[0] < tMax[1] ? (tMax[0] < tMax[2] ? 0 : 2) : (tMax[1] < tMax[2] ? 1 : 2);
      c[a] += step[a];
      if (c[a] < 0 || c[a] >= size[a]) return -1;
      tMax[a] += tDelta[a];
    }
  }

  // ---- actions
  let toastTimer = null, flashTimer = null;
  function toast(text) {
    const el = $("toast");
    el.textContent = text;
    el.classList.remove("hidden");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => el.classList.add("hidden"), 1600);
  }
  function flash(i) {
    markDirty([material.uniforms.uFlash.value, i]);
    material.uniforms.uFlash.value = i;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => { material.uniforms.uFlash.value = -1; requestRender([i]); }, 450);
  }
  // after a change to the game; `cubes`: the cubes it changed (their rectangle is redrawn; none:
  // all of it). `persist` false: not saved yet (a stroke saves when it ends).
  function changed(eventTime, cubes, persist = true) {
    const t0 = performance.now();
    if (cubes === undefined || solved) rebuild();
    else {
      // one upload for all the cubes: an upload replaces the update ranges still waiting for
      // the next frame, so uploading after each cube sent only the last one's faces
      for (const i of cubes) refreshCube(i);
      upload();
    }
    updateHud();
    if (persist) save();
    const t1 = performance.now();
    markDirty(cubes === undefined || solved ? undefined : cubes);
    render();
    // wait until the frame is drawn: reading a pixel back cannot return before it is
    const gl = renderer.getContext();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    const t2 = performance.now();
    timing = { update: t1 - t0, render: t2 - t1, cubes: cubes ? cubes.length : n };
    if (eventTime !== undefined) lastActionMs = t2 - eventTime;
  }

  // What one action does to cube i. CHANGED: done (its undo step appended to `steps`); PASS:
  // nothing to change (a stroke goes on over it); STOP: a cube the action may not change (a
  // stroke ends there; `why` says why); MISTAKE: refused and counted (a stroke ends there).
  // Actions: "break", "mark", "unmark", "paint" (colour `c`).
  const CHANGED = 0, PASS = 1, STOP = 2, MISTAKE = 3;
  let why = "";
  function act(i, action, c, steps) {
    why = "";
    if (cell[i] === BROKEN) return PASS;
    if (action === "break") {
      if (cell[i] === MARKED) { why = "That cube is marked: unmark it to break it"; return STOP; }
      if (paint[i]) { why = "That cube is painted: it is part of the model"; return STOP; }
      if (P.solution[i]) {
        mistakes++;
        why = "That cube is part of the model: not broken (a mistake)";
        flash(i);
        return MISTAKE;
      }
      cell[i] = BROKEN;
      nonSolutionLeft--;
      steps.push(["break", i]);
    } else if (action === "mark" || action === "unmark") {
      if (paint[i]) { why = "That cube is painted: it is protected already"; return STOP; }
      if ((cell[i] === MARKED) === (action === "mark")) return PASS;
      cell[i] = action === "mark" ? MARKED : INTACT;
      steps.push(["mark", i]);
    } else {
      // paint a cube of a colour puzzle: only a cube of the model, only its own colour; anything
      // else is refused and counted as a mistake, as a wrong break is
      if (paint[i] === c) return PASS;
      if (paint[i]) { why = "That cube is painted already"; return STOP; }
      if (!P.solution[i] || P.paint[i] !== c) {
        mistakes++;
        why = P.solution[i] ? `That cube is not colour ${c}: not painted (a mistake)`
          : "That cube is not part of the model: not painted (a mistake)";
        flash(i);
        return MISTAKE;
      }
      steps.push(["paint", i, cell[i]]);
      paint[i] = c;
      cell[i] = INTACT;   // painting a marked cube takes its mark: paint protects it as well
      toPaint--;
    }
    hinter.touch(i);
    return CHANGED;
  }
  // the action a press on cube i starts, from the tool (and the button / Shift for marks)
  function actionAt(i, marking) {
    if (marking || tool === "mark") return cell[i] === MARKED ? "unmark" : "mark";
    return tool === "paint" ? "paint" : "break";
  }
  // one action on one cube (a click or tap), with its own undo step
  function actOn(i, action, eventTime) {
    if (solved || i < 0 || (action === "paint" && !K)) return;
    const steps = [];
    const r = act(i, action, paintColour, steps);
    if (why) toast(why);
    if (r === PASS) return;
    if (steps.length) undo.push(steps);
    afterAct([i], eventTime);
  }
  function afterAct(cubes, eventTime, persist = true) {
    const cleared = clearHint();
    const done = isSolved();
    if (done) finish();
    changed(eventTime, cleared.length ? cubes.concat(cleared) : cubes, persist || done);
    if (done) saveReveal();
  }
  // The reveal as a small picture beside the saved progress, for the catalogue (index.html) to
  // show once this puzzle is solved in this browser: the middle square of the frame.
  const REVEAL_KEY = storageKey + ":reveal";
  function saveReveal() {
    try {
      // a square round the block's outline on the screen (the model is inside it)
      const r = blockRect(), scale = canvas.width / (canvas.clientWidth || canvas.width);
      const side = Math.min(Math.max(r.w, r.h) * 1.04 * scale, canvas.width, canvas.height);
      const x = Math.min(Math.max(0, (r.x + r.w / 2) * scale - side / 2), canvas.width - side);
      const y = Math.min(Math.max(0, (r.y + r.h / 2) * scale - side / 2), canvas.height - side);
      const out = document.createElement("canvas");
      out.width = out.height = 192;
      out.getContext("2d").drawImage(canvas, x, y, side, side, 0, 0, 192, 192);
      localStorage.setItem(REVEAL_KEY, out.toDataURL("image/jpeg", 0.85));
    } catch (e) { /* no storage: the catalogue shows its own picture */ }
  }
  function forgetReveal() { try { localStorage.removeItem(REVEAL_KEY); } catch (e) { /* no storage */ } }
  function undoLast() {
    if (solved) return;
    const steps = undo.pop();
    if (!steps) { toast("Nothing to undo"); return; }
    const cubes = [];
    for (let j = steps.length - 1; j >= 0; j--) {
      const [what, i] = steps[j];
      if (what === "break") { cell[i] = INTACT; nonSolutionLeft++; }
      else if (what === "paint") { paint[i] = 0; cell[i] = steps[j][2]; toPaint++; }
      else cell[i] = cell[i] === MARKED ? INTACT : MARKED;
      hinter.touch(i);
      cubes.push(i);
    }
    afterAct(cubes);
  }

  // ---- strokes: press on a cube and drag along one of its three lines; every cube the
  // pointer passes on that line gets the press's action, as ONE undo step. The stroke ends at a
  // cube it may not change (marked, painted, or a model cube: that mistake is counted once),
  // at the block's or the slices' end.
  let stroke = null;
  const gridOf = (i) => [Math.floor(i / (Y * Z)), Math.floor(i / Z) % Y, i % Z];
  // the screen point (client pixels) of a point in grid coordinates
  const screenPoint = new Vector3();
  function toScreen(g) {
    const r = canvas.getBoundingClientRect();
    screenPoint.set(g[0], g[2], -g[1]).project(camera);
    return [r.left + ((screenPoint.x + 1) / 2) * r.width, r.top + ((1 - screenPoint.y) / 2) * r.height];
  }
  // which of the cube's three lines a drag by (dx, dy) pixels follows, and which way: the axis
  // whose on-screen direction is closest to the drag's (lines seen end-on are left out)
  function strokeAxis(i, dx, dy) {
    placeCamera();
    camera.updateMatrixWorld();
    const g = gridOf(i).map((v) => v + 0.5), [x0, y0] = toScreen(g);
    let best = null, bestCos = 0;
    for (let a = 0; a < 3; a++) {
      const h = g.slice();
      h[a] += 1;
      const [x1, y1] = toScreen(h), vx = x1 - x0, vy = y1 - y0, len = Math.hypot(vx, vy);
      if (len < 2) continue;
      const cos = (dx * vx + dy * vy) / (len * Math.hypot(dx, dy));
      if (Math.abs(cos) > bestCos) { bestCos = Math.abs(cos); best = { axis: a, dir: cos > 0 ? 1 : -1 }; }
    }
    return best;
  }
  // how many cells along the stroke's line (from its first cube, its way) the pointer is: the
  // point of the line nearest the pointer's ray
  function strokeReach(clientX, clientY) {
    const { o, d } = rayAt(clientX, clientY);
    const c = gridOf(stroke.start).map((v) => v + 0.5), a = stroke.axis;
    const w0 = [c[0] - o[0], c[1] - o[1], c[2] - o[2]];
    const b = d[a], denom = 1 - b * b;
    if (denom < 1e-6) return stroke.reached;
    const dd = w0[a], ee = d[0] * w0[0] + d[1] * w0[1] + d[2] * w0[2];
    const t = (b * ee - dd) / denom;
    return Math.max(0, Math.floor(stroke.dir * t + 0.5));
  }
  function startStroke(i, action, axis, dir) {
    stroke = { start: i, action, axis, dir, reached: -1, stopped: false, steps: [], cubes: [] };
    undo.push(stroke.steps);
  }
  // extend the stroke to `reach` cells from its first cube
  function extendStroke(reach, eventTime) {
    if (!stroke || stroke.stopped || solved) return;
    const g = gridOf(stroke.start), done = [];
    while (stroke.reached < reach && !stroke.stopped) {
      const j = stroke.reached + 1, p = g.slice();
      p[stroke.axis] += stroke.dir * j;
      if (p[stroke.axis] < lo[stroke.axis] || p[stroke.axis] > hi[stroke.axis]) { stroke.stopped = true; break; }
      const i = idx(p[0], p[1], p[2]);
      const r = act(i, stroke.action, paintColour, stroke.steps);
      stroke.reached = j;
      if (r === CHANGED || r === MISTAKE) done.push(i);
      if (r === STOP || r === MISTAKE) {
        stroke.stopped = true;
        if (why) toast(why);
      }
      if (isSolved()) break;
    }
    if (done.length) { stroke.cubes.push(...done); afterAct(done, eventTime, false); }
  }
  function endStroke() {
    if (!stroke) return;
    if (!stroke.steps.length && undo[undo.length - 1] === stroke.steps) undo.pop();
    strokes += stroke.cubes.length > 0 ? 1 : 0;
    stroke = null;
    const t = performance.now();
    save();   // once a stroke, when it ends
    saveMs = performance.now() - t;
  }

  // ---- hints: a line whose clue, from what the player has broken, marked and painted, decides
  // at least one more cube (web/src/hint.js); its cubes lit until the player acts
  const hinter = makeHinter(P);
  const hintMark = new Uint8Array(n);
  // what the player knows: broken cubes are empty, painted ones their colour, marked ones part
  // of the model, except a wrong mark (the one use of the solution: a mistaken belief is not
  // knowledge, and a hint built on it could be wrong)
  function knowledge() {
    const full = (1 << (K + 1)) - 1, s = K ? new Int32Array(n) : new Int8Array(n);
    for (let i = 0; i < n; i++) {
      if (cell[i] === BROKEN) s[i] = K ? 1 : EMPTY;
      else if (K && paint[i]) s[i] = 1 << paint[i];
      else if (cell[i] === MARKED && P.solution[i]) s[i] = K ? full & ~1 : FILLED;
      else s[i] = K ? full : UNKNOWN;
    }
    return s;
  }
  // a cube the player can see: one of its drawn faces turned towards the camera (a cube in
  // front may still hide it; good enough to prefer hints the player can act on)
  function shownCube(i) {
    const g = gridOf(i), eye = camera.position, e = [eye.x, -eye.z, eye.y];
    for (let f = 0; f < 6; f++) {
      if (faceSlot[6 * i + f] < 0) continue;
      const d = FACES[f].d;
      let dot = 0;
      for (let a = 0; a < 3; a++) dot += d[a] * (e[a] - (g[a] + 0.5 + 0.5 * d[a]));
      if (dot > 0) return true;
    }
    return false;
  }
  const clueText = (c) => (c.text.endsWith("o") ? c.text.slice(0, -1) + "○" : c.text.endsWith("s") ? c.text.slice(0, -1) + "□" : c.text);
  function lineText(line) {
    const names = ["X", "Y", "Z"], other = [[1, 2], [0, 2], [0, 1]][line.axis];
    const clue = K ? line.clue.counts.map((c, j) => (c.total ? `${clueText(c)} in colour ${j + 1}` : "")).filter(Boolean).join(", ") || "0"
      : clueText(line.clue);
    return `the ${names[line.axis]} line at ${"xyz"[other[0]]} ${line.a + 1}, ${"xyz"[other[1]]} ${line.b + 1} (clue ${clue})`;
  }
  function newsText(news) {
    const count = (a) => news.filter(([, b]) => b === a).length;
    const parts = [];
    if (count(BREAK)) parts.push(`${count(BREAK)} to break`);
    if (count(MODEL)) parts.push(`${count(MODEL)} part of the model`);
    for (let c = 1; c <= K; c++) if (count(paintAction(c))) parts.push(`${count(paintAction(c))} to paint colour ${c}`);
    return parts.join(", ");
  }
  function showHintFor(lineCubes, news, text) {
    const marked = [];
    for (const i of lineCubes) { hintMark[i] = 1; marked.push(i); }
    for (const [i] of news) { hintMark[i] = 2; marked.push(i); }
    hint = { cubes: marked, news: news.map(([i, a]) => [i, a]) };
    hints++;
    showHintPanel(text, false);
    changed(undefined, marked);
  }
  function askHint() {
    if (solved) return;
    const cleared = clearHint();
    if (cleared.length) changed(undefined, cleared, false);
    const t0 = performance.now();
    placeCamera();
    const r = hinter.find(knowledge(), shownCube, t0 + 2000);
    hintMs = performance.now() - t0;
    if (r.line >= 0) {
      const line = hinter.lines[r.line];
      hint = null;
      showHintFor(line.cells, r.news, `Hint: ${lineText(line)} decides ${newsText(r.news)}.`);
      hint.line = { axis: line.axis, a: line.a, b: line.b, id: r.line };
      return;
    }
    const skipped = r.skipped ? ` (${r.skipped} long colour line${r.skipped > 1 ? "s were" : " was"} too long to work out)` : "";
    const more = r.unfinished ? "No line decided anything in the time a hint may take: ask again to look further."
      : `No single line decides a cube now${skipped}.`;
    const probing = P.info.logic === "probe";
    showHintPanel(more + (probing ? " This puzzle was designed for probing: try a cube both ways." : ""), true, probing ? "Probe" : "Lines together");
  }
  // when no single line decides anything: all lines together, then probing
  function askDeeper() {
    if (solved) return;
    const state = knowledge(), order = [];
    for (let i = 0; i < n; i++) if (cell[i] !== BROKEN && !paint[i] && shownCube(i)) order.push(i);
    for (let i = 0; i < n; i++) if (cell[i] !== BROKEN && !paint[i] && !shownCube(i)) order.push(i);
    const t0 = performance.now();
    const r = deeper(hinter, state, K, order, t0 + 4000);
    hintMs = performance.now() - t0;
    if (r.kind === "lines") {
      showHintFor([], r.news, `Hint: several lines together decide ${newsText(r.news)} (each line narrows what the next one allows).`);
    } else if (r.kind === "probe") {
      const [x, y, z] = gridOf(r.cube), [, a] = r.news[0];
      const assumed = K ? (r.ruledOut === 1 ? "empty" : r.ruledOut === ((1 << (K + 1)) - 1 & ~1) ? "part of the model" : `colour ${31 - Math.clz32(r.ruledOut)}`)
        : r.ruledOut === EMPTY ? "empty" : "part of the model";
      const result = a === BREAK ? "so break it" : a === MODEL ? "so it is part of the model" : `so paint it colour ${a - 2}`;
      showHintFor([], r.news, `Hint (probing): if the cube at x ${x + 1}, y ${y + 1}, z ${z + 1} were ${assumed}, the lines would contradict each other: ${result}.`);
      hint.probe = { cube: r.cube, ruledOut: r.ruledOut };
    } else {
      showHintPanel("Nothing found in the time a hint may take.", false);
    }
  }
  // take the hint's highlight away (the player acted); the cubes to redraw
  function clearHint() {
    $("hint").classList.add("hidden");
    if (!hint) return [];
    const cubes = hint.cubes;
    for (const i of cubes) hintMark[i] = 0;
    hint = null;
    return cubes;
  }
  function showHintPanel(text, offerDeeper, deeperLabel) {
    $("hint-text").textContent = text;
    $("hint-deeper").classList.toggle("hidden", !offerDeeper);
    if (deeperLabel) $("hint-deeper").textContent = deeperLabel;
    $("hint").classList.remove("hidden");
    updateHud();
  }

  function finish() {
    solved = true;
    elapsedBefore += performance.now() - sessionStart;
    material.uniforms.uHover.value = -1;
    clearHint();
    showSolved();
  }
  function showSolved() {
    $("solved-text").textContent = `${P.name}: ${formatTime(elapsed())}, ${plural(mistakes, "mistake")}, ${plural(hints, "hint")}`;
    $("solved").classList.remove("hidden");
    $("slices").classList.add("hidden");
    $("palette").classList.add("hidden");
  }
  function restart() {
    cell.fill(INTACT);
    paint.fill(0);
    mistakes = 0; hints = 0; elapsedBefore = 0; sessionStart = performance.now(); solved = false; undo.length = 0;
    clearHint();
    hintMark.fill(0);
    hinter.reset();
    countLeft();
    $("solved").classList.add("hidden");
    $("slices").classList.remove("hidden");
    if (K) $("palette").classList.remove("hidden");
    forgetReveal();
    changed();
  }
  function setSlice(a, v) {
    v = Math.max(-(size[a] - 1), Math.min(size[a] - 1, v | 0));
    slice[a] = v;
    const input = $(`slice-${"xyz"[a]}`);
    input.value = String(v);
    $(`slice-${"xyz"[a]}-text`).textContent = v === 0 ? "all layers" : v > 0 ? `${v} hidden from +` : `${-v} hidden from −`;
    rebuild();
    requestRender();
  }
  function setTool(t, c) {
    tool = t;
    if (c !== undefined) paintColour = c;
    $("tool-break").classList.toggle("active", t === "break");
    $("tool-mark").classList.toggle("active", t === "mark");
    for (let j = 1; j <= K; j++) $(`paint-${j}`).classList.toggle("active", t === "paint" && paintColour === j);
  }
  // the palette bar of a colour puzzle: one button per clue colour (keys 1..k)
  if (K) {
    const bar = $("palette");
    for (let j = 1; j <= K; j++) {
      const b = document.createElement("button");
      b.id = `paint-${j}`;
      b.className = "swatch";
      b.textContent = String(j);
      const rgb = P.inks[j - 1];
      b.style.background = `rgb(${rgb.map((v) => Math.round(v * 255)).join(",")})`;
      b.style.color = 0.2126 * rgb[0] ** 2.2 + 0.7152 * rgb[1] ** 2.2 + 0.0722 * rgb[2] ** 2.2 > 0.3 ? "#111" : "#fff";
      b.title = `Paint colour ${j} (key ${j})`;
      b.addEventListener("click", () => setTool("paint", j));
      bar.appendChild(b);
    }
    bar.classList.remove("hidden");
    $("help").textContent += ` · 1–${K}: paint`;
  }

  // ---- HUD
  function formatTime(ms) {
    const s = Math.floor(ms / 1000);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    return (h ? `${h}:${String(m).padStart(2, "0")}` : `${m}`) + `:${String(r).padStart(2, "0")}`;
  }
  function updateHud() {
    $("time").textContent = formatTime(elapsed());
    $("mistakes").textContent = plural(mistakes, "mistake");
    $("hints").textContent = plural(hints, "hint");
    $("left").textContent = solved ? "solved" : K ? `${nonSolutionLeft} to break · ${toPaint} to paint` : `${nonSolutionLeft} to break`;
  }
  const band = typeof P.info.band === "string" && P.info.band ? ` · ${P.info.band}` : "";
  $("title").textContent = `${P.name} · ${X}×${Y}×${Z}${band}`;
  document.title = `${P.name} · Nonogram 3D`;
  setInterval(() => { if (!solved) $("time").textContent = formatTime(elapsed()); }, 1000);

  // ---- input: mouse, touch and pen through pointer events. A press on a cube and a drag
  // along one of its lines is a stroke; a drag that starts on the background, with the middle
  // button, with Alt or Ctrl held, or with two fingers turns the view (two fingers also zoom).
  const pointers = new Map();
  let drag = null, pinch = null;
  const STROKE_START = 6;   // pixels a press moves before it is a drag, not a click
  canvas.addEventListener("contextmenu", (e) => e.preventDefault());
  canvas.addEventListener("pointerdown", (e) => {
    canvas.focus();
    canvas.setPointerCapture(e.pointerId);
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 1) {
      const turn = e.button === 1 || e.altKey || e.ctrlKey || e.metaKey;
      const cube = solved || turn ? -1 : pick(e.clientX, e.clientY);
      drag = { x: e.clientX, y: e.clientY, moved: false, cube, rotate: cube < 0, marking: e.button === 2 || e.shiftKey };
    } else if (pointers.size === 2) {
      // a second finger: a stroke in progress ends where it got to; the fingers turn and zoom
      endStroke();
      const [a, b] = [...pointers.values()];
      pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), dist: view.dist, mx: (a.x + b.x) / 2, my: (a.y + b.y) / 2 };
      drag = null;
    }
  });
  function turnView(dx, dy) {
    view.theta -= dx * 0.008;
    view.phi = Math.min(Math.PI - 0.05, Math.max(0.05, view.phi - dy * 0.008));
  }
  canvas.addEventListener("pointermove", (e) => {
    const p = pointers.get(e.pointerId);
    if (!p) {
      if (e.pointerType === "mouse" && !solved) {
        const i = pick(e.clientX, e.clientY);
        const was = material.uniforms.uHover.value;
        if (i !== was) { material.uniforms.uHover.value = i; requestRender([was, i]); }
      }
      return;
    }
    const dx = e.clientX - p.x, dy = e.clientY - p.y;
    p.x = e.clientX; p.y = e.clientY;
    if (pinch && pointers.size >= 2) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y), mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
      view.dist = clampDist(pinch.dist * (pinch.d / Math.max(1, d)));
      turnView(mx - pinch.mx, my - pinch.my);
      pinch.mx = mx; pinch.my = my;
      requestRender();
      return;
    }
    if (!drag) return;
    if (!drag.moved) {
      if (Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < STROKE_START) return;
      drag.moved = true;
      if (!drag.rotate) {
        const along = strokeAxis(drag.cube, e.clientX - drag.x, e.clientY - drag.y);
        if (along) startStroke(drag.cube, actionAt(drag.cube, drag.marking), along.axis, along.dir);
        else drag.rotate = true;
      }
    }
    if (drag.rotate) { turnView(dx, dy); requestRender(); return; }
    extendStroke(strokeReach(e.clientX, e.clientY), e.timeStamp);
  });
  function pointerEnd(e) {
    if (!pointers.has(e.pointerId)) return;
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (drag && !drag.moved && e.type === "pointerup" && pointers.size === 0 && drag.cube >= 0) {
      // a click or a tap: the pressed cube gets the tool's action
      actOn(drag.cube, actionAt(drag.cube, drag.marking || e.shiftKey), e.timeStamp);
    }
    if (pointers.size === 0) { endStroke(); drag = null; }
  }
  canvas.addEventListener("pointerup", pointerEnd);
  canvas.addEventListener("pointercancel", pointerEnd);
  const clampDist = (d) => Math.min(fitted * 4, Math.max(radius * 1.05, d));
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    view.dist = clampDist(view.dist * Math.exp(e.deltaY * 0.0012));
    requestRender();
  }, { passive: false });
  window.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement && e.key.startsWith("Arrow")) return;
    const k = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && k === "z") { e.preventDefault(); undoLast(); return; }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "ArrowLeft") view.theta -= 0.12;
    else if (e.key === "ArrowRight") view.theta += 0.12;
    else if (e.key === "ArrowUp") view.phi = Math.max(0.05, view.phi - 0.12);
    else if (e.key === "ArrowDown") view.phi = Math.min(Math.PI - 0.05, view.phi + 0.12);
    else if (k === "+" || k === "=") view.dist = clampDist(view.dist / 1.15);
    else if (k === "-" || k === "_") view.dist = clampDist(view.dist * 1.15);
    else if (k === "u") { undoLast(); return; }
    else if (k === "h") { askHint(); return; }
    else if (k === "b") { setTool("break"); return; }
    else if (k === "m") { setTool("mark"); return; }
    else if (K && k >= "1" && k <= String(K) && k.length === 1) { setTool("paint", k.charCodeAt(0) - 48); return; }
    else if (k === "r") resetView();
    else if (k === "x" || k === "y" || k === "z") {
      if (solved) return;
      const a = "xyz".indexOf(k);
      setSlice(a, slice[a] + (e.shiftKey ? -1 : 1));
      return;
    } else return;
    e.preventDefault();
    requestRender();
  });
  for (let a = 0; a < 3; a++) {
    const input = $(`slice-${"xyz"[a]}`);
    input.min = String(-(size[a] - 1));
    input.max = String(size[a] - 1);
    input.addEventListener("input", () => setSlice(a, parseInt(input.value, 10) || 0));
    $(`slice-${"xyz"[a]}-text`).textContent = "all layers";
  }
  $("tool-break").addEventListener("click", () => setTool("break"));
  $("tool-mark").addEventListener("click", () => setTool("mark"));
  $("undo").addEventListener("click", () => undoLast());
  $("hint-button").addEventListener("click", () => askHint());
  $("hint-deeper").addEventListener("click", () => askDeeper());
  $("hint-close").addEventListener("click", () => { const c = clearHint(); if (c.length) changed(undefined, c, false); });
  $("reset-view").addEventListener("click", () => { resetView(); requestRender(); });
  $("restart").addEventListener("click", () => {
    const started = cell.some((v) => v !== INTACT) || paint.some((v) => v !== 0) || mistakes > 0;
    if (!started || window.confirm("Start this puzzle again? Your progress is lost.")) restart();
  });
  $("play-again").addEventListener("click", () => restart());
  window.addEventListener("resize", () => {
    // a turned phone or a resized window: fitted anew, at the same zoom relative to the fit
    const zoom = view.dist / fitted;
    resize();
    fitView();
    view.dist = clampDist(fitted * zoom);
    requestRender();
  });
  window.addEventListener("pagehide", save);
  document.addEventListener("visibilitychange", () => { if (document.hidden) save(); else sessionStart = performance.now(); });

  // Every atlas tile drawn by the block's shader (without light or edge shading) on a square
  // laid out as in the atlas, px pixels a side. `tilt` (degrees): each square turned back about
  // its horizontal middle and seen in perspective, as the block's faces are: only then does the
  // interpolated tile index come out a hair off a whole number (the speckled tiles of #39).
  // Returns the pixels, the atlas and each square's corners on screen (uv (0,0) (1,0) (1,1) (0,1)).
  function renderTiles(px, tilt) {
    const cols = atlas.cols, rows = atlas.rows, count = cols * rows, w = cols * px, h = rows * px;
    const a = (tilt * Math.PI) / 180;
    const pos = [], nor = [], uv = [], data = [], col = [], index = [];
    for (let t = 0; t < count; t++) {
      const x = t % cols, y = rows - 1 - Math.floor(t / cols);
      CORNERS.forEach(([u, v]) => {
        pos.push(x + u, y + 0.5 + (v - 0.5) * Math.cos(a), -(v - 0.5) * Math.sin(a));
        nor.push(0, Math.sin(a), Math.cos(a)); uv.push(u, v); data.push(t, SHOW_INTACT, -1, 0); col.push(0, 0, 0);
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
             colour: atlas.colour, labels: labels.length, cube: CUBE, plainInk: PLAIN_INK };
  }

  // ---- a read-only window on the game for tests and benchmarks
  const clueTables = () => {
    // as in the puzzle file: a colour clue is its list of counts
    const text = (t) => (t < 0 ? null : K ? labels[t].split("|") : labels[t]);
    return {
      x: Array.from({ length: Y }, (_, y) => Array.from({ length: Z }, (_, z) => text(tilesX[idx(0, y, z)]))),
      y: Array.from({ length: X }, (_, x) => Array.from({ length: Z }, (_, z) => text(tilesY[idx(x, 0, z)]))),
      z: Array.from({ length: X }, (_, x) => Array.from({ length: Y }, (_, y) => text(tilesZ[idx(x, y, 0)]))),
    };
  };
  const clueDrawings = () => {
    const items = (t) => (t < 0 ? null : tileItems[t].map((it) => [it.text, it.colour]));
    return {
      x: Array.from({ length: Y }, (_, y) => Array.from({ length: Z }, (_, z) => items(tilesX[idx(0, y, z)]))),
      y: Array.from({ length: X }, (_, x) => Array.from({ length: Z }, (_, z) => items(tilesY[idx(x, 0, z)]))),
      z: Array.from({ length: X }, (_, x) => Array.from({ length: Y }, (_, y) => items(tilesZ[idx(x, y, 0)]))),
    };
  };
  // a point on the screen where a click reaches cube i (the centre of a face of it that the
  // camera sees and nothing covers), or null
  function aim(i) {
    const z = i % Z, y = Math.floor(i / Z) % Y, x = Math.floor(i / (Y * Z));
    const r = canvas.getBoundingClientRect();
    const centres = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];
    placeCamera();
    for (const [dx, dy, dz] of centres) {
      const w = new Vector3(x + 0.5 + 0.45 * dx, z + 0.5 + 0.45 * dz, -(y + 0.5 + 0.45 * dy)).project(camera);
      if (Math.abs(w.x) > 1 || Math.abs(w.y) > 1) continue;
      const px = r.left + ((w.x + 1) / 2) * r.width, py = r.top + ((1 - w.y) / 2) * r.height;
      if (document.elementFromPoint(px, py) !== canvas) continue;
      if (pick(px, py) === i) return { x: px, y: py };
    }
    return null;
  }
  window.nonogram = Object.freeze({
    state: () => ({
      ready: true, error: null, name: P.name, shape: [X, Y, Z], clues: clueTables(), labels: labels.slice(),
      // what each line's tile draws: [text, colour (1..k; 0 the plain ink)] per number
      drawnClues: clueDrawings(),
      clueColours: K ? P.clueColours.map((c) => c.slice()) : null, inks: K ? P.inks.map((c) => c.slice()) : null, k: K,
      paints: Array.from(paint), tool, paintColour, toPaint,
      cells: Array.from(cell), mistakes, solved, elapsedMs: elapsed(), slices: slice.slice(),
      visible: { lo: lo.slice(), hi: hi.slice() }, drawn: drawnCubes(), faces: faceCount,
      revealed: solved && !$("solved").classList.contains("hidden"), undoDepth: undo.length,
      view: { theta: view.theta, phi: view.phi, dist: view.dist },
      frames, partialFrames, lastRect, firstFrameMs, lastActionMs, timing, left: nonSolutionLeft, hasColours: P.palette !== null,
      hints, hintMs, warmMs, strokes, saveMs, stroke: stroke && { start: stroke.start, axis: stroke.axis, dir: stroke.dir, reached: stroke.reached },
      hint: hint && { line: hint.line || null, news: hint.news, probe: hint.probe || null,
                      text: $("hint-text").textContent },
      hintShown: !$("hint").classList.contains("hidden"), hintText: $("hint-text").textContent,
      storageKey,
    }),
    aim, pick: (cx, cy) => pick(cx, cy),
    // where the centre of cube i is on the screen (client pixels), seen or not
    // the free area the block is fitted in and the block's corners on the screen (CSS pixels
    // from the canvas's top left)
    layout: () => ({ free: { ...free }, block: blockRect() }),
    screenOf: (i) => { placeCamera(); camera.updateMatrixWorld(); return toScreen(gridOf(i).map((v) => v + 0.5)); },
    atlas: () => ({ url: atlas.canvas.toDataURL("image/png"), cols: atlas.cols, rows: atlas.rows, tile: atlas.tile }),
    // a hash of the frame on screen; `full`: rebuild the faces and draw the whole frame first
    // (tests compare what per-cube updates and partial redraws left with a full redraw)
    frameHash: (full = false) => {
      if (full) { rebuild(); markDirty(); render(); }
      const gl = renderer.getContext();
      const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight, px = new Uint8Array(4 * w * h);
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
      let a = 0x811c9dc5;
      for (let j = 0; j < px.length; j++) { a ^= px[j]; a = Math.imul(a, 0x01000193) >>> 0; }
      return a.toString(16);
    },
    // every atlas tile drawn by the block's own shader on a face-on square of px × px pixels,
    // laid out as the atlas is, without light or edge shading: tests compare it with the atlas
    renderTiles: (px = atlas.tile, tilt = 0) => renderTiles(px, tilt),
    // how long drawing takes (benchmarks): n renders, each waited for by reading a pixel back
    timeRenders: (count = 5) => {
      const gl = renderer.getContext(), out = [];
      for (let k = 0; k < count; k++) {
        const t = performance.now();
        markDirty();
        render();
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
        out.push(performance.now() - t);
      }
      return out;
    },
  });

  // on a small screen the help is a tip until the player first touches or types
  $("help").classList.add("tip");
  const seen = () => $("help").classList.add("seen");
  document.addEventListener("pointerdown", seen, { once: true, capture: true });
  document.addEventListener("keydown", seen, { once: true, capture: true });
  updateHud();   // first: the panels at their size before the free area is measured
  resize();
  resetView();
  rebuild();
  if (solved) showSolved();
  render();
  requestAnimationFrame(() => { firstFrameMs = performance.now(); });
  // The first hint would pay for compiling the line solvers (a 36³ block's first scan took 180
  // ms, the next ones 10-20 ms): once the page is idle after opening, a throwaway hint finder
  // scans the lines once, so the code is compiled. Nothing it finds is kept.
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 200));
  idle(() => {
    if (solved) return;
    const t = performance.now();
    makeHinter(P).find(knowledge());
    warmMs = performance.now() - t;
  });
}

try {
  main();
} catch (e) {
  showError(`This puzzle page failed to start: ${e && e.message ? e.message : e}`);
  throw e;
}
