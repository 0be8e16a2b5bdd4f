"""The compiled kernels on disk: what the preferences show about numba and its cache, and
clearing that cache. Never imports numba from a draw call (``numba_status``)."""
import contextlib
import os
import sys

from . import warmup
from .engine_access import jit as engine_jit
from .runtime import ADDON_PACKAGE, active_cache_dir, numba_cache_dir


def _jit():
    """engine.jit if an operator already loaded it (never imports numba from a draw call)."""
    return sys.modules.get(f"{ADDON_PACKAGE}.engine.jit")


def _kernel_cache_folder() -> str:
    """Where our compiled kernels are: engine.jit's folder once the engine is loaded, else the
    folder its kernels will go below."""
    jit = _jit()
    if jit is not None and jit.HAVE_NUMBA:
        return jit.cache_folder()
    return active_cache_dir() or os.environ.get("NUMBA_CACHE_DIR") or numba_cache_dir()


def _cache_files(folder: str) -> list:
    # numba's index (.nbi) and compiled data (.nbc) files; nothing else in the folder is touched
    found: list = []
    for root, _dirs, files in os.walk(folder):
        found.extend(os.path.join(root, f) for f in files if f.endswith((".nbi", ".nbc")))
    return found


def numba_status() -> dict:
    """What the preferences show, without importing numba: ``version`` ('' when numba is not
    installed), ``error`` (why the kernels run as plain Python, '' when they compile),
    ``loaded`` (the engine is in use), ``cache_dir``, ``cache_files``, ``cache_bytes`` and
    ``warmup`` (one line on compiling the kernels ahead, '' before it started), ``prebuilt`` (one
    line on the kernels the zip carries: in use, or why not; '' before the engine is loaded) and
    ``sat`` (python-sat's version, the search's CDCL fallback; '' when it is not installed)."""
    import importlib.metadata
    import importlib.util
    try:
        version = importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:
        version = ""
    jit = _jit()
    if jit is not None:
        error = jit.NUMBA_ERROR
    elif os.environ.get("NONOGRAM_NO_NUMBA"):
        error = "ImportError: disabled by NONOGRAM_NO_NUMBA"
    elif not version or importlib.util.find_spec("numba") is None:
        error = "numba is not installed: the solver and voxelizer run as slow plain Python"
    else:
        error = ""
    folder = _kernel_cache_folder()
    files = _cache_files(folder)
    size = 0
    for f in files:
        with contextlib.suppress(OSError):
            size += os.path.getsize(f)
    try:
        sat = importlib.metadata.version("python-sat") if importlib.util.find_spec("pysat") else ""
    except importlib.metadata.PackageNotFoundError:
        sat = ""
    prebuilt = jit.prebuilt_status() if jit is not None and jit.HAVE_NUMBA else ""
    return {"version": version, "error": error, "loaded": jit is not None, "cache_dir": folder,
            "cache_files": len(files), "cache_bytes": size, "warmup": warmup.status_text(),
            "prebuilt": prebuilt, "sat": sat}


def clear_kernel_cache() -> int:
    """Delete our compiled kernels from disk; returns how many files went. Kernels already
    loaded keep working; the next session compiles them again."""
    # the exact folder; imports numba, fine for a click (not for a draw)
    if engine_jit.HAVE_NUMBA:
        folder = engine_jit.cache_folder()
    elif os.environ.get("NUMBA_CACHE_DIR"):
        return 0  # the user's own numba folder, shared with other programs: not ours to sweep
    else:
        folder = active_cache_dir() or numba_cache_dir()
    removed = 0
    for f in _cache_files(folder):
        try:
            os.remove(f)
            removed += 1
        except OSError:
            pass
    return removed
