"""Lazy access to the engine from inside Blender.

The engine's kernels are numba functions cached on disk, each in the folder ``engine.jit`` gives
it when the kernel is *decorated*, i.e. when its module is imported. So the folder must be set
before an engine module is imported, and importing numba at ``register()`` would slow Blender's
start-up by a second or more. Every operator therefore reaches the engine through ``engine()``,
which first points ``engine.jit`` at the add-on's user folder. numba's own process-wide
``config.CACHE_DIR`` is never touched: other add-ons using numba keep their cache where it was.
"""
import importlib
import os
import sys
import tempfile
import threading

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


_configure_lock = threading.Lock()


def active_cache_dir() -> str:
    """The folder our kernels are cached below ('' before the engine is loaded, without numba,
    or when ``NUMBA_CACHE_DIR`` chooses numba's folder)."""
    return _cache_dir or ""


def _configure_jit():
    """Point engine.jit at our folder, once, before any kernel module is imported."""
    global _cache_dir
    with _configure_lock:
        if _cache_dir is not None:
            return
        # NONOGRAM_NO_NUMBA is engine.jit's switch; an explicit NUMBA_CACHE_DIR is the user's choice.
        if os.environ.get("NONOGRAM_NO_NUMBA") or os.environ.get("NUMBA_CACHE_DIR"):
            _cache_dir = ""
            return
        jit = importlib.import_module(f"{ADDON_PACKAGE}.engine.jit")
        _cache_dir = numba_cache_dir() if jit.HAVE_NUMBA else ""
        if _cache_dir:
            jit.set_cache_base(_cache_dir)


def engine(name: str):
    """The engine submodule ``name`` (e.g. "voxelize"), its kernels cached in our folder."""
    full = f"{ADDON_PACKAGE}.engine.{name}"
    module = sys.modules.get(full)
    # a module another thread (the warm-up's) is still importing is in sys.modules half-made:
    # import_module waits for that import to finish
    if module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False):
        return module
    _configure_jit()
    return importlib.import_module(full)


def numba_error() -> str:
    """Why numba is unavailable ('' when it works); imports the JIT shim, so call it lazily."""
    return engine("jit").NUMBA_ERROR


class LazyModule:
    """An engine module imported through ``engine()`` on its first attribute access.

    The names in ``engine_access`` are these at run time and the real modules for mypy, so a
    call into the engine is type-checked while enabling the add-on still imports nothing of it.
    """

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        return getattr(engine(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy engine module {self._name!r}>"


def lazy(name: str) -> LazyModule:
    return LazyModule(name)


def load(module) -> None:
    """Import an ``engine_access`` module now (e.g. on the main thread, or in the thread that
    should pay for compiling), not on its first use."""
    if isinstance(module, LazyModule):
        engine(module._name)
