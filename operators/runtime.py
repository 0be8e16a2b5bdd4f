"""Lazy access to the engine from inside Blender.

The engine's kernels are numba ``@njit(cache=True)`` functions: numba picks the cache folder when
a kernel is *decorated*, i.e. when its module is imported. So the cache folder must be set before
an engine module is imported, and importing numba at ``register()`` would slow Blender's start-up
by a second or more. Every operator therefore reaches the engine through ``engine()``.
"""
import contextlib
import importlib
import os
import sys
import tempfile
from typing import Any

# The add-on's own package ("bl_ext.user_default.nonogram3d" when installed, "nonogram3d" in tests).
ADDON_PACKAGE = __package__.rpartition(".")[0]

_cache_dir = None


def numba_cache_dir() -> str:
    """Where numba keeps compiled kernels: the extension's user folder, else a temp folder."""
    try:
        import bpy
        return bpy.utils.extension_path_user(ADDON_PACKAGE, path="numba_cache", create=True)
    except (ValueError, ImportError, AttributeError):
        # Not running as an installed extension (tests, scripts): extension_path_user refuses
        # packages outside bl_ext.*, so fall back to a per-user temp folder.
        # Per user: a shared temp folder may hold another user's unreadable cache files.
        user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
        path = os.path.join(tempfile.gettempdir(), f"nonogram3d_numba_cache_{user}")
        os.makedirs(path, exist_ok=True)
        return path


# Installed, the engine exists in the process under this one package name, and the setting
# stays: engine modules imported lazily at call time (puzzlefile -> formats2d) then also cache in
# our writable folder, not the extension's own (possibly read-only) one. Elsewhere (tests, a
# development checkout) a second copy of the engine may live in the same process under another
# name (the engine tests' top-level ``engine``); numba keys cache files by source file, so that
# copy must not write into our folder: its index entries name its modules, and a process without
# them then fails to load ours ("No module named 'engine'"). There the setting is restored.
KEEP_CACHE_SETTING = ADDON_PACKAGE.startswith("bl_ext.")


def active_cache_dir() -> str:
    """The folder our kernels are cached in ('' before the engine is loaded or without numba)."""
    return _cache_dir or ""


@contextlib.contextmanager
def _our_numba_cache():
    """numba's cache folder set to ours while engine modules are imported (numba picks a
    kernel's cache folder when the kernel is decorated, i.e. when its module is imported)."""
    global _cache_dir
    config: Any = None
    # NONOGRAM_NO_NUMBA is engine.jit's switch; an explicit NUMBA_CACHE_DIR is the user's choice.
    if not os.environ.get("NONOGRAM_NO_NUMBA") and not os.environ.get("NUMBA_CACHE_DIR"):
        try:
            config = importlib.import_module("numba").config
        except Exception:  # missing, or refusing Blender's numpy: engine.jit reports it
            config = None
    if config is None:
        yield
        return
    if _cache_dir is None:
        _cache_dir = numba_cache_dir()
    previous = config.CACHE_DIR
    config.CACHE_DIR = _cache_dir
    try:
        yield
    finally:
        if not KEEP_CACHE_SETTING:
            config.CACHE_DIR = previous


def engine(name: str):
    """The engine submodule ``name`` (e.g. "voxelize"), its kernels cached in our folder."""
    full = f"{ADDON_PACKAGE}.engine.{name}"
    module = sys.modules.get(full)
    if module is not None:
        return module
    with _our_numba_cache():
        return importlib.import_module(full)


def numba_error() -> str:
    """Why numba is unavailable ('' when it works); imports the JIT shim, so call it lazily."""
    return engine("jit").NUMBA_ERROR


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
    ``loaded`` (the engine is in use), ``cache_dir``, ``cache_files`` and ``cache_bytes``."""
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
    return {"version": version, "error": error, "loaded": jit is not None, "cache_dir": folder,
            "cache_files": len(files), "cache_bytes": size}


def clear_kernel_cache() -> int:
    """Delete our compiled kernels from disk; returns how many files went. Kernels already
    loaded keep working; the next session compiles them again."""
    jit = engine("jit")  # the exact folder; imports numba, fine for a click (not for a draw)
    if jit.HAVE_NUMBA:
        folder = jit.cache_folder()
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
