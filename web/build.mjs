// Bundle the player (src/) and three.js into ONE self-contained HTML template:
//   ../engine/play/player/nonogram-player.html
// engine/play/webpage.py fills it with a puzzle. No network and no server are needed to open a page.
import { build } from "esbuild";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "engine", "play", "player", "nonogram-player.html");
// The player's limit per side of the block; engine/play/webpage.py reads it from the template.
const MAX_SIDE = 64;

const result = await build({
  entryPoints: [join(here, "src", "player.js")],
  bundle: true, minify: true, format: "iife", target: "es2020", write: false, legalComments: "none",
  logLevel: "warning",
});
let js = result.outputFiles[0].text;
// An inline script ends at the first "</script": keep the bundle from containing one.
js = js.replace(/<\/(script)/gi, "<\\/$1");
const css = readFileSync(join(here, "src", "player.css"), "utf8");
const template = readFileSync(join(here, "src", "template.html"), "utf8");
const html = template.split("/*__CSS__*/").join(css).split("/*__JS__*/").join(js)
  .split("__MAX_SIDE__").join(String(MAX_SIDE));
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
console.log(`web/build.mjs: wrote engine/play/player/nonogram-player.html (${(html.length / 1024).toFixed(0)} KiB)`);
