"""The catalogue of a batch's pages (``index.html``), without spoilers: a card per puzzle shows
the player's block (a render of the player's view) or a neutral picture of the block's shape,
never the picture the puzzle reveals, until the puzzle is solved in this browser. The page
keeps its progress in the browser's localStorage under a key made from its data (web/src/
progress.js); the catalogue's small script reads the same key and, for a solved puzzle, shows the
reveal (the batch's render of it, else the picture the page saved when it was solved) with the
time, mistakes and hints. A model that failed is listed with its reason; a colour puzzle is
marked with its colours (the inks its numbers are drawn in).

The reveal's file name sits in a data attribute, not in an ``<img>``: a browser fetches no
reveal before the script finds the puzzle solved.
"""
from __future__ import annotations

import html
import json
import os
import re
from typing import Optional

from .webpage import DATA_SLOT

STORAGE_PREFIX = "nonogram3d:"   # web/src/progress.js
_DATA = re.compile(re.escape(DATA_SLOT.split("__NONOGRAM_PUZZLE__")[0]) + r"(.*?)</script>", re.S)


def storage_key(data_text: str) -> str:
    """The localStorage key a page keeps its progress under: FNV-1a (32 bits) of its data
    text's UTF-16 code units, as web/src/progress.js ``hashText``."""
    h = 0x811C9DC5
    units = data_text.encode("utf-16-le")
    for j in range(0, len(units), 2):
        h ^= units[j] | (units[j + 1] << 8)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return STORAGE_PREFIX + format(h, "x")


def page_facts(path: str) -> Optional[dict]:
    """What the catalogue shows of a page: its storage key, name, shape, colours (inks, None in
    black and white) and info; None when the file is not a puzzle page."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        return None
    m = _DATA.search(text)
    if not m:
        return None
    try:
        data = json.loads(m.group(1))
    except ValueError:
        return None
    return {"key": storage_key(m.group(1)), "name": data.get("name"), "shape": data.get("shape"),
            "colours": data.get("inks") or data.get("clue_colours"), "info": data.get("info") or {}}


def block_svg(shape, size: int = 200) -> str:
    """A neutral picture of a puzzle: its block of cubes in the proportions of its shape, as an
    isometric drawing with the layers' lines (it tells nothing of the model)."""
    X, Y, Z = (max(int(v), 1) for v in shape)
    scale = size * 0.8 / max(X + Y, 1.3 * Z + 0.5 * (X + Y))
    ux, uy = 0.866 * scale, 0.5 * scale            # one cube along x (right-down) and y (left-down)
    top = (size - (Z * scale + (X + Y) * uy)) / 2

    def pt(x, y, z):
        return (size / 2 + (x - y) * ux, top + (x + y) * uy + (Z - z) * scale)

    def poly(points, fill):
        return (f'<polygon points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in points)}" fill="{fill}" '
                f'stroke="#3a3630" stroke-width="1.2"/>')

    def lines(a, b, c, n):   # n - 1 lines across the face a-b-c (a to b split in n)
        out = []
        for j in range(1, n):
            t = j / n
            p = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            q = (p[0] + c[0] - a[0], p[1] + c[1] - a[1])
            out.append(f'<line x1="{p[0]:.1f}" y1="{p[1]:.1f}" x2="{q[0]:.1f}" y2="{q[1]:.1f}"/>')
        return "".join(out)

    step = lambda n: n if n <= 16 else 16   # noqa: E731 (at most 15 lines a side)
    o, xa, ya, xy = pt(0, 0, Z), pt(X, 0, Z), pt(0, Y, Z), pt(X, Y, Z)
    xb, yb, xyb = pt(X, 0, 0), pt(0, Y, 0), pt(X, Y, 0)
    faces = (poly([o, xa, xy, ya], "#f2eee4") + poly([ya, xy, xyb, yb], "#d6d0c2")
             + poly([xa, xy, xyb, xb], "#bdb6a7"))
    grid = (lines(o, xa, ya, step(X)) + lines(o, ya, xa, step(Y)) + lines(ya, xy, yb, step(X))
            + lines(xa, xy, xb, step(Y)) + lines(yb, ya, xyb, step(Z)) + lines(xb, xa, xyb, step(Z)))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" width="{size}" height="{size}" '
            f'role="img" aria-label="a block of {X}×{Y}×{Z} cubes">{faces}'
            f'<g stroke="#3a3630" stroke-opacity="0.35" stroke-width="0.8">{grid}</g></svg>')


CATALOGUE_CSS = """body{margin:0;padding:24px;background:#2b2f36;color:#f2f2f2;font:15px/1.4 system-ui,sans-serif}
h1{margin:0 0 16px;font-size:22px}.grid{display:flex;flex-wrap:wrap;gap:16px}
.card{display:block;width:220px;background:#3a3f48;border-radius:10px;overflow:hidden;color:inherit;
text-decoration:none}a.card:hover{outline:2px solid #f0a850}.card.failed{background:#4a3434}
.thumb{width:220px;height:220px;background:#20232a;display:flex;align-items:center;justify-content:center;
color:#8a919c;font-size:40px;position:relative}.thumb img{width:100%;height:100%;object-fit:contain}
.body{padding:8px 10px}.name{font-weight:600}.facts{font-size:13px;opacity:.85}
.band{display:inline-block;padding:0 7px;border-radius:8px;background:#59616d;font-size:12px}
.inks{display:flex;gap:4px;align-items:center;font-size:12px;margin-top:4px}
.ink{width:16px;height:16px;border-radius:4px;border:1px solid #ddd}
.progress{font-size:13px;margin-top:4px;color:#ffd27a}.why{font-size:13px;color:#ffb4b4;margin-top:4px}"""

# Reads each card's progress from localStorage (the key its page keeps it under): a solved
# puzzle shows its reveal (the render in data-reveal, else the picture the page saved) and its
# time, mistakes and hints; a started one says so. Nothing else changes.
CATALOGUE_JS = """(function(){
function time(ms){var s=Math.floor(ms/1000),h=Math.floor(s/3600),m=Math.floor(s%3600/60),r=s%60;
return (h?h+':'+String(m).padStart(2,'0'):m)+':'+String(r).padStart(2,'0');}
function n(v,w){return v+' '+w+(v===1?'':'s');}
document.querySelectorAll('.card[data-key]').forEach(function(card){
  var rec=null,pic=null;
  try{rec=JSON.parse(localStorage.getItem(card.dataset.key)||'null');pic=localStorage.getItem(card.dataset.key+':reveal');}
  catch(e){return;}
  if(!rec||typeof rec!=='object')return;
  var line=card.querySelector('.progress');
  if(rec.solved){
    var src=card.dataset.reveal||pic;
    if(src){var thumb=card.querySelector('.thumb'),img=document.createElement('img');
      img.src=src;img.alt=card.dataset.name+', solved';img.className='reveal';thumb.textContent='';thumb.appendChild(img);}
    line.textContent='solved in '+time(rec.elapsed||0)+' · '+n(rec.mistakes||0,'mistake')+' · '+n(rec.hints||0,'hint');
    card.classList.add('solved');
  }else if(typeof rec.cells==='string'&&/[12]/.test(rec.cells)){
    line.textContent='in progress · '+time(rec.elapsed||0)+' · '+n(rec.mistakes||0,'mistake');
    card.classList.add('started');
  }
});})();"""


def _card(e: dict) -> str:
    esc = html.escape
    name = esc(str(e["name"]))
    if e.get("error"):
        return (f'<div class="card failed"><div class="thumb">✕</div><div class="body"><div class="name">{name}</div>'
                f'<div class="why">failed: {esc(str(e["error"]))}</div></div></div>')
    if e.get("thumbnail"):
        thumb = f'<img src="{esc(e["thumbnail"])}" alt="{name}, the block to play" loading="lazy">'
    elif e.get("shape"):
        thumb = block_svg(e["shape"])
    else:
        thumb = "?"
    lines = int(e.get("lines") or 0)
    hidden = int(e.get("hidden") or 0)
    share = f" ({100.0 * hidden / lines:.0f} %)" if lines else ""
    band = f'<span class="band">{esc(str(e["band"]))}</span>' if e.get("band") else ""
    inks = ""
    if e.get("colours"):
        swatches = "".join(f'<span class="ink" style="background:{esc(c)}" title="colour {j}"></span>'
                           for j, c in enumerate(e["colours"], start=1))
        inks = f'<div class="inks">{swatches}<span>{len(e["colours"])} colours</span></div>'
    data = f' data-key="{esc(e["key"])}" data-name="{name}"' if e.get("key") else ""
    if e.get("reveal"):
        data += f' data-reveal="{esc(e["reveal"])}"'
    return (f'<a class="card" href="{esc(e["page"])}"{data}><div class="thumb">{thumb}</div>'
            f'<div class="body"><div class="name">{name}</div>'
            f'<div class="facts">{esc(str(e.get("size", "")))} · {hidden} of {lines} clues hidden{share}</div>'
            f'{band}{inks}<div class="progress"></div></div></a>')


def catalogue_html(entries: list, title: str = "Nonogram 3D puzzles") -> str:
    """An index page linking to puzzle pages. Each entry: ``page`` (link), ``name``, ``size``
    ("12x9x7"), ``hidden``/``lines`` (clue counts), ``band`` (or ""), and optional ``key`` (the
    page's storage key), ``shape``, ``colours`` (the inks, "#rrggbb"), ``thumbnail`` (a picture
    that gives nothing away: the player's view) and ``reveal`` (the solved picture, shown only
    once the page says it was solved). An entry with ``error`` is a failed model (no page)."""
    played = [e for e in entries if not e.get("error")]
    failed = len(entries) - len(played)
    count = f"{len(played)} puzzle{'s' if len(played) != 1 else ''}"
    if failed:
        count += f" ({failed} model{'s' if failed != 1 else ''} failed, listed last)"
    cards = "".join(_card(e) for e in played) + "".join(_card(e) for e in entries if e.get("error"))
    esc = html.escape
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CATALOGUE_CSS}</style></head><body>"
            f"<h1>{esc(title)}</h1><p>{count}: click one to play it (break the cubes that are not part of "
            "the model). A puzzle you solve here shows what it was.</p>"
            f"<div class=\"grid\">{cards}</div><script>{CATALOGUE_JS}</script></body></html>\n")


def entry_for_page(folder: str, page: str, **facts) -> dict:
    """A catalogue entry for the page file ``page`` (relative to ``folder``) with ``facts``
    (name, size, hidden, lines, band, thumbnail, reveal), completed from the page itself."""
    read = page_facts(os.path.join(folder, page)) or {}
    entry = dict(facts, page=page)
    for k in ("key", "shape", "colours"):
        if read.get(k) is not None:
            entry.setdefault(k, read[k])
    return entry
