"""The tournament tables (benchmarks/tournament.py, docs/BENCHMARKS.md): like with like, one
table per measure, ratios ours ÷ each peer, every set and all sets pooled."""
from benchmarks import report, tournament


def _entry(times, solved, sat=None, load=(1.0, 1.5)):
    rows = [{"i": i, "cpu": t, "ok": i < solved, **({} if sat is None else {"sat": i < sat})}
            for i, t in enumerate(times)]
    return {"rows": rows, "summary": tournament.summary(dict(enumerate(rows)), len(times)),
            "load": [[load[0], 1, 1], [load[1], 1, 1]]}


def _set(name, ours, nono, lala):
    return {"set": name, "indices": [0, 1, 2],
            "solve": {"ours": _entry(ours, 3, sat=2), "nonosolve": _entry(nono, 3, sat=0),
                      "lala": _entry(lala, 2, load=(0.5, 3.25))}}


def _tour(**extra):
    return {"limit": 10.0, "stride": 2, "count": 6, "elapsed_s": 12.0, "command": "tournament.py --stride 2",
            "sets": [_set("icga2020", [0.5, 1.5, 2.5], [0.25, 0.5, 1.25], [1.0, 2.0, 5.0]),
                     _set("icga2021", [0.25, 0.25, 0.5], [0.25, 0.125, 0.125], [0.5, 0.5, 0.5])], **extra}


def _row(lines, name, solver):
    return next(ln.split(" | ") for ln in lines if ln.startswith(f"| {name} | {solver} |"))


def test_summary_counts_solved_slow_and_sat_puzzles():
    s = _tour()["sets"][0]["solve"]["ours"]["summary"]
    assert (s["solved"], s["total"], s["median"], s["max"]) == (3, 4.5, 1.5, 2.5)
    assert (s["over_1s"], s["over_2s"], s["sat"]) == (2, 1, 2)
    assert _tour()["sets"][0]["solve"]["lala"]["summary"]["sat"] is None  # no SAT solver to count


def test_ratios_are_ours_over_each_peer_total_and_median():
    lines = tournament.table_lines(_tour(), "solve")
    nono = _row(lines, "icga2020", "nonosolve")
    assert nono[-2] == "2.25×" and nono[-1].startswith("3.00×")  # 4.5 / 2.0 and 1.5 / 0.5
    lala = _row(lines, "icga2020", "LalaFrogKK")
    assert lala[-2] == "0.56×" and lala[2] == "2/3"  # 4.5 / 8.0
    assert _row(lines, "icga2020", "ours")[-2] == "—"
    assert "2 (67 %)" in _row(lines, "icga2020", "ours")


def test_all_sets_are_pooled_puzzle_by_puzzle():
    lines = tournament.table_lines(_tour(), "solve")
    ours = _row(lines, "**all**", "ours")
    assert ours[2] == "6/6" and ours[3] == "5.50 s"  # 4.5 + 1.0
    assert ours[4] == "500.0 ms"  # the median of the six puzzles, not of the two sets' medians
    assert _row(lines, "**all**", "nonosolve")[-2] == "2.20×"  # 5.5 / 2.5


def test_the_document_has_a_table_per_measure_run_and_the_loads():
    tour = _tour(note="nonosolve was built with its clock on CPU time.")
    tour["sets"][0]["process"] = {"ours": _entry([0.75, 0.75, 0.75], 3), "nonosolve": _entry([0.01] * 3, 3)}
    lines = []
    report.write_tournament(lines.append, tour, "## T")
    text = "\n".join(lines)
    assert text.startswith("## T") and "nonosolve was built with its clock on CPU time." in text
    assert "**Own solve time (CPU)**" in text and "**Whole process per puzzle (CPU)**" in text
    assert "load average 0.5–3.25" in text and "tournament.py --stride 2" in text
    # the whole-process table holds only the set that ran whole processes, and no LalaFrogKK
    proc = text.split("**Whole process per puzzle (CPU)**")[1]
    assert "| icga2020 | nonosolve |" in proc and "icga2021" not in proc and "LalaFrogKK" not in proc
    assert "75.00×" in proc


def test_a_run_of_one_measure_prints_no_table_for_the_other():
    lines = []
    report.write_tournament(lines.append, _tour(), "## T")
    assert "Whole process" not in "\n".join(lines).split("Two measures")[1].split("**Own")[1]


def test_a_solve_that_ends_past_the_limit_counts_unsolved_at_the_limit():
    rows = {0: {"cpu": 10.19, "ok": True}, 1: {"cpu": 2.0, "ok": True}, 2: {"cpu": None, "ok": None}}
    s = tournament.summary(rows, 3, limit=10.0)
    assert (s["solved"], s["total"], s["max"]) == (1, 12.0, 10.0)
    doc = {"limit": 10.0, "sets": [{"set": "x", "solve": {"lala": {"rows": list(rows.values()), "summary": {}}}}]}
    tournament.resummarize(doc)
    assert doc["sets"][0]["solve"]["lala"]["summary"]["solved"] == 1


def test_the_recorded_command_names_no_machine_path():
    text = tournament.command_text(["--sets", "all", "--nonosolve", "/somewhere/bin/nonosolve-cpu", "--note",
                                    "built in /somewhere"])
    assert text == "tournament.py --sets all --nonosolve <nonosolve-cpu> --note NOTE"


def test_peers_from_a_stored_run_only_for_the_same_puzzles():
    """--peers-from: a run of ours alone takes the peers' rows of a stored run, set by set and
    measure by measure, only where that run timed the same puzzles, and says where they came from."""
    stored = _tour()
    stored["machine"] = {"date_utc": "2026-12-02 08:52 UTC", "load_average": [4.0, 4.0, 4.0]}
    stored["sets"][1]["indices"] = [0, 2, 4]  # another sample: not comparable
    doc = {}
    fresh = []
    for name in ("icga2020", "icga2021", "icga2022"):
        entry = {"set": name, "indices": [0, 1, 2], "solve": {"ours": _entry([0.1, 0.2, 0.3], 3)}}
        tournament._peers_from(entry, stored, doc)
        fresh.append(entry)
    assert set(fresh[0]["solve"]) == {"ours", "nonosolve", "lala"}
    assert fresh[0]["peers_from"] == ["solve/nonosolve", "solve/lala"]
    assert abs(fresh[0]["solve"]["ours"]["summary"]["total"] - 0.6) < 1e-9  # ours is never replaced
    assert set(fresh[1]["solve"]) == {"ours"} and "peers_from" not in fresh[1]
    assert set(fresh[2]["solve"]) == {"ours"}  # a set the stored run does not have
    assert doc["peers_from"]["date_utc"] == "2026-12-02 08:52 UTC"
    lines = tournament.table_lines({"limit": 10.0, "sets": fresh}, "solve")
    assert _row(lines, "icga2020", "nonosolve")[-2] == "0.30×"  # ours 0.6 s ÷ its 2.0 s
    out = []
    report.write_tournament(out.append, {"limit": 10.0, "sets": fresh, **doc}, "## T")
    assert "**Not one run**" in "\n".join(out) and "2026-12-02 08:52 UTC" in "\n".join(out)
    out = []
    report.write_tournament(out.append, _tour(), "## T")
    assert "Not one run" not in "\n".join(out)


def test_solvers_take_turns_chunk_by_chunk_their_order_rotating():
    order = ["ours", "nonosolve", "lala"]
    got = tournament.turns(list(range(10, 17)), 3, order, 1)
    assert [(s, part) for s, part in got[:3]] == [("nonosolve", [10, 11, 12]), ("lala", [10, 11, 12]),
                                                  ("ours", [10, 11, 12])]
    assert [s for s, _ in got[3:6]] == ["lala", "ours", "nonosolve"] and got[3][1] == [13, 14, 15]
    assert [s for s, _ in got[6:]] == ["ours", "nonosolve", "lala"] and got[6][1] == [16]
    # every solver gets every puzzle once
    for solver in order:
        assert sum((part for s, part in got if s == solver), []) == list(range(10, 17))
    # chunk 0: a whole set per turn, as the runs before --chunk took them
    assert tournament.turns([1, 2], 0, order, 0) == [("ours", [1, 2]), ("nonosolve", [1, 2]), ("lala", [1, 2])]


def test_the_document_says_how_the_solvers_took_turns():
    for chunk, said in ((20, "take turns 20 puzzles of a set at a time"), (None, "take turns set by set")):
        lines = []
        report.write_tournament(lines.append, _tour(**({} if chunk is None else {"chunk": chunk})), "## T")
        assert said in "\n".join(lines)


def test_sample_spread_is_each_samples_ratio_and_counts_sets_over_one():
    """A run over whole sets holds every stride-th sample: each sample's ratio comes from its own
    puzzles only (i % stride), the whole set's from all, and the last row counts the sets over 1×
    in each sample."""
    def entry(times):
        rows = [{"i": i, "cpu": t, "ok": True} for i, t in enumerate(times)]
        return {"rows": rows, "summary": tournament.summary(dict(enumerate(rows)), len(rows))}
    doc = {"limit": 10.0, "sets": [
        {"set": "a", "solve": {"ours": entry([1.0, 4.0, 1.0, 4.0]), "nonosolve": entry([2.0, 2.0, 2.0, 2.0])}},
        # a time past the limit counts the limit, as in the tables
        {"set": "b", "solve": {"ours": entry([30.0, 1.0]), "nonosolve": entry([5.0, 4.0])}},
        {"set": "c", "solve": {"ours": entry([1.0, 1.0])}}]}  # no peer rows: left out
    spread = tournament.sample_spread(doc, 2)
    assert [name for name, _, _ in spread] == ["a", "b"]
    assert spread[0][1] == 10 / 8 and spread[0][2] == [2 / 4, 8 / 4]
    assert spread[1][1] == 11 / 9 and spread[1][2] == [10 / 5, 1 / 4]
    lines = tournament.spread_lines(doc, 2)
    assert lines[2].split(" | ")[1:4] == ["1.25×", "0.50×", "2.00×"]
    assert lines[-1].split(" | ")[1:4] == ["2", "1", "1"]


def test_a_result_file_named_gz_is_written_compressed_and_read_back(tmp_path):
    from benchmarks.common import load_json, save_json
    doc = _tour()
    save_json(doc, tmp_path / "all.json.gz")
    save_json(doc, tmp_path / "all.json")
    assert (tmp_path / "all.json.gz").read_bytes()[:2] == b"\x1f\x8b"  # gzip's magic number
    assert (tmp_path / "all.json").read_bytes()[:1] == b"{"
    assert load_json(tmp_path / "all.json.gz") == load_json(tmp_path / "all.json") == doc
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all.json", "all.json.gz"]  # no temporary left
