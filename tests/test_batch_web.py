"""``batch.py --export-html``: a playable page per puzzle (the designed one with --design) and an
index.html catalogue with thumbnail, size, clues hidden and band, linking to them."""
from __future__ import annotations

import csv
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("bpy", reason="needs the bpy module (pip install bpy==5.0.1, Python 3.11)")

from engine.play import webpage  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.blender


def _page_data(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return json.loads(re.search(r'type="application/json">(.*?)</script>', text, re.S).group(1))


def test_batch_writes_pages_and_a_catalogue(tmp_path):
    try:
        webpage.template_text()
    except webpage.WebPageError as e:
        pytest.skip(str(e))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "batch.py", "--", "--input", "suzanne", "cube", "--resolution", "5",
                           "--out", str(out), "--design", "--export-html", "--render", "player",
                           "--render-size", "48", "--render-samples", "1"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(out / "summary.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and all(r["status"] == "ok" for r in rows)
    index = (out / "index.html").read_text(encoding="utf-8")
    for r in rows:
        page = out / r["html_file"]
        d = _page_data(page)
        designed = json.loads((out / r["design_file"]).read_text())
        # the page plays the designed puzzle: its hidden clues, and says so
        assert (d["x"], d["y"], d["z"]) == (designed["x"], designed["y"], designed["z"])
        assert d["info"]["hidden"] == int(r["design_hidden"])
        assert d["info"].get("band", "") == r["design_band"]
        # the catalogue links the page and the render and gives size, hidden clues and band
        card = re.search(r'<a class="card" href="%s">(.*?)</a>' % re.escape(html.escape(r["html_file"])), index)
        assert card, r["html_file"]
        assert f'src="{html.escape(r["png_file"])}"' in card.group(1) and (out / r["png_file"]).is_file()
        assert f'{r["size"]} · {r["design_hidden"]} of {r["lines"]} clues hidden' in card.group(1)
        if r["design_band"]:
            assert f'<span class="band">{r["design_band"]}</span>' in card.group(1)
    assert "catalogue:" in proc.stdout + proc.stderr
