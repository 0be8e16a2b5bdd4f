import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _stand_in_for_the_root_package():
    """The repository root is the add-on's package (its ``__init__.py`` is what Blender enables),
    so pytest collects it as a package and imports that ``__init__.py`` before the first test:
    under the checkout's folder name, or, where that name is no Python identifier (a clone named
    ``nonogram-3d``), as a plain module named ``__init__`` whose relative imports fail, so that
    every test errored. Either way it imported bpy into engine-only runs. The tests never use
    that import (Blender tests load the add-on under its own name, blender_support.load_addon),
    so pytest gets an empty module of the name it will look up: it finds it in sys.modules and
    imports nothing."""
    for name in {ROOT.name if ROOT.name.isidentifier() else None, "__init__"} - {None}:
        if name not in sys.modules:
            stand_in = types.ModuleType(name, "the repository root, as pytest sees it (tests/conftest.py)")
            stand_in.__file__ = str(ROOT / "__init__.py")
            stand_in.__path__ = [str(ROOT)]
            sys.modules[name] = stand_in


_stand_in_for_the_root_package()


def shared_path(*parts) -> Path:
    """A path under ../shared/, or skip the test with a clear message when it is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared test data not found: {p} (clone the project beside ../shared/ to run this)")
    return p


@pytest.fixture
def shared():
    return shared_path


def run_python(code: str, *python_args: str, env_extra: Optional[dict] = None,
               timeout: int = 300) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh Python with the repo root and tests/ first on sys.path, numba's
    switches (NUMBA_DISABLE_JIT, NONOGRAM_NO_NUMBA) cleared and then set from ``env_extra``:
    they are read at import time, so a test of them needs its own process."""
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("NONOGRAM_NO_NUMBA", None)
    env.update(env_extra or {})
    prelude = "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
    return subprocess.run([sys.executable, *python_args, "-c", prelude + code, str(ROOT),
                           str(ROOT / "tests")], env=env, capture_output=True, text=True,
                          timeout=timeout)


def run_without_numba(code: str, *python_args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """``code`` run with ``NONOGRAM_NO_NUMBA=1`` (the engine's plain-Python fallback)."""
    return run_python(code, *python_args, env_extra={"NONOGRAM_NO_NUMBA": "1"}, timeout=timeout)


def _bpy_module_fails_at_exit() -> bool:
    """Blender 4.2 and 4.5 as Python modules run Blender's own exit only when the ``bpy`` module
    is freed; while something still holds it at the interpreter's end their C++ destructors run
    without it: 4.2 crashes (exit 139), 4.5 hangs waiting for a thread Blender's exit would have
    stopped. The add-on lets go of its own share at exit (``__init__.py``: the batch and scripts
    that enabled it exit with their status, tests/test_blender_exit.py), but a pytest session
    holds more (test modules, fixtures, reports) than the add-on can let go of."""
    bpy = sys.modules.get("bpy")
    return bpy is not None and not bpy.app.binary_path and tuple(bpy.app.version) < (5, 0, 0)


_EXIT_STATUS = pytest.StashKey[int]()


def pytest_sessionfinish(session, exitstatus):
    session.config.stash[_EXIT_STATUS] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # pytest's report is written by now: on bpy 4.2/4.5 end the session's process with pytest's
    # exit status, after the exit hooks (the add-on's: unregister, stop its threads), rather
    # than with Blender's crash or hang at exit. bpy 5.0 exits the ordinary way.
    if _bpy_module_fails_at_exit() and _EXIT_STATUS in config.stash:
        import atexit
        atexit._run_exitfuncs()  # the add-on's hook: unregister, stop its threads
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(config.stash[_EXIT_STATUS])
