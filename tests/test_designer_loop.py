"""The designer's loop in the engine (issue #22): metric names, design CLI validation,
reproducible designs, band steering and local minimality, Repair."""
import json

import numpy as np
import pytest

from engine.__main__ import main
from engine.voxel.blobs import blob_puzzle
from engine.files.puzzlefile import save_puzzle
from engine.design.session import DesignSession


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


# ---------------------------------------------------------------------------------------------
# item 10: the design command's input, reproducible designs, band steering, local minimality

CUBE_STL = """solid cube
""" + "".join(
    "facet normal 0 0 0\n outer loop\n" + "".join(f"  vertex {x} {y} {z}\n" for x, y, z in tri)
    + " endloop\nendfacet\n"
    for tri in [((0, 0, 0), (0, 1, 0), (1, 1, 0)), ((0, 0, 0), (1, 1, 0), (1, 0, 0)),
                ((0, 0, 1), (1, 0, 1), (1, 1, 1)), ((0, 0, 1), (1, 1, 1), (0, 1, 1)),
                ((0, 0, 0), (1, 0, 0), (1, 0, 1)), ((0, 0, 0), (1, 0, 1), (0, 0, 1)),
                ((1, 0, 0), (1, 1, 0), (1, 1, 1)), ((1, 0, 0), (1, 1, 1), (1, 0, 1)),
                ((1, 1, 0), (0, 1, 0), (0, 1, 1)), ((1, 1, 0), (0, 1, 1), (1, 1, 1)),
                ((0, 1, 0), (0, 0, 0), (0, 0, 1)), ((0, 1, 0), (0, 0, 1), (0, 1, 1))]) + "endsolid cube\n"


def test_design_reads_every_mesh_format_the_engine_reads(tmp_path, capsys):
    from engine.cli import design as cli_design
    from engine.voxel.meshio import MeshFileError, load_mesh
    # the formats meshio names when it refuses one: the design command takes exactly these
    with pytest.raises(MeshFileError) as e:
        load_mesh(tmp_path / "x.zzz")
    named = {w.strip(",()") for w in str(e.value).split() if w.startswith("(.") or w.startswith(".")}
    assert named == set(cli_design.MESH_EXTENSIONS) == {".obj", ".ply", ".stl", ".glb"}
    stl = tmp_path / "cube.stl"
    stl.write_text(CUBE_STL)
    out = tmp_path / "cube.json"
    rc, text, err = _cli(capsys, "design", stl, "-o", out, "--resolution", "4")
    assert rc == 0, err
    assert "4x4x4" in text and out.exists()


@pytest.mark.parametrize("limit", ["-1", "0", "nan", "inf", "-inf"])
def test_design_refuses_a_time_limit_that_is_no_limit(tmp_path, capsys, limit):
    p = blob_puzzle((5, 4, 3), seed=3, fill=0.5)
    f = tmp_path / "blob.json"
    save_puzzle(p, f)
    with pytest.raises(SystemExit) as e:
        main(["design", str(f), "-o", str(tmp_path / "out.json"), f"--time-limit={limit}"])
    assert e.value.code == 2
    assert "--time-limit must be a positive number of seconds" in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()


def test_design_refuses_a_resolution_that_makes_no_puzzle(tmp_path, capsys):
    stl = tmp_path / "cube.stl"
    stl.write_text(CUBE_STL)
    with pytest.raises(SystemExit) as e:
        main(["design", str(stl), "-o", str(tmp_path / "out.json"), "--resolution", "1"])
    assert e.value.code == 2 and "at least 3" in capsys.readouterr().err


class _Clock:
    """A perf_counter that runs ``speed`` times as fast as the real one: a slower machine."""

    def __init__(self, speed):
        import time
        self.speed, self.real, self.t0 = speed, time.perf_counter, time.perf_counter()

    def __call__(self):
        return self.t0 + (self.real() - self.t0) * self.speed


class _StepClock:
    """A perf_counter that moves ``step`` seconds each time it is read."""

    def __init__(self, step):
        self.step, self.t = step, 0.0

    def __call__(self):
        self.t += self.step
        return self.t


def test_a_seed_gives_the_same_design_on_a_slower_machine(monkeypatch):
    """The work is a budget of moves: a machine 20x slower (the clock runs 20x as fast) gets
    the same design, as long as the time limit (a safety stop) does not cut it."""
    import engine.design.hiding as dz
    from engine.voxel.blobs import blob_grid
    g = blob_grid((12, 11, 10), seed=4, fill=0.45)
    fast = dz.design(g, method="anneal", seed=2, anneal_moves=600)
    assert fast.reproducible and not fast.stopped_early
    monkeypatch.setattr(dz.time, "perf_counter", _Clock(20.0))
    slow = dz.design(g, method="anneal", seed=2, anneal_moves=600, time_limit=1e6)
    assert slow.reproducible and np.array_equal(slow.hidden, fast.hidden)
    # the same, cut by its time limit: still a valid design, and it says it cannot be repeated
    # (a clock that jumps a second at every look, so the cut does not depend on this machine's speed)
    monkeypatch.setattr(dz.time, "perf_counter", _StepClock(1.0))
    cut = dz.design(g, method="anneal", seed=2, anneal_moves=600, time_limit=30.0)
    assert cut.stopped_early and not cut.reproducible and "time limit" in cut.message
    assert "not reproducible" in cut.message and cut.to_dict()["reproducible"] is False


def test_thorough_progress_never_runs_backwards(monkeypatch):
    import engine.design.hiding as dz
    import engine.design.search as search
    from engine.voxel.blobs import blob_grid
    monkeypatch.setattr(search, "PROGRESS_INTERVAL", 0.0)  # report at every check
    g = blob_grid((12, 11, 10), seed=4, fill=0.45)
    for kw in (dict(method="anneal", anneal_moves=300), dict(method="anneal", band="hard", anneal_moves=200),
               dict(method="greedy", logic="probe"), dict(method="greedy", band="expert")):
        seen = []
        dz.design(g, progress=lambda f, m: seen.append((f, m)) and False, **kw)
        fr = [f for f, _ in seen]
        assert len(fr) >= 3 and all(0.0 <= f <= 1.0 for f in fr), kw
        assert all(b >= a for a, b in zip(fr, fr[1:])), (kw, [(round(f, 3), m) for f, m in seen])


def _model(shared, name, res):
    from engine.model.clues import puzzle_from_grid
    from engine.voxel.meshio import load_mesh
    from engine.voxel.voxelize import voxelize
    v, t = load_mesh(shared("models", name))
    r = voxelize(v, t, resolution=res, samples=1, threshold=0.5, robust=True, fit=True)
    return puzzle_from_grid(r.grid, name=f"{name}-{res}")


def test_band_steering_uses_its_budget(shared):
    """trex at 24, expert, seed 0: the first annealing runs end short of the band (where the
    steering used to stop); a later one, from the best so far, reaches it."""
    import engine.design.hiding as dz
    r = dz.design(_model(shared, "trex.glb", 24), band="expert", seed=0)
    assert r.in_target and r.band == "expert" and r.locally_minimal and r.reproducible
    assert r.stats["steer_rounds"] > 1
    # a band out of reach at 16: every run of the budget is used, and the result says what it
    # reached and that it is not locally minimal within the band
    p = _model(shared, "trex.glb", 16)
    r = dz.design(p, band="expert", seed=0)
    assert not r.in_target and not r.locally_minimal and "could not reach band 'expert'" in r.message
    from engine.design import band
    assert r.stats["steer_rounds"] == band.STEER_ROUNDS
    assert r.stats["anneal_moves"] == band.STEER_ROUNDS * band.STEER_MOVES_PER_LINE * p.n_lines


def test_a_design_short_of_its_band_is_not_called_locally_minimal():
    """A band out of reach: locally_minimal is False, and the final passes left no shown clue
    that could go while the puzzle stays solvable without moving the score away from the band."""
    import engine.design.hiding as dz
    from engine.voxel.blobs import blob_grid
    g = blob_grid((9, 8, 7), seed=6, fill=0.5)
    lo, hi = 60.0, 1000.0  # far above anything this grid can score
    r = dz.design(g, score_range=(lo, hi), seed=1, anneal_moves=100)
    assert not r.in_target and not r.locally_minimal and "not locally minimal" in r.message
    sess = DesignSession(g)
    miss = lo - r.score
    for li in np.flatnonzero(~r.hidden):
        h = r.hidden.copy()
        h[li] = True
        c = sess.check(h, "line")
        assert not (c.solvable and lo - c.score <= miss), li
    # within reach, the same search ends in the range and locally minimal there
    r = dz.design(g, score_range=(0.0, 1000.0), seed=1)
    assert r.in_target and r.locally_minimal


# ---------------------------------------------------------------------------------------------
# item 4: Repair


def _hand_broken(seed):
    """A designed blob with shown clues hidden by hand until logic leaves cells undecided and
    one Suggest Clue is not enough: (session, broken hidden mask, the clues hidden by hand)."""
    import engine.design.hiding as dz
    from engine.voxel.blobs import blob_grid
    g = blob_grid((7, 6, 6), seed=seed, fill=0.5)
    d = dz.design(g, seed=seed)
    sess = DesignSession(g)
    rng = np.random.default_rng(seed)
    h = d.hidden.copy()
    extra = []
    for li in rng.permutation(np.flatnonzero(~h)):
        h[li] = True
        extra.append(int(li))
        c = sess.check(h)
        if not c.solvable and c.undecided.sum() >= 8:
            once = h.copy()
            once[sess.suggest(h, k=1)[0].line] = False
            if not sess.check(once).solvable:
                return sess, h, extra
    raise AssertionError("no hand-broken puzzle")  # pragma: no cover


@pytest.mark.parametrize("seed", [0, 1, 5, 6, 7])
def test_repair_shows_the_fewest_clues_that_make_it_unique_again(seed):
    import itertools
    sess, h, extra = _hand_broken(seed)
    assert sess.check(h).verdict != "unique" or not sess.check(h).solvable
    r = sess.repair(h, "line")
    assert r.lines and all(h[li] and not r.hidden[li] for li in r.lines)
    assert np.array_equal(r.hidden, h & ~np.isin(np.arange(len(h)), r.lines))
    c = sess.check(r.hidden, "line")
    assert c.verdict == "unique" and c.solvable and c.undecided.sum() == 0
    assert len(r.lines) <= len(extra)  # showing the hand-hidden ones again would do
    assert r.names == [sess.line_name(li) for li in r.lines]
    # every clue it shows is needed ...
    for li in r.lines:
        m = r.hidden.copy()
        m[li] = True
        assert not sess.check(m, "line").solvable, li
    # ... and no fewer clues would do (brute force over the hidden ones)
    for sub in itertools.combinations(np.flatnonzero(h), len(r.lines) - 1):
        m = h.copy()
        m[list(sub)] = False
        assert not sess.check(m, "line").solvable, sub


def test_repair_of_a_solvable_puzzle_shows_nothing_and_refuses_the_unsolvable():
    import engine.design.hiding as dz
    from engine.voxel.blobs import blob_grid
    g = blob_grid((7, 6, 6), seed=2, fill=0.5)
    d = dz.design(g, seed=2)
    sess = DesignSession(g)
    assert sess.repair(d.hidden).lines == []
    with pytest.raises(dz.DesignError, match="every clue shown"):
        DesignSession(np.eye(2, dtype=bool)).repair(np.ones(4, bool))
    # every clue hidden, repaired for probing: what it shows probing solves
    r = sess.repair(np.ones(sess.n_lines, bool), "probe")
    assert sess.check(r.hidden, "probe").solvable and r.lines


def test_the_editors_calls_hold_the_collector_off():
    """Check, Suggest and Repair run with the cyclic collector off (a full collection of a large
    Blender session could stall a live check or a repair's Esc for about a second) and leave it
    as they found it, on or off."""
    import gc
    from engine.voxel.blobs import blob_grid
    sess = DesignSession(blob_grid((6, 5, 5), seed=3, fill=0.5))
    seen = []
    run = sess.K.run

    def watched(*a, **kw):
        seen.append(gc.isenabled())
        return run(*a, **kw)
    sess.K.run = watched
    hidden = np.ones(sess.n_lines, bool)  # every clue hidden: logic settles nothing
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            sess.check(hidden)
            sess.suggest(hidden)
            sess.repair(hidden)
            assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert len(seen) >= 6 and not any(seen), seen
