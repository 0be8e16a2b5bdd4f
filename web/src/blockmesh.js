// The block as ONE mesh of the cube faces in view: a face whose neighbour is broken, sliced
// away or outside the block. A 36³ block draws about 8,000 faces, not 46,656 cubes. One mesh,
// not an InstancedMesh: where WebGL runs on the CPU (SwiftShader, headless Chromium) every
// instance costs ~15 µs, so 7,000 instanced cubes took ~150 ms a frame; the merged faces take a
// few ms there and less on a GPU.
//
// Every shown face has a slot of four vertices in the buffers. A full rebuild (start, slices,
// the reveal) fills the slots in order; a change to one cube (a break, a mark, a paint, an
// undo) only frees and fills the slots of its faces and of its neighbours' faces towards it,
// and uploads those.
import { BufferAttribute, BufferGeometry, Mesh } from "three";
import { BROKEN, MARKED } from "./game.js";
import { CORNERS, FACES } from "./grid.js";
import { REVEAL, SHOW_INTACT, SHOW_MARKED, SHOW_PAINTED, SHOW_REVEALED } from "./shading.js";

// Which cubes are drawn along each axis (`lo`..`hi`, written into them): the slices' range
// (slice[a] > 0: that many layers hidden from the high end; < 0: from the low end), the whole
// block once solved.
export function visibleRange(slice, shape, solved, lo, hi) {
  for (let a = 0; a < 3; a++) {
    const s = solved ? 0 : slice[a];
    lo[a] = s < 0 ? -s : 0;
    hi[a] = s > 0 ? shape[a] - 1 - s : shape[a] - 1;
  }
}

// The mesh of game `game` (web/src/game.js): `clueTiles[a][i]` the atlas tile of cube i's
// a-line, `hintMark[i]` how a hint lights cube i (0 none, 1 its line, 2 a cube it decides),
// `slice` the slices (read at each rebuild).
export function makeBlockMesh(game, clueTiles, hintMark, material, slice) {
  const P = game.P, shape = P.shape, [X, Y, Z] = shape, n = P.n;
  const { cells, paints } = game;
  const idx = (x, y, z) => (x * Y + y) * Z + z;
  const lo = [0, 0, 0], hi = [X - 1, Y - 1, Z - 1];
  // the face buffers grow (doubling) as breaking opens the block; 4 vertices, 6 indices a face
  let capacity = 0, buffers = null;
  const mesh = new Mesh(new BufferGeometry(), material);
  mesh.frustumCulled = false;
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

  // presence of every cube with a border of absent ones, so the face test is one array read
  const present = (x, y, z) => x >= lo[0] && x <= hi[0] && y >= lo[1] && y <= hi[1] && z >= lo[2] && z <= hi[2]
    && (game.solved ? P.solution[idx(x, y, z)] === 1 : cells[idx(x, y, z)] !== BROKEN);
  const SY = Z + 2, SX = (Y + 2) * (Z + 2);
  const pad = new Uint8Array((X + 2) * SX);
  const faceStep = FACES.map((F) => F.d[0] * SX + F.d[1] * SY + F.d[2]);
  function faceState(i) {
    if (game.solved) return SHOW_REVEALED;
    if (paints[i]) return SHOW_PAINTED;
    return cells[i] === MARKED ? SHOW_MARKED : SHOW_INTACT;
  }
  function faceColour(i) {
    if (game.solved) return P.palette ? P.palette[P.colours[i]] : P.k ? P.clueColours[P.paint[i] - 1] : REVEAL;
    return paints[i] ? P.inks[paints[i] - 1] : REVEAL;
  }
  // faceSlot[6 i + f]: the slot of face f of cube i (-1: not shown)
  const faceSlot = new Int32Array(6 * n).fill(-1);
  let slotOwner = new Int32Array(0), freeSlots = [], used = 0;   // slots 0..used-1 are handed out
  let touched = [];                                               // slots written since the upload
  let faceCount = 0;
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
    const state = faceState(i), colour = faceColour(i), tileIndex = clueTiles[F.clue][i];
    const { position, normal, uv, aData, aColour } = buffers;
    const hint = game.solved ? 0 : hintMark[i];
    for (let c = 0; c < 4; c++) {
      const j = 4 * slot + c, j3 = 3 * j;
      position[j3] = cx + F.at[3 * c]; position[j3 + 1] = cy + F.at[3 * c + 1]; position[j3 + 2] = cz + F.at[3 * c + 2];
      normal[j3] = F.n[0]; normal[j3 + 1] = F.n[1]; normal[j3 + 2] = F.n[2];
      uv[2 * j] = CORNERS[c][0]; uv[2 * j + 1] = CORNERS[c][1];
      aData[4 * j] = tileIndex; aData[4 * j + 1] = state; aData[4 * j + 2] = i; aData[4 * j + 3] = hint;
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
  // send the slots written since the last upload to the GPU (all of them after a rebuild)
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
  // every face anew (the start, a slice, the reveal, a restart), uploaded
  function rebuild() {
    visibleRange(slice, shape, game.solved, lo, hi);
    pad.fill(0);
    for (let x = lo[0]; x <= hi[0]; x++) for (let y = lo[1]; y <= hi[1]; y++) {
      const row = (x + 1) * SX + (y + 1) * SY + 1, base = idx(x, y, 0);
      for (let z = lo[2]; z <= hi[2]; z++) {
        pad[row + z] = game.solved ? P.solution[base + z] : (cells[base + z] !== BROKEN ? 1 : 0);
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
  // after cube i changed (broken, mended by an undo, marked, painted, lit by a hint): its faces
  // and its neighbours' faces towards it (then `upload()`)
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
  return {
    mesh, lo, hi, present, rebuild, refreshCube, upload, drawnCubes,
    faceShown: (i, f) => faceSlot[6 * i + f] >= 0,
    faceCount: () => faceCount,
  };
}
