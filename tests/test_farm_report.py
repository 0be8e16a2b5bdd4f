"""The catalogue section of docs/BENCHMARKS.md (benchmarks/report.py, from scripts/bench_farm.py's
results): with ``--repeat`` the target line gives the rounds' medians, not the first round's draw."""
import copy
import json

from benchmarks import report
from benchmarks.common import RESULTS


def _farm(rounds):
    farm = copy.deepcopy(json.loads((RESULTS / "farm.json").read_text()))
    farm["rounds"] = rounds
    farm["speedup_workers2"], farm["speedup_dask2"] = 2.5, 2.25  # the first round's, made unmistakable
    return farm


def _round(w1, w2, d2):
    return {"walls": {"workers1": w1, "workers2": w2, "dask2": d2},
            "speedup_workers2": round(w1 / w2, 2), "speedup_dask2": round(w1 / d2, 2)}


def test_the_target_line_gives_the_median_of_the_rounds():
    rounds = [_round(10.0, 4.0, 8.0), _round(10.0, 6.25, 5.0), _round(10.0, 5.0, 6.25)]
    text = report.section_farm(_farm(rounds))
    target = next(line for line in text.splitlines() if line.startswith("Target:"))
    assert "own pool 2.00× (median of 3 rounds, 1.60–2.50×)" in target
    assert "Dask LocalCluster 1.60× (median of 3 rounds, 1.25–2.00×)" in target
    assert "2.25×" not in target  # the first round's figure stands in its own table, not as the result


def test_every_round_has_its_row_and_the_medians_their_own():
    rounds = [_round(10.0, 4.0, 8.0), _round(12.0, 6.0, 6.0)]
    rows = report.farm_rounds_table(rounds)
    assert rows[0].startswith("| round | `workers1` wall | `workers2` wall | `dask2` wall |")
    assert [r.split(" | ")[0] for r in rows[2:]] == ["| 1", "| 2", "| median"]
    assert "| 2.50× | 1.25× |" in rows[2] and "| 2.00× | 2.00× |" in rows[3]
    assert rows[4].endswith("| **2.25×** | **1.62×** |")  # medians of 2.5, 2.0 and of 1.25, 2.0


def test_a_single_run_keeps_its_own_figures():
    text = report.section_farm(_farm([_round(10.0, 4.0, 8.0)]))
    target = next(line for line in text.splitlines() if line.startswith("Target:"))
    assert "own pool 2.5×" in target and "median of" not in target


def test_dask_against_its_own_one_worker_is_the_median_too():
    rounds = [dict(_round(10.0, 4.0, 8.0), speedup_dask2_vs_dask1=1.5),
              dict(_round(10.0, 4.0, 8.0), speedup_dask2_vs_dask1=1.7),
              dict(_round(10.0, 4.0, 8.0), speedup_dask2_vs_dask1=1.9)]
    farm = _farm(rounds)
    farm["speedup_dask2_vs_dask1"] = 9.0
    line = next(x for x in report.section_farm(farm).splitlines() if x.startswith("Dask's 2 workers against"))
    assert "1.70× (median of 3 rounds, 1.50–1.90×)" in line and "9.0" not in line


def test_the_conditions_say_whether_the_bytecode_was_written_first():
    farm = _farm([])
    farm.pop("bytecode", None)
    assert "bytecode" not in report.section_farm(farm).split("\n")[0]
    farm["bytecode"] = {"written": 7, "seconds": 0.1, "python_writes_bytecode": False}
    first = report.section_farm(farm).split("\n")[0]
    assert ("the add-on's bytecode up to date before the runs (7 modules written by the warm-up; "
            "PYTHONDONTWRITEBYTECODE is set here" in first)
