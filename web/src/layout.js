// Where the block goes on the screen: the part of the canvas the panels leave free.

// The largest free rectangle of a w × h area with `rects` ([x0, y0, x1, y1]) taken: corners
// on the rectangles' edges, the one a block fits biggest (its shorter side), then the largest.
export function largestFreeRect(w, h, rects) {
  const xs = [0, w], ys = [0, h];
  for (const [x0, y0, x1, y1] of rects) {
    for (const x of [x0, x1]) if (x > 0 && x < w) xs.push(x);
    for (const y of [y0, y1]) if (y > 0 && y < h) ys.push(y);
  }
  let best = { x: 0, y: 0, w, h }, score = -1;
  for (const xa of xs) for (const xb of xs) {
    if (xb <= xa) continue;
    for (const ya of ys) for (const yb of ys) {
      if (yb <= ya) continue;
      if (rects.some(([x0, y0, x1, y1]) => x0 < xb && x1 > xa && y0 < yb && y1 > ya)) continue;
      const sc = Math.min(xb - xa, yb - ya) + 1e-6 * (xb - xa) * (yb - ya);
      if (sc > score) { score = sc; best = { x: xa, y: ya, w: xb - xa, h: yb - ya }; }
    }
  }
  return best;
}
