"""The compile gate: which kernel parts are compiled (or loaded) in this process, and ``ensure``,
which a solve or a design calls before its timed section.

The warm-up (``warmup.py``) knows every part of the engine and fills ``PARTS`` with the steps
that compile each part's kernels; the solver and the design reach it only through this module,
so the imports go one way (warm-up -> solver/design -> gate). ``ensure`` loads the warm-up's
steps on first need through the loader the package sets (``engine/__init__.py``): a solve that
runs without anyone having started a warm-up still compiles its kernels outside its timed
section. One lock for all: a solve that needs a part a warm-up thread is compiling waits for it
instead of compiling it a second time.
"""
from __future__ import annotations

import threading
import time

# part -> [(step name, step)]; filled by warmup.py (see register)
PARTS: dict = {}
_lock = threading.RLock()
_done: set = set()
_running: set = set()  # parts the thread holding _lock is running (ensure re-enters through solve)
_external = None  # see set_external
_loader = None  # see set_loader


def register(parts: dict) -> None:
    """Add the warm-up's parts: ``{part: [(step name, step), ...]}``."""
    PARTS.update(parts)


def set_loader(load) -> None:
    """``load()`` registers the parts (imports the warm-up); called once, when a part is asked for
    before any is registered."""
    global _loader
    _loader = load


def _registered() -> dict:
    if not PARTS and _loader is not None:
        _loader()
    return PARTS


# part -> the larger part whose steps include its own: once that one is done, so is this one,
# and a process compiling that one (``set_external``) compiles this one too. ``lines``, line
# solving alone, is the first step of ``solve``: a puzzle line solving settles needs no more, and
# the full method loads the rest (``later_parts``) only when line solving leaves cells open, so a
# CLI solve of such a puzzle does not load the search's kernels (~0.07 s of its start-up).
WITHIN = {"lines": "solve"}


def parts_for(method: str, linesolver: str, grade: bool = False) -> tuple:
    """The parts ``solve(method=..., linesolver=..., grade=...)`` needs before it starts (the
    full method: those of line solving; the rest when it needs them, ``later_parts``)."""
    parts = ("lines",) if method == "full" else ("schedulers",)
    return parts + (("seed",) if linesolver == "seed" else ()) + (("grade",) if grade else ())


def later_parts(method: str) -> tuple:
    """The parts the full method loads once line solving leaves cells unknown: probing, the
    search, the CDCL solver's encoding, the local search."""
    return ("solve",) if method == "full" else ()


class Stopped(Exception):
    """``run_parts`` was asked to stop (``stop`` set) before all its steps ran."""


def run_parts(parts, on_step=None, stop=None):
    """Run the steps of the parts not done yet, one thread at a time; ``on_step(name)`` is
    called after each step. ``stop`` (a ``threading.Event``) is looked at before each step: once
    set, the rest is left undone and ``Stopped`` raised (a step itself, one numba compile, cannot
    be cut short: a few seconds at most)."""
    steps = _registered()
    with _lock:
        for part in parts:
            if part in _done or part in _running or WITHIN.get(part) in _running:
                continue
            _running.add(part)
            try:
                for name, step in steps[part]:
                    if stop is not None and stop.is_set():
                        raise Stopped(part)
                    step()
                    if on_step is not None:
                        on_step(name)
            finally:
                _running.discard(part)
            _done.add(part)
            _done.update(p for p, whole in WITHIN.items() if whole == part)


def set_external(wait) -> None:
    """Before compiling a part itself, ``ensure`` calls ``wait(part)`` (None: no such hook): the
    add-on has another process compile the kernels into the same disk cache, and a solve
    started meanwhile waits for it and then only loads them, instead of compiling them twice."""
    global _external
    _external = wait


def ready(*parts) -> bool:
    """Whether the kernels of ``parts`` are compiled (or loaded) in this process."""
    return all(p in _done for p in parts)


def done_parts() -> list:
    """The parts compiled (or loaded) in this process, sorted."""
    return sorted(_done)


def prepare(parts, progress=None, shown: float = 0.0):
    """``ensure(*parts)`` for a solve: ``progress(shown, "preparing solver")`` first when there is
    something to load, and None without loading when it asks to cancel; else the seconds the
    load took (which the caller keeps out of its timer)."""
    if progress is not None and not ready(*parts) and progress(shown, "preparing solver"):
        return None
    return ensure(*parts)


def forget(part: str) -> None:
    """Count ``part`` as not compiled (tests: to watch a part be compiled again)."""
    _done.discard(part)


def ensure(*parts) -> float:
    """Compile (or load) the kernels of ``parts`` unless done already; the seconds this took,
    waiting for a background warm-up included (0 when everything was ready)."""
    if ready(*parts):
        return 0.0
    from . import jit  # here, not at the top: importing the package must not import numba
    if not jit.HAVE_NUMBA:  # plain Python: nothing to compile, and the steps would only cost time
        _done.update(parts)
        return 0.0
    t0 = time.perf_counter()
    if _external is not None:
        for part in parts:
            if part not in _done:
                _external(WITHIN.get(part, part))
    run_parts(parts)
    return time.perf_counter() - t0
