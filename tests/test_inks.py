"""engine/colour/inks.py: clue inks a player can tell apart (issue #39): for any puzzle colours
(near-identical browns, black / grey / white, a pale yellow), up to six of them, every two inks
are at least 20 apart (CIEDE2000) and 15 under simulated protanopia and deuteranopia, each reads
on both cube colours and on a painted cube (its white outline), and each ink stays near its
colour's hue where that is possible."""
from __future__ import annotations

import numpy as np
import pytest

from engine.colour import inks
from engine.colour.colourspace import ciede2000, linear_to_lab, linear_to_oklab, srgb_to_linear


def hue(srgb) -> float:
    lab = linear_to_oklab(srgb_to_linear(np.asarray(srgb, np.float64)))
    return float(np.degrees(np.arctan2(lab[2], lab[1])))


HARD = {
    # the stegosaurus: two browns 7 apart (OKLab x 100), and a three-way grouping
    "stegosaurus": [[0x50 / 255, 0x44 / 255, 0x33 / 255], [0x62 / 255, 0x58 / 255, 0x47 / 255]],
    "stegosaurus3": [[0.31, 0.27, 0.2], [0.33, 0.28, 0.21], [0.38, 0.35, 0.28]],
    # the truck: near-black, grey, near-white (the white paint looked like an unpainted cube)
    "truck": [[0.06, 0.06, 0.07], [0.45, 0.46, 0.47], [0.93, 0.93, 0.92]],
    "pale": [[1.0, 0.95, 0.6], [0.98, 0.97, 0.93], [0.95, 0.93, 0.88]],   # one is the cube's colour
    "greens": [[0.1, 0.6, 0.1], [0.15, 0.65, 0.12], [0.2, 0.7, 0.15], [0.12, 0.55, 0.2]],
    "red-green": [[0.8, 0.1, 0.1], [0.1, 0.6, 0.1]],      # told apart by colour alone: not by protans
}


@pytest.mark.parametrize("name", sorted(HARD))
def test_hard_colours_get_inks_a_player_can_tell_apart(name):
    ink = inks.choose_inks(HARD[name])
    r = inks.ink_report(ink)
    assert inks.legible(ink, r), r
    assert r["delta_e"] >= inks.MIN_DELTA_E and min(r["delta_e_protanopia"], r["delta_e_deuteranopia"]) >= 15
    assert r["contrast_on_cubes"] >= 3.0 and r["outline_contrast"] >= 3.0
    # every ink is a painted cube far from an unpainted one
    for cube in inks.CUBE_COLOURS:
        assert (inks.contrast(ink, np.asarray(cube)) >= 3.0).all()


def test_random_colours_up_to_six_always_meet_the_limits():
    rng = np.random.default_rng(39)
    for trial in range(150):
        k = int(rng.integers(2, inks.GUARANTEED_COLOURS + 1))
        base = rng.random((k, 3))
        if trial % 3 == 0:   # near-identical colours: one colour with small shifts
            base = np.clip(base[:1] + rng.normal(0, 0.03, (k, 3)), 0, 1)
        ink = inks.choose_inks(base)
        assert ink.shape == (k, 3)
        r = inks.ink_report(ink)
        assert inks.legible(ink, r), (base.round(3).tolist(), r)


def test_more_colours_than_guaranteed_still_get_distinct_inks_and_say_how_far():
    ink = inks.choose_inks(np.random.default_rng(2).random((9, 3)))
    r = inks.ink_report(ink)
    assert len({tuple(c) for c in ink.round(4).tolist()}) == 9
    assert r["delta_e"] > 10 and r["contrast_on_cubes"] >= 3.0


def test_inks_keep_their_colours_hue_where_they_can():
    ink = inks.choose_inks([[0.9, 0.1, 0.1], [0.1, 0.7, 0.2], [0.15, 0.3, 0.95]])   # red, green, blue
    for got, want in zip(ink, [[0.9, 0.1, 0.1], [0.1, 0.7, 0.2], [0.15, 0.3, 0.95]]):
        d = abs((hue(got) - hue(want) + 180) % 360 - 180)
        assert d < 30, (got, want, d)
    yellow = inks.choose_inks([[0.98, 0.85, 0.1], [0.1, 0.2, 0.8]])[0]
    assert abs((hue(yellow) - hue([0.98, 0.85, 0.1]) + 180) % 360 - 180) < 35
    assert inks.relative_luminance(yellow) <= inks.MAX_INK_LUMINANCE   # darkened to read on the cubes


def test_the_same_colours_give_the_same_inks():
    c = [[0.3, 0.25, 0.2], [0.35, 0.3, 0.22], [0.9, 0.9, 0.9]]
    assert np.array_equal(inks.choose_inks(c), inks.choose_inks(np.asarray(c, np.float32)))


def test_the_colour_vision_simulation_merges_red_and_green():
    # the check that makes "apart under protanopia" mean something: a red and a green far apart
    # to normal vision come close in the simulations
    red, green = np.array([[0.75, 0.25, 0.1]]), np.array([[0.35, 0.5, 0.1]])
    normal, prot, deut = (float(ciede2000(a[0], b[0])) for a, b in zip(inks.views(red), inks.views(green)))
    assert normal > 30 and prot < normal / 2 and deut < normal / 2
    # white stays white
    assert np.allclose(linear_to_lab(np.clip(np.ones(3) @ inks.PROTANOPIA.T, 0, 1)), linear_to_lab(np.ones(3)), atol=1)
