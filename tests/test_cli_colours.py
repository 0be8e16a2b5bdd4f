"""``--colours K`` in ``python -m engine design`` and ``convert``: the palette lands in the file."""
import json

import pytest

from conftest import shared_path
from engine.__main__ import main


def test_design_from_a_mesh_writes_the_palette(tmp_path, capsys):
    out = tmp_path / "trex.json"
    assert main(["design", str(shared_path("models", "trex.glb")), "--resolution", "24",
                 "--colours", "3", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "palette: 3 colours: #" in printed
    d = json.loads(out.read_text())
    assert len(d["palette"]) == 3
    pairs = [d["colours"][i:i + 2] for i in range(0, len(d["colours"]), 2)]
    assert all((p == "..") == (s == "0") for p, s in zip(pairs, d["solution"]))
    assert {p for p in pairs if p != ".."} == {"00", "01", "02"}
    # convert reduces it further, and names the palette
    out2 = tmp_path / "trex2.json"
    assert main(["convert", str(out), str(out2), "--colours", "2"]) == 0
    assert "palette 2 colours" in capsys.readouterr().err
    assert len(json.loads(out2.read_text())["palette"]) == 2


@pytest.mark.parametrize("k", ["0", "257"])
def test_bad_k_is_exit_2(tmp_path, capsys, k):
    assert main(["design", str(shared_path("models", "trex.glb")), "--resolution", "8",
                 "--colours", k, "-o", str(tmp_path / "x.json")]) == 2
    assert "1 to 256" in capsys.readouterr().err


def test_convert_colours_of_a_plain_puzzle_is_exit_2(tmp_path, capsys):
    src = tmp_path / "p.json"
    src.write_text(json.dumps({"format": "nonogram", "version": 1, "shape": [2, 1],
                               "rows": [[1]], "columns": [[1], []], "solution": "10"}))
    assert main(["convert", str(src), str(tmp_path / "q.json"), "--colours", "3"]) == 2
    assert "no colours" in capsys.readouterr().err
