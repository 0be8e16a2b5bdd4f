"""The collector is held off while the engine works (``engine/gcpause.py``), and given back."""
import gc
import threading

import numpy as np
import pytest

from engine.gcpause import collector_held
from engine.model.clues import puzzle_from_grid


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_nested_holds_give_it_back_once(collector_on):
    with collector_held():
        assert not gc.isenabled()
        with collector_held():
            assert not gc.isenabled()
        assert not gc.isenabled(), "the inner hold ended, the outer one still holds"
    assert gc.isenabled()


def test_an_error_inside_gives_it_back(collector_on):
    with pytest.raises(ValueError):
        with collector_held():
            raise ValueError("inside")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(collector_on):
    gc.disable()
    with collector_held():
        pass
    assert not gc.isenabled()


def test_overlapping_holds_in_two_threads(collector_on):
    inside, leave = threading.Event(), threading.Event()

    def other():
        with collector_held():
            inside.set()
            leave.wait(10)

    t = threading.Thread(target=other)
    with collector_held():
        t.start()
        inside.wait(10)
    assert not gc.isenabled(), "the other thread's hold is still on"
    leave.set()
    t.join(10)
    assert gc.isenabled()


def test_solve_and_design_run_with_it_held(collector_on):
    from engine.design.hiding import design
    from engine.solve.driver import solve
    grid = np.random.default_rng(3).random((8, 8)) < 0.55
    seen = []

    def progress(fraction, message):
        seen.append(gc.isenabled())
        return False

    r = solve(puzzle_from_grid(grid), progress=progress)
    assert r.verdict in ("unique", "multiple")
    d = design(grid, progress=progress)
    assert 0 < d.hidden_count < d.n_lines
    assert seen and not any(seen), "progress was called while the collector was on"
    assert gc.isenabled()
