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

*Prebuilt kernels*: the extension's zip may carry kernels compiled by the build
(``scripts/build_extension.py``) in ``engine/prebuilt/<python>-<cpu>/``, for a baseline CPU
(``BASELINES``) rather than the build machine's. A kernel missing from the user's cache is looked
up there (read-only; ``_EngineCache``) when everything its code depends on matches this process
(``prebuilt_status``): python, numba, llvmlite, numpy's major version, the engine's sources, the
package name, the target triple, and every ISA feature of the baseline present in the host CPU.
Anything else, and the kernel compiles as it would without them.
"""
import hashlib
import json
import os
import shutil
import sys
import time

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
PREBUILT_DIR = os.path.join(_HERE, "prebuilt")
PREBUILT_TAG_FILE = "TAG.json"
# A cache folder of other sources is removed once unused for this long (see cache_folder).
_TIDY_AFTER_S = 24 * 3600
_PREFIX = "nonogram-" + (__package__ or "engine").replace(".", "_") + "-"
_cache_base = None
_cache_folder = None


def _source_digest(root: str = _HERE) -> str:
    """A digest of every ``.py`` file of the engine, its subpackages' too (path and content):
    editing any of them invalidates the cached kernels and the prebuilt kernels' tag."""
    h = hashlib.sha256()
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__" and d != "prebuilt"]
        rel = os.path.relpath(folder, root)
        found.extend((os.path.normpath(os.path.join(rel, name)).replace(os.sep, "/"), os.path.join(folder, name))
                     for name in files if name.endswith(".py"))
    for name, path in sorted(found):
        h.update(name.encode())
        with open(path, "rb") as f:
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
            os.utime(_cache_folder)  # in use: another version's process must not tidy it away
        except OSError:
            pass  # not made yet
        try:
            now = time.time()
            for old in os.listdir(base):
                path = os.path.join(base, old)
                # Another version of the engine may be running right now (two Blenders, a batch
                # beside a session): tidy only folders nobody has started from for a day.
                if old.startswith(_PREFIX) and old != name and now - os.path.getmtime(path) > _TIDY_AFTER_S:
                    shutil.rmtree(path, ignore_errors=True)
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

        def save_overload(self, sig, data):
            # A cache that cannot be written (a folder removed or filled up by another process)
            # costs the next process a compile; it must never fail this one's kernel.
            try:
                super().save_overload(sig, data)
            except OSError:
                pass

        def _load_overload(self, sig, target_context):
            try:
                data = super()._load_overload(sig, target_context)
            except OSError:
                data = None  # an unreadable cache is a miss, like an empty one
            if data is None and self._enabled:
                data = _load_prebuilt(self, sig, target_context)
            return data

    return _EngineCache


# Baseline CPUs the build may compile the prebuilt kernels for (LLVM's names) and the ISA features
# each implies, as llvmlite's ``get_host_cpu_features()`` names them: code built for one runs on
# any CPU with all of them. x86-64-v2 (2009 onwards) keeps popcnt, which the line solvers' bit
# counts use; plain x86-64 would lose it.
_X86_64_V2 = ("64bit", "cmov", "cx8", "fxsr", "mmx", "sse", "sse2", "cx16", "sahf", "popcnt", "sse3",
              "ssse3", "sse4.1", "sse4.2", "crc32")
BASELINES = {
    "x86-64-v2": _X86_64_V2,
    "x86-64-v3": _X86_64_V2 + ("avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"),
}


def baseline_env(cpu: str) -> dict:
    """The environment a build process compiles for baseline ``cpu`` with (numba reads it at
    import: set it only in a process of its own, never in Blender's)."""
    return {"NUMBA_CPU_NAME": cpu, "NUMBA_CPU_FEATURES": ",".join("+" + f for f in BASELINES[cpu])}


def _host_cpu_features() -> set:
    """The ISA features of this machine's CPU (a seam: tests fake a CPU without some)."""
    from llvmlite import binding as ll
    try:
        return {name for name, on in ll.get_host_cpu_features().items() if on}
    except RuntimeError:  # LLVM cannot tell on this host: assume no feature at all
        return set()


def prebuilt_tag() -> dict:
    """What compiled code built in this process depends on; the build writes it beside the
    prebuilt kernels (``TAG.json``) and a process loads them only where its own matches."""
    import llvmlite
    import numpy
    from numba.core.registry import cpu_target
    triple, cpu, features = cpu_target.target_context.codegen().magic_tuple()
    return {"package": __package__ or "engine", "python": f"cp{sys.version_info[0]}{sys.version_info[1]}",
            "numba": _numba.__version__, "llvmlite": llvmlite.__version__,
            "numpy": numpy.__version__.split(".")[0], "digest": _source_digest(), "triple": triple,
            "cpu": cpu, "features": features}


_prebuilt = None  # (folder, magic tuple) or False, decided on the first lookup
_prebuilt_note = ""


def _prebuilt_mismatch(tag: dict, mine: dict) -> str:
    """Why kernels built with ``tag`` cannot run here ('' when they can)."""
    for field in ("python", "numba", "llvmlite", "numpy", "package", "digest", "triple"):
        if tag.get(field) != mine[field]:
            return f"built for {field} {tag.get(field)}, this is {mine[field]}"
    need = BASELINES.get(tag.get("cpu"))
    if need is None or tag.get("features") != ",".join("+" + f for f in need):
        return f"unknown baseline CPU {tag.get('cpu')!r}"
    missing = sorted(set(need) - _host_cpu_features())
    if missing:
        return f"this CPU lacks {', '.join(missing)} ({tag['cpu']})"
    return ""


def _find_prebuilt():
    """The prebuilt folder this process can load from, and its kernels' magic tuple (None when
    there is none); sets ``_prebuilt_note``."""
    global _prebuilt_note
    try:
        names = sorted(os.listdir(PREBUILT_DIR))
    except OSError:
        _prebuilt_note = "none shipped for this platform: kernels compile on first use"
        return None
    try:
        mine = dict(prebuilt_tag(), cpu=None, features=None)
    except Exception as exc:  # numba internals changed: its own cache still works
        _prebuilt_note = f"not used ({type(exc).__name__}: {exc})"
        return None
    found = []
    reasons = []
    for name in names:
        try:
            with open(os.path.join(PREBUILT_DIR, name, PREBUILT_TAG_FILE), encoding="utf-8") as f:
                tag = json.load(f)
            why = _prebuilt_mismatch(tag, mine)
        except Exception as exc:  # a missing or malformed TAG.json
            why = f"unreadable ({type(exc).__name__})"
            tag = {}
        if why:
            # the reason of the folder built for this python says most
            reasons.insert(0 if tag.get("python") == mine["python"] else len(reasons), f"{name}: {why}")
        else:
            found.append((len(BASELINES[tag["cpu"]]), name, (tag["triple"], tag["cpu"], tag["features"])))
    if not found:
        _prebuilt_note = "not used (" + (reasons[0] if reasons else "none shipped") + "): kernels compile on first use"
        return None
    _n, name, magic = max(found)  # the highest baseline this CPU runs
    _prebuilt_note = f"in use ({name})"
    return os.path.join(PREBUILT_DIR, name), magic


def prebuilt_status() -> str:
    """One line on the prebuilt kernels: in use (which), or why not."""
    _prebuilt_folder()
    return "Prebuilt kernels: " + _prebuilt_note


def _prebuilt_folder():
    global _prebuilt
    if _prebuilt is None:
        _prebuilt = _find_prebuilt() or False
    return _prebuilt


def _load_prebuilt(cache, sig, target_context):
    """``cache``'s kernel for ``sig`` from the prebuilt folder, or None. Its index keys carry
    the baseline's magic tuple (triple, CPU, features) where numba's own lookup would use the
    host's; the rest of the key (signature, bytecode hashes) and the source stamp (a hash of
    the file's contents) are numba's own."""
    try:
        found = _prebuilt_folder()
        if not found:
            return None
        folder, magic = found
        from numba.core import caching
        sig_, _host_magic, code = cache._index_key(sig, target_context.codegen())
        stamp = cache._impl.locator.get_source_stamp()
        index = caching.IndexDataCacheFile(folder, cache._impl.filename_base, stamp)
        data = index.load((sig_, magic, code))
        return None if data is None else cache._impl.rebuild(target_context, data)
    except Exception:  # unreadable or foreign entries: compile instead
        return None


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


_bound = {}  # (kernel, the arguments' fingerprints) -> compiled entry


def _fingerprints(args):
    """numba's own cheap key of the arguments' types (what its dispatch caches typing by; ~4 µs for
    the solver's three tuples, where typing them takes ~200 µs), or None where it has none."""
    try:
        from numba._dispatcher import compute_fingerprint
        return tuple(compute_fingerprint(a) for a in args)
    except Exception:  # an internal of numba's that moved, or a value it cannot fingerprint
        return None


def bind(kernel, *args):
    """``kernel``'s compiled code for the types of ``args`` (compiled or loaded now), to be called
    with arguments of exactly those types, positionally; without numba, the kernel itself.

    numba's dispatch types every argument on every call: ~5 µs for a kernel taking a solver's
    three tuples of ~40 arrays, as much as a search node's smaller kernels take to run, and a
    node calls several. The compiled code's own entry skips that (~1.5 µs) and checks nothing
    (an array of another dtype would be read as this one's), so bind only where the caller holds
    the arrays for the kernel's life and passes its scalars as the same Python types. The entries
    are kept by the arguments' fingerprints: a bind costs ~4 µs once the types were met."""
    if not HAVE_NUMBA or not hasattr(kernel, "typeof_pyval"):
        return kernel
    prints = _fingerprints(args)
    key = None if prints is None else (kernel, prints)
    entry = _bound.get(key) if key is not None else None
    if entry is None:
        entry = kernel.compile(tuple(kernel.typeof_pyval(a) for a in args))
        if key is not None:
            _bound[key] = entry
    return entry


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
