// The clue numbers, drawn once into one texture (an atlas of tiles) that every cube samples.
import { CanvasTexture, LinearFilter, LinearMipmapLinearFilter } from "three";

export const TILE = 128;

// labels: the distinct clue texts ("3", "2o", "4s"); returns the texture and its grid size.
export function buildAtlas(labels) {
  const cols = Math.max(1, Math.min(16, labels.length));
  const rows = Math.max(1, Math.ceil(labels.length / cols));
  const canvas = document.createElement("canvas");
  canvas.width = cols * TILE;
  canvas.height = rows * TILE;
  const g = canvas.getContext("2d");
  g.clearRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = "#000";
  g.strokeStyle = "#000";
  g.textAlign = "center";
  g.textBaseline = "middle";
  labels.forEach((label, i) => {
    const cx = (i % cols) * TILE + TILE / 2;
    const cy = Math.floor(i / cols) * TILE + TILE / 2;
    const kind = label.endsWith("o") ? "circle" : label.endsWith("s") ? "square" : "plain";
    const number = kind === "plain" ? label : label.slice(0, -1);
    const size = number.length > 1 ? 0.5 : 0.62;
    g.font = `bold ${Math.round(TILE * size)}px system-ui, "DejaVu Sans", Arial, sans-serif`;
    g.fillText(number, cx, cy + TILE * 0.03);
    g.lineWidth = TILE * 0.06;
    if (kind === "circle") {
      g.beginPath();
      g.arc(cx, cy, TILE * 0.37, 0, 2 * Math.PI);
      g.stroke();
    } else if (kind === "square") {
      const h = TILE * 0.35;
      g.strokeRect(cx - h, cy - h, 2 * h, 2 * h);
    }
  });
  const texture = new CanvasTexture(canvas);
  texture.minFilter = LinearMipmapLinearFilter;
  texture.magFilter = LinearFilter;
  texture.anisotropy = 8;   // the top faces are seen at a slant
  return { texture, cols, rows, canvas };
}
