"""2D file formats (engine/files/formats2d.py): every file of ../shared/puzzles2d parses, writers round
trip, and malformed files are rejected with the file name and line in the message."""
import csv
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from conftest import shared_path
from engine.files import formats2d
from engine.model.clues import puzzle_from_grid
from engine.files.puzzlefile import (PuzzleFileError, PuzzleFileWarning, check_solution, load_puzzle,
                               load_puzzles, save_puzzle)

TAAI_SETS = ["icga2016", "icga2017", "icga2018", "icga2019", "icga2020", "icga2021",
             "taai2011", "taai2013", "taai2014", "taai2015", "taai2016", "taai2017", "taai2018",
             "taai2019", "taai2020", "taai2021", "tcga2012", "tcga2013", "tcga2014", "tcga2015",
             "tcga2016", "tcga2017", "tcga2019", "tcga2020", "tcga2021"]


def expected_sizes():
    """{relative path: (W, H)} from ../shared/puzzles2d/EXPECTED.csv."""
    with open(shared_path("puzzles2d", "EXPECTED.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for r in rows:
        w, h = r["size_WxH"].split("x")
        out[r["file"].split(" ")[0]] = (int(w), int(h))
    return out


def assert_plausible(p):
    """Row and column clues must fill the same number of cells, or no grid satisfies them."""
    clues = p.clues()
    H = p.shape[1]
    assert sum(map(sum, clues[:H])) == sum(map(sum, clues[H:])), p.name


def load_quietly(path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PuzzleFileWarning)
        return load_puzzle(path)


def test_jwilk_all_151():
    root = shared_path("puzzles2d", "jwilk-nonogram", "data")
    files = sorted(root.glob("*.nin"))
    assert len(files) == 151
    sizes = expected_sizes()
    for f in files:
        if f.name == "data142.nin":
            # Its puzzle is followed by four garbled copies; they are ignored with a warning.
            with pytest.warns(PuzzleFileWarning, match=r"data142.nin: line 47: ignoring 180 line"):
                p = load_puzzle(f)
        else:
            p = load_quietly(f)
        assert p.shape == sizes[f"jwilk-nonogram/data/{f.name}"], f
        assert p.name == f.stem
        assert_plausible(p)


def test_webpbn_survey_all_and_their_solutions():
    root = shared_path("puzzles2d", "webpbn-survey")
    files = sorted(root.glob("*.nin"))
    assert len(files) == 14
    sizes = expected_sizes()
    for f in files:
        p = load_quietly(f)
        assert p.shape == sizes[f"webpbn-survey/{f.name}"]
        assert_plausible(p)
    for sol in sorted((root / "solutions").glob("*.txt")):
        p = load_puzzle(root / (sol.stem.split("-")[0] + ".nin"))
        grid = formats2d.read_grid(sol)
        assert grid.shape == p.grid_shape()
        p.solution = grid.ravel()
        assert check_solution(p) == [], sol
        p.solution = ~p.solution
        assert check_solution(p) != []


def test_all_non_files_with_goals():
    root = shared_path("puzzles2d")
    files = sorted(root.glob("**/*.non"))
    assert len(files) == 41
    sizes = expected_sizes()
    for f in files:
        p = load_quietly(f)  # a goal that contradicts the clues would raise here
        rel = f.relative_to(root).as_posix()
        assert p.shape == sizes[rel], rel
        assert p.solution is not None and p.solution.any(), rel
        assert check_solution(p) == []
        assert p.name and p.name != f.stem, rel  # every file has a title
        assert "license" in p.meta


def test_webpbn_1_exact_clues():
    p = load_puzzle(shared_path("puzzles2d", "mikix-nonogram-db", "db", "webpbn", "1.non"))
    assert p.name == "Dancer"
    assert p.clues()[:3] == [[2], [2, 1], [1, 1]]
    assert p.clues()[10:] == [[2, 1], [2, 1, 3], [7], [1, 3], [2, 1]]
    assert p.meta["by"] == "Jan Wolter" and p.meta["license"] == "CC-BY-3.0"


def test_taai_one_whole_batch_against_its_solutions():
    q = shared_path("puzzles2d", "taai-tcga-icga", "question", "taai2017.txt.gz")  # has an empty clue line
    ps = load_puzzles(q)
    sols = formats2d.read_taai_solutions(shared_path("puzzles2d", "taai-tcga-icga", "solution", "taai2017.txt.gz"))
    assert len(ps) == len(sols) == 1000
    assert ps[0].name == "taai2017#1" and ps[999].name == "taai2017#1000"
    assert any([] in p.clues() for p in ps)
    for p, g in zip(ps, sols):
        assert p.shape == (25, 25) and g.shape == (25, 25)
        p.solution = g.ravel()
        assert check_solution(p) == [], p.name


@pytest.mark.parametrize("name", TAAI_SETS)
def test_taai_first_puzzle_of_each_batch(name):
    root = shared_path("puzzles2d", "taai-tcga-icga")
    p = load_puzzle(f"{root / 'question' / (name + '.txt.gz')}#1")
    assert p.shape == (25, 25) and p.name == f"{name}#1"
    g = formats2d.read_taai_solutions(root / "solution" / f"{name}.txt.gz")[0]
    p.solution = g.ravel()
    assert check_solution(p) == []


def test_lalafrogkk_single_taai_puzzle():
    p = load_puzzle(shared_path("puzzles2d", "lalafrogkk-cgilab", "PuzzleCannotSolve.txt"))
    assert p.shape == (25, 25)
    assert p.clues()[25] == [3, 2, 2, 1, 1]  # first line of the file: column 1
    assert p.clues()[0] == [1, 2, 2, 1, 3, 1, 1]  # line 26: row 1
    assert_plausible(p)


def test_dejoue_native_files_and_solver_output():
    root = shared_path("puzzles2d", "picross-solver-dejoue")
    files = sorted(f for f in root.glob("*.txt") if not f.name.endswith(".solution.txt"))
    assert len(files) == 16
    for f in files:
        for p in load_puzzles(f):
            assert_plausible(p)
    dom = load_puzzles(root / "domino_logic.txt")
    assert [p.name for p in dom] == [f"{n}-Dom" for n in range(3, 10)]
    assert [p.shape for p in dom] == [(n, n) for n in range(7, 21, 2)]
    solved = formats2d.read_dejoue_solutions(root / "domino_logic.solution.txt")
    for p, (name, grids) in zip(dom, solved):
        assert name == p.name and len(grids) == 1
        p.solution = grids[0].ravel()
        assert check_solution(p) == []
    for stem in ("webpbn-35105-wild", "webpbn-36459-moss"):
        (name, grids), = formats2d.read_dejoue_solutions(root / f"{stem}.solution.txt")
        p = load_puzzle(root / f"{stem}.non")
        assert name == p.name and np.array_equal(grids[0].ravel(), p.solution)
    with pytest.raises(PuzzleFileError, match="picross-solver output"):
        load_puzzles(root / "domino_logic.solution.txt")


# ---------------------------------------------------------------------------------------------
# writers: round trips through each 2D format

@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arrays(bool, st.tuples(st.integers(1, 7), st.integers(1, 7))), st.sampled_from([".non", ".nin", ".txt"]))
def test_2d_formats_round_trip(tmp_path, g, ext):
    p = puzzle_from_grid(g, name="Round \"trip\" & <more> ✓")
    path = tmp_path / f"p{ext}"
    save_puzzle(p, path)
    q = load_quietly(path)
    assert q.shape == p.shape and q.clues() == p.clues()
    if ext == ".non":
        assert np.array_equal(q.solution, p.solution) and q.name == p.name
    elif ext == ".txt":
        assert q.name == p.name


def test_non_blank_lines_mean_empty_clues(tmp_path):
    # A blank line inside the block is an empty row; blanks between blocks are separators.
    text = "width 2\nheight 3\n\nrows\n1\n\n2\n\n\ncolumns\n1,1\n1\n\ngoal \"100011\"\n"
    path = tmp_path / "b.non"
    path.write_text(text)
    p = load_puzzle(path)
    assert p.clues() == [[1], [], [2], [1, 1], [1]]
    text2 = "width 2\nheight 3\nrows\n1\n2\n\n\ncolumns\n1\n2\n"
    path.write_text(text2)
    assert load_puzzle(path).clues() == [[1], [2], [], [1], [2]]


def test_non_ignores_unknown_keys_and_reads_nonpack(tmp_path):
    one = "catalogue \"x\"\nfrobnicate 7\nwidth 1\nheight 1\nrows\n1\ncolumns\n1\n"
    path = tmp_path / "two.nonpack"
    path.write_text(one + "====\n" + one.replace("rows\n1", "rows\n0").replace("columns\n1", "columns\n0"))
    ps = load_puzzles(path)
    assert [p.clues() for p in ps] == [[[1], [1]], [[], []]]
    assert ps[0].meta == {"catalogue": "x"}


def test_3d_and_hidden_cannot_go_to_2d_formats(tmp_path):
    p3 = puzzle_from_grid(np.ones((2, 2, 2), dtype=bool))
    for ext in (".non", ".nin", ".txt"):
        with pytest.raises(PuzzleFileError, match=r"2D puzzles only.*2x2x2.*\.json"):
            save_puzzle(p3, tmp_path / f"p{ext}")
        assert not (tmp_path / f"p{ext}").exists()
    hidden = puzzle_from_grid(np.eye(2, dtype=bool), hidden=np.array([1, 0, 0, 0], dtype=bool))
    with pytest.raises(PuzzleFileError, match="hidden"):
        save_puzzle(hidden, tmp_path / "p.nin")


# ---------------------------------------------------------------------------------------------
# malformed files: (file name, text, substrings of the message besides the file name)

NON_OK = "width 3\nheight 2\nrows\n1\n2\ncolumns\n1\n1\n1\n"
BAD_2D = [
    ("no-width.non", NON_OK.replace("width 3\n", ""), ["missing 'width'"]),
    ("no-rows.non", "width 3\nheight 2\ncolumns\n1\n1\n1\n", ["missing 'rows'"]),
    ("width-bad.non", NON_OK.replace("width 3", "width three"), ["line 1", "width", "'three'"]),
    ("rows-count.non", NON_OK.replace("rows\n1\n2\n", "rows\n1\n2\n1\n"), ["line 3", "'rows' has 3 clue lines, expected 2"]),
    ("cols-count.non", NON_OK.replace("1\n1\n1\n", "1\n1\n"), ["line 6", "'columns' has 2 clue lines, expected 3"]),
    ("negative.non", NON_OK.replace("rows\n1\n2", "rows\n1\n-2"), ["line 5", "row 2", "negative"]),
    ("token.non", NON_OK.replace("rows\n1\n2", "rows\n1\n2b"), ["line 5", "row 2", "'2b'"]),
    ("too-long.non", NON_OK.replace("rows\n1\n2", "rows\n1\n1,2"), ["row 2", "needs 4 cells", "has 3"]),
    ("goal-length.non", NON_OK + 'goal "0101"\n', ["line 10", "goal has 4 cells", "6"]),
    ("goal-char.non", NON_OK + 'goal "10a011"\n', ["line 10", "goal", "'a'"]),
    ("goal-wrong.non", NON_OK + 'goal "110011"\n', ["does not satisfy", "row 1"]),
    ("colour.non", "color a #ff0000\n" + NON_OK, ["line 1", "colour"]),
    ("dup.non", NON_OK + "rows\n1\n1\n", ["line 10", "duplicate 'rows'"]),
    ("empty.nin", "\n\n", ["empty file"]),
    ("head.nin", "3\n1\n", ["line 1", "WIDTH HEIGHT"]),
    ("head-zero.nin", "0 2\n", ["line 1", "width", "'0'"]),
    ("short.nin", "2 2\n1\n1\n1\n", ["line 1", "2 row + 2 column", "has 3"]),
    ("negative.nin", "2 2\n1\n-1\n1\n1\n", ["line 3", "row 2", "negative"]),
    ("token.nin", "2 2\n1\n1\n1\nx\n", ["line 5", "column 2", "'x'"]),
    ("too-long.nin", "2 2\n1\n1\n1\n3\n", ["column 2", "needs 3 cells"]),
    ("odd.txt", "$1\n1\n1\n1\n", ["line 1", "puzzle $1", "2×N clue lines", "found 3"]),
    ("header.txt", "$one\n1\n1\n", ["line 1", "bad puzzle header '$one'"]),
    ("before.txt", "1\n$1\n1\n1\n", ["line 1", "before the first $N"]),
    ("token.txt", "$1\n1\n1\n1\tq\n1\n", ["line 4", "puzzle $1", "row 1", "'q'"]),
    ("taai-too-long.txt", "$1\n1\n3\n2\n2\n", ["puzzle $1", "column 2", "needs 3 cells"]),
    ("single-odd.txt", "1\n1\n1\n", ["found 3"]),
    ("taai-sums.txt", "$1\n1\n1\n2\n1\n", ["line 1", "puzzle $1", "fill 2 cells but the row clues 3"]),
    ("nogrid.txt", "hello\n", ["unrecognised .txt puzzle"]),
    ("empty.txt", "", ["empty file"]),
    ("dejoue-clue.txt", "GRID a\nROWS\n[ 1\nCOLUMNS\n[ 1 ]\n", ["line 3", "'[ 1'"]),
    ("dejoue-order.txt", "GRID a\n[ 1 ]\n", ["line 2", "before ROWS"]),
    ("dejoue-nocols.txt", "GRID a\nROWS\n[ 1 ]\n", ["line 1", "no COLUMNS"]),
    ("dejoue-neg.txt", "GRID a\nROWS\n[ -1 ]\nCOLUMNS\n[ 1 ]\n", ["line 3", "row 1", "negative"]),
    ("dejoue-long.txt", "GRID a\nROWS\n[ 2 ]\nCOLUMNS\n[ 1 ]\n", ["grid 'a'", "row 1", "needs 2 cells"]),
]


@pytest.mark.parametrize("filename,text,parts", BAD_2D, ids=[c[0] for c in BAD_2D])
def test_malformed_2d_files(tmp_path, filename, text, parts):
    path = tmp_path / filename
    path.write_text(text)
    with pytest.raises(PuzzleFileError) as e:
        load_puzzles(path)
    msg = str(e.value)
    assert str(path) in msg
    for part in parts:
        assert part in msg, msg


def test_the_bad_2d_cases_start_from_valid_files(tmp_path):
    for name, text in (("ok.non", NON_OK), ("ok.nin", "2 2\n1\n1\n1\n1\n"), ("ok.txt", "$1\n1\n\n1\n\n"),
                       ("ok1.txt", "GRID a\nROWS\n[ 1 ]\nCOLUMNS\n[ 1 ]\n")):
        (tmp_path / name).write_text(text)
        assert load_puzzles(tmp_path / name)
    assert load_puzzle(tmp_path / "ok.txt").clues() == [[1], [], [1], []]


def test_taai_solutions_reader_rejects_bad_cells():
    with pytest.raises(PuzzleFileError, match=r"sol.txt: line 3: solution \$1"):
        formats2d.parse_taai_solutions("$1\n1\t0\n0\t2\n", "sol.txt")


def test_dejoue_solver_output_with_a_wrong_size_grid():
    text = "GRID 1: a\n  Size: 3x2\n  Solution nb 1: (branching depth: 0)\n  ##.\n  .#\n\n"
    with pytest.raises(PuzzleFileError, match=r"out.txt: line 3: grid 'a': the solution is not 3x2"):
        formats2d.parse_dejoue_solutions(text, "out.txt")
    (name, grids), = formats2d.parse_dejoue_solutions(text.replace(".#\n", ".##\n"), "out.txt")
    assert name == "a" and grids[0].tolist() == [[True, True, False], [False, True, True]]


def taai_text(p):
    rows, cols = p.clues()[:p.shape[1]], p.clues()[p.shape[1]:]
    return "".join("\t".join(map(str, c)) + "\n" for c in cols + rows)


def test_taai_trailing_blank_lines_keep_the_tournament_size():
    g = np.random.default_rng(5).random((25, 25)) < 0.5
    g[-3:, :] = False  # the last rows are empty clues, i.e. blank lines
    p = puzzle_from_grid(g)
    for extra in ("", "\n", "\n\n\n"):
        text = "$1\n" + taai_text(p) + extra + "$2\n" + taai_text(p) + extra
        q1, q2 = [b() for b in formats2d.parse_taai(text, "batch.txt")]
        assert q1.shape == q2.shape == (25, 25)
        assert q1.clues() == q2.clues() == p.clues()
    small = puzzle_from_grid(np.eye(3, dtype=bool))
    q, = [b() for b in formats2d.parse_taai(taai_text(small), "single.txt")]
    assert q.clues() == small.clues()


TOKENS = ["0", "1", "2", "3", "12", "-1", " ", "\t", ",", "\n", "\n", "\r\n", "$", "$1", "$2", "[", "]", "[ 1 ]",
          "GRID g", "ROWS", "COLUMNS", "width 2", "height 2", "rows", "columns", "goal \"0110\"", "title \"t\"",
          "color a #fff", "====", "#", "x", "é", "2 2", "1 1"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40), st.sampled_from([".non", ".nin", ".txt", ".nonpack"]))
def test_random_text_loads_or_raises_puzzle_file_error(tokens, ext):
    text = "".join(tokens)
    parse = {".non": formats2d.parse_non, ".nonpack": formats2d.parse_non, ".nin": formats2d.parse_nin,
             ".txt": formats2d.parse_txt}[ext]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PuzzleFileWarning)
        try:
            for build in parse(text, f"fuzz{ext}"):
                p = build()
                assert p.shape[0] >= 1 and p.shape[1] >= 1
        except PuzzleFileError as e:
            assert str(e).startswith(f"fuzz{ext}: ")
