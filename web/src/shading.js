// How the block is shaded: the cube colours, and the shader every face of the block is drawn
// with (its clue number sampled from the atlas, the cube's state, the hover, a mistake's flash
// and a hint's highlight, edge and light shading).
import { ShaderMaterial } from "three";

// what the shader draws a face as (aData.y)
export const SHOW_INTACT = 0, SHOW_MARKED = 1, SHOW_REVEALED = 2, SHOW_PAINTED = 3;
export const ZERO_INK = [0.1, 0.1, 0.12];   // a colour line with no filled cube: a dark "0"
export const CUBE = [0.95, 0.93, 0.88];      // an intact cube, cream as in Picross 3D
// A marked cube: a blue frame round a light blue centre. The numbers stand on the centre, light
// enough that every ink reads on it as on the cream cube (contrast 3.2:1 or more; it is one of
// engine/colour/inks.py's CUBE_COLOURS); on a blue face the dark inks (a blue one above all)
// were hard to read. The frame says "marked" at a glance and keeps a marked cube from looking
// painted (a paint fills the face).
export const MARKED_CUBE = [0.36, 0.58, 0.93];
export const MARKED_CENTRE = [0.78, 0.9, 1.0];
const MARKED_FRAME = [0.13, 0.16];   // the frame ends there, as a fraction of the face from its edge
export const PLAIN_INK = [0.08, 0.08, 0.1];  // a black-and-white puzzle's numbers
export const REVEAL = [0.93, 0.55, 0.2];   // the model's colour at the reveal when the puzzle has none
export const BACKGROUND = 0x2b2f36;

// what the vertex shader hands the fragment shader
const VARYINGS = /* glsl */ `
varying vec2 vUv;
varying float vTile;
varying vec3 vNormal;
varying float vState;
varying vec3 vColour;
varying float vHover;
varying float vFlash;
varying float vHint;`;

export const VERTEX = /* glsl */ `
// clue tile (-1: none), state (0 intact, 1 marked, 2 revealed, 3 painted), cell index, hint
// (0 none, 1 on the hint's line, 2 a cube the hint decides)
attribute vec4 aData;
attribute vec3 aColour;
uniform float uHover;
uniform float uFlash;
${VARYINGS}
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
export const FRAGMENT = /* glsl */ `
#define CUBE_COLOUR ${vec3(CUBE)}
#define MARKED_COLOUR ${vec3(MARKED_CUBE)}
#define MARKED_CENTRE ${vec3(MARKED_CENTRE)}
#define MARKED_FRAME vec2(${MARKED_FRAME.map((v) => v.toFixed(3)).join(", ")})
#define PLAIN_INK_COLOUR ${vec3(PLAIN_INK)}
uniform sampler2D uAtlas;
uniform vec2 uGrid;
uniform float uColourInk;   // 1: the atlas holds coloured numbers (premultiplied RGBA)
uniform float uPlain;       // 1: the face's colour without light or edge shading (the atlas check)
${VARYINGS}
void main() {
  float e = min(min(vUv.x, 1.0 - vUv.x), min(vUv.y, 1.0 - vUv.y));   // to the face's edge
  vec3 marked = mix(MARKED_COLOUR, MARKED_CENTRE, smoothstep(MARKED_FRAME.x, MARKED_FRAME.y, e));
  vec3 base = vState > 1.5 ? vColour : (vState > 0.5 ? marked : CUBE_COLOUR);
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
    else base = mix(base, PLAIN_INK_COLOUR, t.a);
  }
  if (uPlain > 0.5) { gl_FragColor = vec4(base, 1.0); return; }
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

// The block's material: faces sample their clue from `atlas` (web/src/atlas.js).
export function blockMaterial(atlas) {
  return new ShaderMaterial({
    vertexShader: VERTEX, fragmentShader: FRAGMENT,
    uniforms: { uAtlas: { value: atlas.texture }, uGrid: { value: [atlas.cols, atlas.rows] },
                uColourInk: { value: atlas.colour ? 1 : 0 }, uPlain: { value: 0 },
                uHover: { value: -1 }, uFlash: { value: -1 } },
  });
}
