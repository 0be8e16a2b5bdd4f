"""The designer's loop in the engine (issue #22): metric names, design CLI validation,
reproducible designs, band steering and local minimality, Repair."""
import json

import numpy as np
import pytest

from engine.__main__ import main
from engine.blobs import blob_puzzle
from engine.puzzlefile import save_puzzle


def _cli(capsys, *args):
    rc = main([*map(str, args)])
    out = capsys.readouterr()
    return rc, out.out, out.err


# ---------------------------------------------------------------------------------------------
# item 5: "bad guesses" are line solves that deduced nothing


def test_idle_line_solves_are_named_for_what_they_measure(tmp_path, capsys):
    p = blob_puzzle((6, 5, 4), seed=3, fill=0.5)
    f = tmp_path / "blob.json"
    save_puzzle(p, f)
    rc, out, err = _cli(capsys, "solve", f)
    assert rc == 0, err
    assert "bad guess" not in out.lower()
    line = next(t for t in out.splitlines() if t.startswith("linesolvers:"))
    assert "idle (deduced nothing):" in line
    rc, out, err = _cli(capsys, "solve", f, "--json")
    d = json.loads(out)
    # the stored names stay (old reports and summary.csv keep their meaning), the new ones agree
    assert d["verdict"] == "unique" and d["difficulty"] == "line"
    assert (d["idle_line_solves"], d["idle_rate"]) == (d["bad_guesses"], d["bad_guess_rate"])
    assert d["idle_line_solves"] > 0  # line logic alone still has line solves that found nothing
