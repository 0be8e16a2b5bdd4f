"""Lazy access to the engine from inside Blender.

The engine's kernels are numba ``@njit(cache=True)`` functions: numba picks the cache folder when
a kernel is *decorated*, i.e. when its module is imported. So the cache folder must be set before
the first engine module is imported, and importing numba at ``register()`` would slow Blender's
start-up by a second or more. Every operator therefore reaches the engine through ``engine()``.
"""
import importlib
import os
import tempfile

# The add-on's own package ("bl_ext.user_default.nonogram3d" when installed, "nonogram3d" in tests).
ADDON_PACKAGE = __package__.rpartition(".")[0]

_configured = False
_cache_dir = ""


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


def configure_numba() -> str:
    """Point numba's cache at a writable folder (once); returns the folder, '' without numba."""
    global _configured, _cache_dir
    if _configured:
        return _cache_dir
    _configured = True
    if os.environ.get("NONOGRAM_NO_NUMBA"):  # engine.jit's switch: the engine runs without numba
        return ""
    try:
        import numba
    except Exception:  # missing, or refusing Blender's numpy: engine.jit reports it
        return ""
    # An explicit NUMBA_CACHE_DIR from the user's environment wins.
    if not os.environ.get("NUMBA_CACHE_DIR"):
        numba.config.CACHE_DIR = numba_cache_dir()
    _cache_dir = numba.config.CACHE_DIR
    return _cache_dir


def engine(name: str):
    """The engine submodule ``name`` (e.g. "voxelize"), imported with numba configured."""
    configure_numba()
    return importlib.import_module(f"{ADDON_PACKAGE}.engine.{name}")


def numba_error() -> str:
    """Why numba is unavailable ('' when it works); imports the JIT shim, so call it lazily."""
    return engine("jit").NUMBA_ERROR
