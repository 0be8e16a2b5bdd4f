import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


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
