"""Lazy access to the engine from inside Blender.

The engine's kernels are numba functions cached on disk, each in the folder ``engine.jit`` gives
it when the kernel is *decorated*, i.e. when its module is imported. So the folder must be set
before an engine module is imported, and importing numba at ``register()`` would slow Blender's
start-up by a second or more. Every operator therefore reaches the engine through ``engine()``,
which first points ``engine.jit`` at the add-on's user folder. numba's own process-wide
``config.CACHE_DIR`` is never touched: other add-ons using numba keep their cache where it was.
"""
import contextlib
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
    from . import warmup
    prebuilt = jit.prebuilt_status() if jit is not None and jit.HAVE_NUMBA else ""
    return {"version": version, "error": error, "loaded": jit is not None, "cache_dir": folder,
            "cache_files": len(files), "cache_bytes": size, "warmup": warmup.status_text(),
            "prebuilt": prebuilt, "sat": sat}


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
