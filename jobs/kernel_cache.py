"""The compiled kernels on disk: what the preferences show about numba and its cache, and
clearing that cache. Never imports numba from a draw call (``numba_status``)."""
import contextlib
import os
import re
import sys
import tomllib

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


MANIFEST = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "blender_manifest.toml")


def wheels_mismatch(tag: str = "", manifest: str = MANIFEST) -> str:
    """Why numba is missing when the zip carries it for another Python only ('' when it carries it
    for this one, or carries no numba: a checkout run with the numba pip installed). A zip serves
    the Blender lines of one Python; a Blender whose Python is another one (a line newer than the
    zip knows) leaves its wheels out, and the engine would run as plain Python for no clear
    reason."""
    tag = tag or f"cp{sys.version_info[0]}{sys.version_info[1]}"
    try:
        with open(manifest, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, ValueError):
        return ""
    tags = {m.group(1) for w in data.get("wheels", [])
            if (m := re.match(r"numba-[^-]+-(cp\d+)-", os.path.basename(w)))}
    if not tags or tag in tags:
        return ""
    pythons = " and ".join(sorted(f"{t[2]}.{t[3:]}" for t in tags))
    lo, hi = data.get("blender_version_min", ""), data.get("blender_version_max")
    blender = f"Blender {lo} and newer" if not hi else f"Blender {lo} up to (not including) {hi}"
    return (f"this Nonogram 3D zip carries numba for Python {pythons} ({blender}), and this Blender "
            f"runs Python {tag[2]}.{tag[3:]}: install the zip made for this Blender's version")


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
    if error and wheels_mismatch():
        error = wheels_mismatch()
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
