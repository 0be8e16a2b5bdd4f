"""The tournament tables in docs/BENCHMARKS.md: totals, ratios and how each run was made."""
from benchmarks import report


def _entry(times, solved):
    rows = [{"i": i, "cpu": t, "ok": i < solved} for i, t in enumerate(times)]
    s = sorted(times)
    return {"rows": rows, "summary": {"n": len(times), "solved": solved, "total": sum(times),
                                      "median": s[len(s) // 2], "max": s[-1]}}


def _tour(**extra):
    st = {"set": "icga2020", "indices": [0, 1, 2], "ours": _entry([0.5, 1.5, 2.0], 3),
          "lala": _entry([1.0, 2.0, 5.0], 2), "nonosolve": _entry([0.25, 0.5, 1.25], 3)}
    return {"limit": 10.0, "stride": 1, "count": 3, "elapsed_s": 12.0, "sets": [st], **extra}


def test_peer_ratios_are_peer_total_over_ours():
    table, heads = report.section_tournament(_tour())
    lala = next(h for h in heads if "LalaFrogKK" in h)
    nono = next(h for h in heads if "nonosolve" in h)
    assert "solved 3 vs 2 of 3" in lala and "2.00" in lala  # 8.0 / 4.0
    assert "0.50" in nono  # 2.0 / 4.0
    assert table.count("icga2020") == 3  # one row per solver


def test_full_run_is_written_with_its_conditions_and_note():
    lines = []
    report.write_tournament(lines.append, _tour(conditions="beside other work, at nice 19",
                                                note="nonosolve ran after the others."), "## Full")
    text = "\n".join(lines)
    assert text.startswith("## Full")
    assert "beside other work, at nice 19" in text and "run on its own" not in text
    assert "nonosolve ran after the others." in text
    lines.clear()
    report.write_tournament(lines.append, _tour(), "## Sample")
    assert "run on its own" in "\n".join(lines)
