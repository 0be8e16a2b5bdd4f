"""The peer runners of the 2D benchmarks (benchmarks/peers.py), against stand-in solvers written
here: CPU-time limits, the batch watchdog that restarts a solver after a puzzle it cannot finish,
the log formats, and the one-puzzle argument LalaFrogKK reads."""
import sys
import textwrap

from benchmarks import peers

# A batch solver in the tournament format, logging as nonosolve does ("#name<TAB>seconds<TAB>
# status<TAB>... sat=0") and writing each grid; it spins on puzzles named in SPIN.
FAKE = textwrap.dedent("""
    import sys, time
    spin = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else set()
    text = open(sys.argv[1]).read()
    names = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("$")]
    log = open("log.txt", "w")
    out = open("solution.txt", "w")
    for name in names:
        if name in spin:
            while True:
                pass
        out.write(f"${name}\\n" + "1\\t0\\n0\\t1\\n")
        out.flush()
        log.write(f"#{name}\\t0.001000\\tFOUND\\tnodes=3 probes=7 lines=9 hits=1 root=2 sat={name == '3':d}\\n")
        log.flush()
""")

DIAGONAL = ([[1], [1]], [[1], [1]])  # rows, cols of [[1, 0], [0, 1]] (and its mirror)


def _fake(tmp_path):
    path = tmp_path / "fake.py"
    path.write_text(FAKE)
    return path


def test_a_process_is_stopped_at_its_cpu_limit():
    cpu, killed, _rc, _out = peers.run_process([sys.executable, "-c", "while True: pass"], 0.3)
    assert killed and 0.3 <= cpu < 1.5
    cpu, killed, rc, out = peers.run_process([sys.executable, "-c", "print('done')"], 10.0)
    assert not killed and rc == 0 and out.strip() == "done" and cpu < 5


def test_the_batch_watchdog_restarts_after_a_puzzle_it_cannot_finish(tmp_path):
    fake = _fake(tmp_path)
    names = ["1", "2", "3", "4"]
    rows = peers.run_batch(lambda inp: [sys.executable, str(fake), str(inp), "2"], "log.txt",
                           peers.parse_nonosolve_log, [DIAGONAL] * 4, names, 0.3, tmp_path / "work")
    assert set(rows) == set(names)
    assert rows["2"]["timeout"] and rows["2"]["cpu"] == 0.3 and rows["2"]["grid"] is None
    for n in ("1", "3", "4"):
        assert rows[n]["cpu"] == 0.001 and rows[n]["grid"] == [[1, 0], [0, 1]] and rows[n]["status"] == "FOUND"
    assert rows["3"]["sat"] and not rows["1"]["sat"] and rows["4"]["nodes"] == 3


def test_log_formats():
    assert peers.parse_lala_log("#1\t0.250000\n#2\t1.500000\ntotal time: 1.75\n") == [("1", 0.25, {}), ("2", 1.5, {})]
    nono = peers.parse_nonosolve_log("#17\t0.007410\tFOUND\tnodes=2 probes=37 lines=912 hits=335 root=617 sat=1\n")
    assert nono == [("17", 0.00741, {"status": "FOUND", "nodes": 2, "sat": True})]


def test_lala_reads_one_letter_per_number_columns_first():
    rows, cols = [[2], [], [1, 1]], [[1, 1], [1], [1]]
    assert peers.lala_string((rows, cols)) == "aaz" + "az" + "az" + "bz" + "`z" + "aaz"


def test_the_tournament_format_round_trips(tmp_path):
    path = tmp_path / "set.txt"
    peers.write_taai([DIAGONAL, ([[2], []], [[1], [1]])], path, names=["7", "9"])
    assert path.read_text() == "$7\n1\n1\n1\n1\n$9\n1\n1\n2\n\n"
    (tmp_path / "sol.txt").write_text("$7\n1\t0\n0\t1\n$9\n1\t1\n0\t0\n")
    assert peers.read_grids(tmp_path / "sol.txt") == {"7": [[1, 0], [0, 1]], "9": [[1, 1], [0, 0]]}


def test_pbnsolve_verdict_and_its_own_time_are_read_from_its_output(tmp_path):
    fake = tmp_path / "pbn.py"
    fake.write_text("print('unique logical')\nprint('Processing Time: 0.000497 sec ')\n")
    sh = tmp_path / "pbnsolve"
    sh.write_text(f"#!/bin/sh\nexec {sys.executable} {fake}\n")
    sh.chmod(0o755)
    verdict, own, cpu, killed = peers.pbnsolve_run(sh, tmp_path / "x.xml", 10.0)
    assert (verdict, own, killed) == ("unique", 0.000497, False) and cpu > 0
