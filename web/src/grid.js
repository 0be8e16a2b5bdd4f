// The block's grid: a cube's index and its place, the six faces of a cube, and which cube a ray
// from the eye reaches first (picking walks the grid cells along the ray, not the triangles).
// Plain functions and tables, no DOM and no WebGL.

// cube i of a block of shape [X, Y, Z] is at (x, y, z) with i = (x Y + y) Z + z
export const indexOf = (shape, x, y, z) => (x * shape[1] + y) * shape[2] + z;
export const placeOf = (shape, i) => [Math.floor(i / (shape[1] * shape[2])), Math.floor(i / shape[2]) % shape[1], i % shape[2]];

// The six faces of a cube in three.js coordinates (puzzle z is up: three (x, y, z) = puzzle
// (x, z, -y)): normal n, and the directions U (right) and V (up) of the face's clue as seen
// from outside (U × V = n, so the two triangles face out). Top faces read from the front.
// `clue`: which puzzle line's clue the face shows (0 x-line, 1 y-line, 2 z-line);
// `d`: the puzzle-grid step to the neighbour behind the face.
export const FACES = [
  { n: [1, 0, 0], u: [0, 0, -1], v: [0, 1, 0], clue: 0, d: [1, 0, 0] },
  { n: [-1, 0, 0], u: [0, 0, 1], v: [0, 1, 0], clue: 0, d: [-1, 0, 0] },
  { n: [0, 1, 0], u: [1, 0, 0], v: [0, 0, -1], clue: 2, d: [0, 0, 1] },
  { n: [0, -1, 0], u: [1, 0, 0], v: [0, 0, 1], clue: 2, d: [0, 0, -1] },
  { n: [0, 0, 1], u: [1, 0, 0], v: [0, 1, 0], clue: 1, d: [0, -1, 0] },
  { n: [0, 0, -1], u: [-1, 0, 0], v: [0, 1, 0], clue: 1, d: [0, 1, 0] },
];
export const CORNERS = [[0, 0], [1, 0], [1, 1], [0, 1]];
// each face's four corners relative to its cube's centre, in CORNERS order
for (const F of FACES) {
  F.at = CORNERS.flatMap(([u, v]) => [0, 1, 2].map((a) => 0.5 * F.n[a] + (u - 0.5) * F.u[a] + (v - 0.5) * F.v[a]));
}

// The first cube a ray (origin o, direction d, in grid coordinates) reaches for which
// `present(x, y, z)` holds, or -1: the grid cells along the ray in order (Amanatides & Woo).
export function pickCube(o, d, size, present) {
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
    if (present(c[0], c[1], c[2])) return indexOf(size, c[0], c[1], c[2]);
    const a = tMax[0] < tMax[1] ? (tMax[0] < tMax[2] ? 0 : 2) : (tMax[1] < tMax[2] ? 1 : 2);
    c[a] += step[a];
    if (c[a] < 0 || c[a] >= size[a]) return -1;
    tMax[a] += tDelta[a];
  }
}

// Whether cube i has a drawn face (`shown(i, f)`) turned towards the eye (grid coordinates): a
// cube the player can see, though a cube in front may still hide it. (A hint asks this of
// thousands of cubes: no arrays made.)
export function facesEye(shape, i, eye, shown) {
  const Y = shape[1], Z = shape[2];
  const x = Math.floor(i / (Y * Z)) + 0.5, y = Math.floor(i / Z) % Y + 0.5, z = i % Z + 0.5;
  for (let f = 0; f < 6; f++) {
    if (!shown(i, f)) continue;
    const d = FACES[f].d;
    const dot = d[0] * (eye[0] - x - 0.5 * d[0]) + d[1] * (eye[1] - y - 0.5 * d[1]) + d[2] * (eye[2] - z - 0.5 * d[2]);
    if (dot > 0) return true;
  }
  return false;
}
