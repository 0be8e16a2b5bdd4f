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

A large kernel that many others call (the line solvers) is *shared* (``njit(shared=True)``):
compiled once and called through a symbol, not compiled again into each caller.

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

        # A kernel calling a shared kernel (``njit(shared=True)``) holds a reference to its
        # symbol, which must be defined before the kernel's code is loaded: the entry lists the
        # shared kernels (and signatures) it reaches, and loading it compiles or loads them first.
        def reduce(self, cres):
            return super().reduce(cres), tuple(sorted(_reached_shared(cres.library), key=repr))

        def rebuild(self, target_context, payload):
            inner, shared = payload
            for key in shared:
                _ensure_shared(key)
            cres = super().rebuild(target_context, inner)
            _shared_calls(cres.library).update(shared)
            return cres

    class _EngineCache(cache):
        _impl_class = _Impl

    return _EngineCache


_EngineCache = _engine_cache_class() if _numba is not None else None

# Shared kernels: numba links the code of every kernel a kernel calls into the caller and
# optimizes and generates all of it there again, so a large callee reached from many kernels
# (the line solvers) is compiled once per kernel Python calls. A shared kernel is compiled once
# and called through a symbol of its own (``_shared_symbol``), defined for the process when an
# overload of it is compiled or loaded; the caller's code is cached with the list of the shared
# kernels it reaches (``_Impl.reduce``). The call cannot be inlined: share only kernels whose
# body costs far more than a call.
_shared_alive = []  # compile results whose code is called by address: never freed


def _shared_symbol(module: str, qualname: str, args) -> str:
    digest = hashlib.sha256(repr(tuple(args)).encode()).hexdigest()[:16]
    return f"nonogram.shared.{module}.{qualname}.{digest}"


def _shared_calls(library) -> set:
    """The shared kernels (module, qualname, argument types) the code of ``library`` calls."""
    calls = getattr(library, "_nonogram_shared", None)
    if calls is None:
        calls = set()
        library._nonogram_shared = calls
    return calls


def _reached_shared(library, seen=None) -> set:
    """``_shared_calls`` of ``library`` and of every library linked into it."""
    seen = set() if seen is None else seen
    if id(library) in seen:
        return set()
    seen.add(id(library))
    found = set(_shared_calls(library))
    for linked in getattr(library, "_linking_libraries", ()):
        found |= _reached_shared(linked, seen)
    return found


def _ensure_shared(key) -> None:
    """Compile (or load) shared kernel ``key``'s overload, which defines its symbol."""
    import importlib
    module, qualname, args = key
    kernel = importlib.import_module(module)
    for part in qualname.split("."):
        kernel = getattr(kernel, part)
    kernel.compile(tuple(args))


def _call_by_symbol(kernel):
    """Make calls from other kernels to ``kernel`` calls through its symbol, not linked code."""
    from llvmlite import binding as ll
    from numba.core import cgutils, imputils
    add = kernel.add_overload
    module, qualname = kernel.py_func.__module__, kernel.py_func.__qualname__

    def add_overload(cres):
        add(cres)
        if cres.objectmode:
            return
        args = tuple(cres.signature.args)
        key = (module, qualname, args)
        name = _shared_symbol(module, qualname, args)
        fndesc = cres.fndesc
        ll.add_symbol(name, cres.library.get_pointer_to_function(fndesc.llvm_func_name))
        _shared_alive.append(cres)

        def call(context, builder, sig, llargs):
            fnty = context.call_conv.get_function_type(fndesc.restype, fndesc.argtypes)
            fn = cgutils.get_or_insert_function(builder.module, fnty, name)
            context.apply_target_attributes(fn, fndesc.argtypes, fndesc.restype)
            context.call_conv.decorate_function(fn, fndesc.args, fndesc.argtypes, noalias=fndesc.noalias)
            status, value = context.call_conv.call_function(builder, fn, fndesc.restype, fndesc.argtypes,
                                                            llargs)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            value = imputils.fix_returning_optional(context, builder, sig, status, value)
            _shared_calls(context.active_code_library).add(key)
            return imputils.impl_ret_new_ref(context, builder, fndesc.restype, value)

        call.signature = fndesc.argtypes
        call.libs = ()  # nothing linked: the point
        # replaces numba's implementation of the call (which links cres.library into the caller)
        defns = kernel.targetctx._defns
        defns.pop(cres.entry_point, None)
        defns[cres.entry_point].append(call, call.signature)

    kernel.add_overload = add_overload
    return kernel


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
    a no-op decorator. ``shared=True``: other kernels call this one's compiled code instead of
    compiling it into theirs (see "Shared kernels" above)."""
    if _numba is None:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f
    cache = kwargs.pop("cache", True)
    # only where the engine's cache records what its entries call (``_Impl``): numba's own cache
    # would load a caller before the symbol it calls is defined, which aborts the process
    shared = kwargs.pop("shared", False) and _EngineCache is not None
    kwargs.setdefault("nogil", True)

    def decorate(func):
        if not HAVE_NUMBA:  # NUMBA_DISABLE_JIT: numba's own interpreting stand-in
            return _numba.njit(**kwargs)(func)
        if not cache:
            kernel = _unliteral_calls(_numba.njit(**kwargs)(func))
            return _call_by_symbol(kernel) if shared else kernel
        if _EngineCache is not None:
            kernel = _unliteral_calls(_numba.njit(**kwargs)(func))
            kernel._cache = _EngineCache(kernel.py_func)
            return _call_by_symbol(kernel) if shared else kernel
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
