"""The one JIT shim: every numba kernel in the engine is decorated with ``njit`` from here.

Where numba is missing (or fails to import, e.g. a numpy it does not support) the same
functions run as plain Python on numpy arrays: slow, but correct, so the add-on stays usable.
``NUMBA_DISABLE_JIT=1`` keeps numba importable but interprets every kernel (used by tests).
"""
import os

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


def njit(*args, **kwargs):
    """``numba.njit`` with the engine's defaults (cached, GIL released), or a no-op decorator."""
    if _numba is None:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f
    kwargs.setdefault("cache", True)
    kwargs.setdefault("nogil", True)
    return _numba.njit(*args, **kwargs)
