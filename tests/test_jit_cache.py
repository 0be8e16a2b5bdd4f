"""The JIT shim's cache folder follows the engine's sources, so kernels never run stale code."""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT

pytest.importorskip("numba")

SCRIPT = "import engine.jit as j; print(j.cache_folder())"


def _folder(cwd):
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=cwd, capture_output=True, text=True,
                         env={"PATH": "", "NUMBA_CACHE_DIR": ""}, check=True)
    return out.stdout.strip()


@pytest.fixture
def engine_copy(tmp_path):
    shutil.copytree(ROOT / "engine", tmp_path / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_folder_changes_with_any_engine_source_and_old_ones_go(engine_copy):
    first = _folder(engine_copy)
    assert first == _folder(engine_copy), "same sources must give the same folder"
    (engine_copy / "engine" / "__pycache__").mkdir(exist_ok=True)
    stale = engine_copy / "engine" / "__pycache__" / first.rsplit("/", 1)[-1]
    stale.mkdir()
    (stale / "kernel.nbi").write_text("old")
    day_old = time.time() - 2 * 24 * 3600
    os.utime(stale, (day_old, day_old))
    recent = engine_copy / "engine" / "__pycache__" / (first.rsplit("/", 1)[-1][:-4] + "beef")
    recent.mkdir()  # another version of the engine, running right now beside this one
    with open(engine_copy / "engine" / "lines" / "linesolve.py", "a") as f:
        f.write("\n# an edit in a module other kernels call\n")
    second = _folder(engine_copy)
    assert second != first
    assert not stale.exists(), "the folder of the old sources should have been removed"
    assert recent.exists(), "a folder another version used a moment ago must stay"


TAG_SCRIPT = "import engine.jit as j; print(j.cache_folder(), j.prebuilt_tag()['digest'])"


def _folder_and_tag(cwd):
    out = subprocess.run([sys.executable, "-c", TAG_SCRIPT], cwd=cwd, capture_output=True, text=True,
                         env={"PATH": "", "NUMBA_CACHE_DIR": ""}, check=True)
    return tuple(out.stdout.split())


@pytest.mark.parametrize("edit", ["kinds/plain/propagate.py", "voxel/new_module.py"])
def test_an_edit_in_a_subpackage_invalidates_cached_and_prebuilt_kernels(engine_copy, edit):
    """The engine's parts are subpackages: the cache folder and the prebuilt kernels' tag (the
    ``digest`` field a process compares before loading them) follow every file below engine/."""
    before = _folder_and_tag(engine_copy)
    with open(engine_copy / "engine" / edit, "a") as f:
        f.write("\n# an edit below engine/\n")
    after = _folder_and_tag(engine_copy)
    assert after[0] != before[0], "the cache folder must change"
    assert after[1] != before[1], "the prebuilt tag's digest must change"


def test_the_digest_ignores_caches_and_counts_paths(engine_copy):
    """Compiled caches and prebuilt kernels below engine/ do not move the digest; a module moved
    to another subpackage does (its kernels' cache entries name the module)."""
    from engine.jit import _source_digest
    root = str(engine_copy / "engine")
    first = _source_digest(root)
    (engine_copy / "engine" / "solve" / "__pycache__").mkdir(exist_ok=True)
    (engine_copy / "engine" / "solve" / "__pycache__" / "x.py").write_text("cached")
    (engine_copy / "engine" / "prebuilt").mkdir(exist_ok=True)
    (engine_copy / "engine" / "prebuilt" / "y.py").write_text("prebuilt")
    assert _source_digest(root) == first
    shutil.move(str(engine_copy / "engine" / "kinds" / "plain" / "walk.py"), str(engine_copy / "engine" / "lines" / "walk.py"))
    assert _source_digest(root) != first


def test_a_cache_that_cannot_be_written_does_not_fail_the_kernel(tmp_path):
    # Another process removed the folder (or the disk is full) between decorating and saving.
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "twice.py").write_text(
        "from engine.jit import njit\n\n\n@njit(cache=True)\ndef twice(a):\n    return 2 * a[0]\n")
    script = (
        "import shutil, sys\n"
        "from engine import jit\n"
        "jit.set_cache_base(sys.argv[1])\n"
        "sys.path.insert(0, sys.argv[2])\n"
        "import numpy as np, twice\n"
        "shutil.rmtree(jit.cache_folder(), ignore_errors=True)\n"
        "print(twice.twice(np.array([21.0])))\n"
        "shutil.rmtree(jit.cache_folder(), ignore_errors=True)\n"
        "open(jit.cache_folder(), 'w').close()  # a file where the folder should be\n"
        "print(twice.twice(np.array([4])))\n")
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "cache"), str(tmp_path / "mods")],
                         cwd=ROOT, capture_output=True, text=True, env={"PATH": "", "NUMBA_CACHE_DIR": ""})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["42.0", "8"]


def test_package_name_is_part_of_the_folder(engine_copy):
    pkg = engine_copy / "addon"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    shutil.move(str(engine_copy / "engine"), str(pkg / "engine"))
    out = subprocess.run([sys.executable, "-c", "import addon.engine.jit as j; print(j.cache_folder())"],
                         cwd=engine_copy, capture_output=True, text=True, check=True)
    assert "nonogram-addon_engine-" in out.stdout


KERNELS = """
from engine.jit import njit


@njit
def add(a, k):
    return a[0] + k


@njit
def caller(a, k):
    return add(a, 0) + add(a, k)  # a constant and a variable: one compilation of add
"""

SCRIPT_KERNELS = r"""
import json, sys
import numba
from engine import jit
jit.set_cache_base(sys.argv[1])
sys.path.insert(0, sys.argv[2])
import kern
import numpy as np
kern.caller(np.ones(3), 2)
print(json.dumps({"config": numba.config.CACHE_DIR, "folder": jit.cache_folder(),
                  "kernel": kern.add._cache._cache_path, "sigs": [str(s) for s in kern.add.signatures]}))
"""


def test_kernels_cache_in_our_folder_without_touching_numbas_setting(tmp_path):
    """Another numba user in the process (another add-on) keeps numba's own cache setting."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "kern.py").write_text(KERNELS)
    cache = tmp_path / "cache"
    out = subprocess.run([sys.executable, "-c", SCRIPT_KERNELS, str(cache), str(src)], cwd=ROOT,
                         capture_output=True, text=True, env={"PATH": "", "NUMBA_CACHE_DIR": ""})
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert not got["config"], "numba.config.CACHE_DIR must stay unset"
    assert got["folder"].startswith(str(cache)) and got["kernel"] == got["folder"]
    assert got["sigs"] == ["(Array(float64, 1, 'C', False, aligned=True), int64)"]
    assert any(p.name.startswith("kern.add") for p in Path(got["folder"]).iterdir())


SHARED_KERNELS = """
from engine.jit import njit


@njit(shared=True)
def total(a, k):
    if k < 0:
        raise ValueError("negative k")
    s = 0.0
    for x in a:
        s += x
    return s + k


@njit
def twice(a, k):
    return total(a, k) + total(a, 1)


@njit
def outer(a, k):
    return twice(a, k) * 2.0  # reaches total only through twice's linked code
"""

SCRIPT_SHARED = r"""
import json, sys
from engine import jit
jit.set_cache_base(sys.argv[1])
sys.path.insert(0, sys.argv[2])
import kern
import numpy as np
a = np.arange(4.0)
got = {"outer": kern.outer(a, 2)}
try:
    kern.twice(a, -1)
except ValueError as exc:
    got["raised"] = str(exc)
ir = kern.twice.inspect_llvm(kern.twice.signatures[0]) if not kern.twice._cache_hits else ""
got["defines_total"] = any(line.startswith("define") and "5total" in line for line in ir.splitlines())
got["calls_symbol"] = "nonogram.shared.kern.total." in ir
got["hits"] = {k.__name__: sum(k._cache_hits.values()) for k in (kern.total, kern.twice, kern.outer)}
got["misses"] = {k.__name__: sum(k._cache_misses.values()) for k in (kern.total, kern.twice, kern.outer)}
print(json.dumps(got))
"""


def _run_shared(cache, src):
    out = subprocess.run([sys.executable, "-c", SCRIPT_SHARED, str(cache), str(src)], cwd=ROOT,
                         capture_output=True, text=True, env={"PATH": "", "NUMBA_CACHE_DIR": ""})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_shared_kernel_is_called_not_linked_and_its_callers_load_from_the_cache(tmp_path):
    """A shared kernel's callers call its symbol (its code is not compiled into theirs), its
    exceptions reach them, and a fresh process loads them from the cache: loading a caller (even
    one that reaches the shared kernel only through another kernel's code) defines the symbol
    first, where a missing symbol would abort the process."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "kern.py").write_text(SHARED_KERNELS)
    first = _run_shared(tmp_path / "cache", src)
    assert first["outer"] == 2 * ((6.0 + 2) + (6.0 + 1)) and first["raised"] == "negative k"
    assert first["calls_symbol"] and not first["defines_total"]
    assert first["misses"] == {"total": 1, "twice": 1, "outer": 1}
    second = _run_shared(tmp_path / "cache", src)
    assert second["outer"] == first["outer"] and second["raised"] == "negative k"
    assert second["misses"] == {"total": 0, "twice": 0, "outer": 0}
    assert second["hits"] == {"total": 1, "twice": 1, "outer": 1}
