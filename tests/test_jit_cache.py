"""The JIT shim's cache folder follows the engine's sources, so kernels never run stale code."""
import shutil
import subprocess
import sys

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
    with open(engine_copy / "engine" / "linesolve.py", "a") as f:
        f.write("\n# an edit in a module other kernels call\n")
    second = _folder(engine_copy)
    assert second != first
    assert not stale.exists(), "the folder of the old sources should have been removed"


def test_package_name_is_part_of_the_folder(engine_copy):
    pkg = engine_copy / "addon"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    shutil.move(str(engine_copy / "engine"), str(pkg / "engine"))
    out = subprocess.run([sys.executable, "-c", "import addon.engine.jit as j; print(j.cache_folder())"],
                         cwd=engine_copy, capture_output=True, text=True, check=True)
    assert "nonogram-addon_engine-" in out.stdout
