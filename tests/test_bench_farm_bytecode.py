"""scripts/bench_farm.py's warm start: the bytecode of the modules a worker imports is written
before the runs (where PYTHONDONTWRITEBYTECODE is set Python never writes it, and every worker
would compile the add-on's sources at its start), and only theirs."""
import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bench_farm():
    spec = importlib.util.spec_from_file_location("bench_farm_under_test", ROOT / "scripts" / "bench_farm.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _pyc(path: Path) -> Path:
    return Path(importlib.util.cache_from_source(str(path)))


def test_the_addons_modules_get_bytecode_and_the_development_folders_none(tmp_path):
    farm = _bench_farm()
    files = {name: tmp_path / name for name in ("__init__.py", "batch.py", "engine/jit.py", "engine/solve/driver.py",
                                                "tests/test_x.py", "benchmarks/run.py", ".venv/lib/m.py")}
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("X = 1\n")
    first = farm.warm_bytecode(tmp_path)
    assert first["written"] == 4
    for name in ("__init__.py", "batch.py", "engine/jit.py", "engine/solve/driver.py"):
        assert _pyc(files[name]).is_file(), name
    for name in ("tests/test_x.py", "benchmarks/run.py", ".venv/lib/m.py"):
        assert not _pyc(files[name]).exists(), name
    assert farm.warm_bytecode(tmp_path)["written"] == 0  # up to date: nothing written again


def test_a_changed_module_gets_its_bytecode_again(tmp_path):
    farm = _bench_farm()
    mod = tmp_path / "engine" / "gate.py"
    mod.parent.mkdir()
    mod.write_text("X = 1\n")
    farm.warm_bytecode(tmp_path)
    before = _pyc(mod).read_bytes()
    st = mod.stat()
    mod.write_text("X = 2\n")  # the same size: only the time tells
    os.utime(mod, (st.st_atime, st.st_mtime + 5))
    assert farm.warm_bytecode(tmp_path)["written"] == 1
    assert _pyc(mod).read_bytes() != before
    # bytecode that Python would not use (another version's magic number) is written again
    stale = bytearray(_pyc(mod).read_bytes())
    stale[0] ^= 0xFF
    _pyc(mod).write_bytes(bytes(stale))
    assert farm.warm_bytecode(tmp_path)["written"] == 1
    assert _pyc(mod).read_bytes()[:4] == importlib.util.MAGIC_NUMBER
