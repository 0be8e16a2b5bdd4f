"""Compositions of a 3D clue's total against Table 1 of the seed study and its closed forms."""
import numpy as np
import pytest

from engine.lines.compositions import (COUNT_CAP, compositions, count_compositions, first_composition,
                                 n_compositions, next_composition, parts_range, seed_find_compositions)
from engine.model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_PLAIN, KIND_SQUARE

# Table 1, transcribed: the expansions of n = 1..6 ('-' in the table is an empty set).
TABLE1_DOUBLE = {
    1: [], 2: ["1,1"], 3: ["1,2", "2,1"], 4: ["1,3", "2,2", "3,1"], 5: ["1,4", "2,3", "3,2", "4,1"],
    6: ["1,5", "2,4", "3,3", "4,2", "5,1"],
}
TABLE1_TRIPLE = {
    1: [], 2: [], 3: ["1,1,1"],
    4: ["1,1,1,1", "2,1,1", "1,2,1", "1,1,2"],
    5: ["1,1,1,1,1", "2,1,1,1", "1,2,1,1", "1,1,2,1", "1,1,1,2", "3,1,1", "1,3,1", "1,1,3",
        "2,2,1", "2,1,2", "1,2,2"],
    6: ["1,1,1,1,1,1", "2,1,1,1,1", "1,2,1,1,1", "1,1,2,1,1", "1,1,1,2,1", "1,1,1,1,2", "3,1,1,1",
        "1,3,1,1", "1,1,3,1", "1,1,1,3", "2,2,1,1", "2,1,2,1", "2,1,1,2", "1,2,2,1", "1,2,1,2",
        "1,1,2,2", "4,1,1", "1,4,1", "1,1,4", "3,2,1", "3,1,2", "2,1,3", "2,3,1", "1,3,2", "1,2,3",
        "2,2,2"],
}


def as_set(rows):
    return {tuple(int(v) for v in r.split(",")) for r in rows}


@pytest.mark.parametrize("n", range(1, 7))
def test_table1_sets(n):
    assert set(compositions(n, KIND_CIRCLE)) == as_set(TABLE1_DOUBLE[n])
    assert set(compositions(n, KIND_SQUARE)) == as_set(TABLE1_TRIPLE[n])
    assert compositions(n, KIND_PLAIN) == [(n,)]  # Table 1's "Single" row
    # Figure A6, run as written, lists the same sets.
    assert set(seed_find_compositions(n, False)) == as_set(TABLE1_DOUBLE[n])
    assert set(seed_find_compositions(n, True)) == as_set(TABLE1_TRIPLE[n])


def test_table1_transcription_sizes():
    # The table's own rows have the sizes its text states (n-1 and 2**(n-1)-n, from n=2 / n=3).
    for n in range(1, 7):
        assert len(as_set(TABLE1_DOUBLE[n])) == len(TABLE1_DOUBLE[n]) == max(n - 1, 0)
        assert len(as_set(TABLE1_TRIPLE[n])) == len(TABLE1_TRIPLE[n]) == max(2 ** (n - 1) - n, 0)


@pytest.mark.parametrize("n", range(0, 15))
def test_counts_by_enumeration(n):
    for kind, closed in ((KIND_CIRCLE, max(n - 1, 0)), (KIND_SQUARE, max(2 ** (n - 1) - n, 0) if n else 0)):
        listed = compositions(n, kind)
        assert len(listed) == len(set(listed)) == closed == count_compositions(n, kind)
        assert int(n_compositions(n, kind)) == closed
        assert all(sum(c) == n and min(c) >= 1 for c in listed)
        want_parts = (lambda k: k == 2) if kind == KIND_CIRCLE else (lambda k: k >= 3)
        assert all(want_parts(len(c)) for c in listed)
    if n <= 10:
        assert len(seed_find_compositions(n, True)) == len(set(seed_find_compositions(n, True))) \
            == count_compositions(n, KIND_SQUARE)


def test_all_compositions_partition_by_parts():
    # Every composition of n is found exactly once across part counts: 2**(n-1) in all.
    n = 9
    comp = np.zeros(n, np.int64)
    seen = set()
    for parts in range(1, n + 1):
        assert first_composition(n, parts, comp)
        while True:
            c = tuple(int(v) for v in comp[:parts])
            assert c not in seen
            seen.add(c)
            if not next_composition(comp, parts):
                break
    assert len(seen) == 2 ** (n - 1)


def test_lexicographic_order():
    comp = np.zeros(5, np.int64)
    assert first_composition(7, 3, comp)
    out = [tuple(comp[:3])]
    while next_composition(comp, 3):
        out.append(tuple(comp[:3]))
    assert out == sorted(out) and len(out) == 15  # C(6, 2)


def test_large_counts():
    assert count_compositions(27, KIND_SQUARE) == 67_108_837  # section 4: the Jeep puzzle's line
    assert count_compositions(24, KIND_SQUARE) == 8_388_584  # and the Horse puzzle's
    assert int(n_compositions(27, KIND_SQUARE)) == 67_108_837
    assert int(n_compositions(62, KIND_SQUARE)) == 2 ** 61 - 62
    assert int(n_compositions(63, KIND_SQUARE)) == COUNT_CAP  # saturates instead of overflowing
    assert int(n_compositions(500, KIND_SQUARE)) == COUNT_CAP
    assert count_compositions(40, KIND_CIRCLE) == 39


def test_parts_range_and_plain():
    assert tuple(parts_range(5, KIND_CIRCLE)) == (2, 2)
    assert tuple(parts_range(1, KIND_CIRCLE))[0] > tuple(parts_range(1, KIND_CIRCLE))[1]
    assert tuple(parts_range(5, KIND_SQUARE)) == (3, 5)
    assert compositions(0, KIND_PLAIN) == [()]  # a plain 0 is the empty line
    assert count_compositions(9, KIND_BLOCKS) == 1
    with pytest.raises(ValueError):
        count_compositions(3, 99)
