"""The one JIT shim: every numba kernel in the engine is decorated with ``njit`` from here.

Where numba is missing (or fails to import, e.g. a numpy it does not support) the same
functions run as plain Python on numpy arrays: slow, but correct, so the add-on stays usable.
``NUMBA_DISABLE_JIT=1`` keeps numba importable but interprets every kernel (used by tests).

Compiled kernels are cached on disk, in a folder named after a digest of the engine's sources
and the package the engine was imported as. numba checks only the decorated function's own
file when it reuses a cache entry, so a kernel that calls into another engine module (every
solver kernel calls the line solvers) would otherwise keep running stale code after an edit or
an extension upgrade; and the same files imported as ``engine`` and as ``nonogram3d.engine``
must not share entries, whose pickles name their module.
"""
import hashlib
import os
import shutil

NUMBA_ERROR = ""
try:
    if os.environ.get("NONOGRAM_NO_NUMBA"):
        raise ImportError("disabled by NONOGRAM_NO_NUMBA")
    import numba as _numba

    HAVE_NUMBA = not _numba.config.DISABLE_JIT
except Exception as exc:  # ImportError, or numba refusing the installed numpy
    _numba = None
    HAVE_NUMBA = False
    NUMBA_ERROR = f"{type(exc).__name__}: {exc}"

_HERE = os.path.dirname(os.path.abspath(__file__))
_PREFIX = "nonogram-" + (__package__ or "engine").replace(".", "_") + "-"
_cache_folder = None


def _source_digest() -> str:
    h = hashlib.sha256()
    for name in sorted(os.listdir(_HERE)):
        if name.endswith(".py"):
            h.update(name.encode())
            with open(os.path.join(_HERE, name), "rb") as f:
                h.update(f.read())
    return h.hexdigest()[:16]


def cache_folder() -> str:
    """The folder this engine's kernels are cached in (decided once per process).

    Below numba's configured cache folder when one is set (the add-on sets the extension's user
    folder), else below the engine's own ``__pycache__``. Folders of older sources are removed.
    """
    global _cache_folder
    if _cache_folder is None:
        base = _numba.config.CACHE_DIR or os.path.join(_HERE, "__pycache__")
        name = _PREFIX + _source_digest()
        _cache_folder = os.path.join(base, name)
        try:
            for old in os.listdir(base):
                if old.startswith(_PREFIX) and old != name:
                    shutil.rmtree(os.path.join(base, old), ignore_errors=True)
        except OSError:
            pass  # no base folder yet, or not ours to tidy
    return _cache_folder


def njit(*args, **kwargs):
    """``numba.njit`` with the engine's defaults (cached, GIL released), or a no-op decorator."""
    if _numba is None:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f
    kwargs.setdefault("cache", True)
    kwargs.setdefault("nogil", True)

    def decorate(func):
        # numba picks a kernel's cache folder when the kernel is decorated; set it just for that
        previous = _numba.config.CACHE_DIR
        _numba.config.CACHE_DIR = cache_folder()
        try:
            return _numba.njit(**kwargs)(func)
        finally:
            _numba.config.CACHE_DIR = previous

    if len(args) == 1 and callable(args[0]):
        return decorate(args[0])
    if args:
        raise TypeError("engine kernels are typed by their arrays: pass no signature to njit")
    return decorate
