"""The 2D colour table against pbnsolve (benchmarks/colour_bench.py, docs/BENCHMARKS.md): per
class and all puzzles, each measure's totals and medians side by side, engine ÷ pbnsolve, and
the verdicts; the generated set is the same on every run."""
import numpy as np

from benchmarks import colour_bench, report


def _row(cls, e, p, ew, pw, pv="unique", ev="unique"):
    return {"class": cls, "puzzle": f"{cls}-{e}", "shape": [15, 15], "k": 2, "engine_s": e, "pbnsolve_s": p,
            "engine_whole_s": ew, "pbnsolve_whole_s": pw, "engine_verdict": ev, "engine_level": "line",
            "engine_whole_verdict": ev, "pbnsolve_verdict": pv, "cpsat_verdict": "unique"}


ROWS = [_row("picture", 0.001, 0.0005, 0.45, 0.003), _row("picture", 0.003, 0.0005, 0.5, 0.004),
        _row("near-random", 0.2, 0.4, 0.7, 0.41),
        _row("near-random", 2.0, None, 2.4, 4.2, pv="x-Left solution but no right solution")]


def _cells(lines, name):
    return next(ln.split(" | ") for ln in lines if ln.startswith(f"| {name} |"))


def test_each_measure_side_by_side_with_its_ratio():
    lines = colour_bench.class_table(ROWS)
    pic = _cells(lines, "picture")
    assert pic[1] == "2" and pic[2] == "0" and pic[3] == "4.0 ms" and pic[5] == "1.0 ms"
    assert pic[7] == "4.00×" and pic[8] == "4.00×"  # own solve: 4 / 1 ms; medians 2 / 0.5 ms
    assert pic[9] == "950.0 ms" and pic[13] == "135.71×"  # whole processes: 950 / 7 ms
    # pbnsolve's failure is counted apart and left out of both sides' totals
    rnd = _cells(lines, "near-random")
    assert rnd[1] == "2" and rnd[2] == "1" and rnd[3] == "200.0 ms" and rnd[7] == "0.50×"
    everything = _cells(lines, "**all**")
    assert everything[1] == "4" and everything[-1].startswith("4/4")


def test_verdicts_are_checked_against_cpsat():
    assert colour_bench.checked(ROWS[3]) == {"engine_ok": True, "pbnsolve_failed": True, "pbnsolve_wrong": False}
    wrong = _row("picture", 0.1, 0.1, 0.1, 0.1, pv="multiple", ev="none")
    assert colour_bench.checked(wrong) == {"engine_ok": False, "pbnsolve_failed": False, "pbnsolve_wrong": True}
    timeout = _row("picture", 0.1, None, 0.1, 60.0, pv="timeout")
    assert colour_bench.checked(timeout)["pbnsolve_failed"]


def test_the_document_says_how_it_was_measured_and_lists_every_puzzle():
    text = report.section_colour_2d({"rows": ROWS, "disagree": 1, "compile_s": 0.6, "repeat": 3, "limit": 60,
                                     "fixed": {"1x1": 4.1e-5}, "machine": {"load_average": [1, 1, 1]}})
    assert "Processing Time" in text and "wait4" in text and "wrong verdicts" in text
    assert "1x1 41 µs" in text and text.count("| picture-") == 2
    assert "pbnsolve failed on: near-random-2.0 ('x-Left solution but no right solution'" in text
    # results of the earlier script (in-process wall time against pbnsolve's whole process) are not shown
    old = [{"puzzle": "x", "engine_s": 0.001, "pbnsolve_cpu_s": 0.004}]
    assert report.section_colour_2d({"rows": old, "disagree": 0, "compile_s": 0.5}) == ""


def test_the_generated_set_is_fixed_and_covers_the_sizes_and_colours():
    sets = {c: make() for c, make in colour_bench.CLASSES.items()}
    again = colour_bench.CLASSES["noisy picture"]()
    assert all(np.array_equal(a.colour_solution, b.colour_solution) for a, b in zip(sets["noisy picture"], again))
    puzzles = [p for ps in sets.values() for p in ps]
    assert len(puzzles) >= 80
    sides = [s for p in puzzles for s in p.shape]
    assert min(sides) >= 15 and max(sides) <= 50 and {p.k for p in puzzles} == {2, 3, 4}
