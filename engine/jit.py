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

Each kernel gets its own cache object pointing at that folder (``_EngineCache``), so numba's
process-wide ``config.CACHE_DIR`` is never changed: another add-on using numba in the same
Blender keeps its own cache. ``set_cache_base`` picks the folder's parent (the add-on passes its
user folder) and must be called before the first kernel module is imported.
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
_cache_base = None
_cache_folder = None


def _source_digest() -> str:
    h = hashlib.sha256()
    for name in sorted(os.listdir(_HERE)):
        if name.endswith(".py"):
            h.update(name.encode())
            with open(os.path.join(_HERE, name), "rb") as f:
                h.update(f.read())
    return h.hexdigest()[:16]


def set_cache_base(path: str) -> None:
    """Cache kernels below ``path`` (the add-on's user folder). Call before any kernel module is
    imported: a kernel's cache folder is fixed when it is decorated."""
    global _cache_base, _cache_folder
    if _cache_folder is not None and _cache_base != path:
        raise RuntimeError("engine kernels were already decorated with another cache folder")
    _cache_base = path


def cache_base() -> str:
    """The folder holding this engine's cache folders: ``set_cache_base``'s, else numba's
    configured one (``NUMBA_CACHE_DIR``), else the engine's ``__pycache__``."""
    if _cache_base:
        return _cache_base
    if _numba is not None and _numba.config.CACHE_DIR:
        return _numba.config.CACHE_DIR
    return os.path.join(_HERE, "__pycache__")


def cache_folder() -> str:
    """The folder this engine's kernels are cached in (decided once per process, below
    ``cache_base()``). Folders of older sources are removed."""
    global _cache_folder
    if _cache_folder is None:
        base = cache_base()
        name = _PREFIX + _source_digest()
        _cache_folder = os.path.join(base, name)
        try:
            for old in os.listdir(base):
                if old.startswith(_PREFIX) and old != name:
                    shutil.rmtree(os.path.join(base, old), ignore_errors=True)
        except OSError:
            pass  # no base folder yet, or not ours to tidy
    return _cache_folder


def _engine_cache_class():
    """numba's per-function cache with a locator that answers ``cache_folder()``; None when this
    numba's caching internals differ from the ones this was written against (0.68)."""
    try:
        from numba.core import caching
        base_locator = caching._CacheLocator
        mixin = caching._SourceFileBackedLocatorMixin
        impl = caching.CompileResultCacheImpl
        cache = caching.FunctionCache
    except (ImportError, AttributeError):
        return None

    class _Locator(mixin, base_locator):
        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = cache_folder()

        def get_cache_path(self):
            return self._cache_path

    class _Impl(impl):
        # ours first; numba's own (e.g. an in-tree __pycache__) if ours is not writable
        _locator_classes = [_Locator] + list(impl._locator_classes)

    class _EngineCache(cache):
        _impl_class = _Impl

    return _EngineCache


_EngineCache = _engine_cache_class() if _numba is not None else None


def _unliteral_calls(kernel):
    """Compile ``kernel`` for the plain types of its arguments when another kernel calls it
    with constants: numba would otherwise compile one more copy for each constant it meets
    (``f(x, 0)`` and ``f(x, i)`` were two compilations of ``f``, 3 of ``raycast._sort_pairs``)."""
    from numba.core import types
    get = kernel.get_call_template

    def get_call_template(args, kws):
        return get(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

    kernel.get_call_template = get_call_template
    return kernel


def njit(*args, **kwargs):
    """``numba.njit`` with the engine's defaults (cached in ``cache_folder()``, GIL released), or
    a no-op decorator."""
    if _numba is None:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f
    cache = kwargs.pop("cache", True)
    kwargs.setdefault("nogil", True)

    def decorate(func):
        if not HAVE_NUMBA:  # NUMBA_DISABLE_JIT: numba's own interpreting stand-in
            return _numba.njit(**kwargs)(func)
        if not cache:
            return _unliteral_calls(_numba.njit(**kwargs)(func))
        if _EngineCache is not None:
            kernel = _unliteral_calls(_numba.njit(**kwargs)(func))
            kernel._cache = _EngineCache(kernel.py_func)
            return kernel
        # unknown numba internals: point the setting at our folder just while decorating
        previous = _numba.config.CACHE_DIR
        _numba.config.CACHE_DIR = cache_folder()
        try:
            return _unliteral_calls(_numba.njit(cache=True, **kwargs)(func))
        finally:
            _numba.config.CACHE_DIR = previous

    if len(args) == 1 and callable(args[0]):
        return decorate(args[0])
    if args:
        raise TypeError("engine kernels are typed by their arrays: pass no signature to njit")
    return decorate
