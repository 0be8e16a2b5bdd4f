"""A CLI process's start-up and exit, which cost more than a small puzzle's solve.

Measured on ``python -m engine solve`` of a 5x5 puzzle (CPU time of the whole process, medians
of paired runs on the shared 2-core machine, bytecode written): 0.59 s, of which the
interpreter, numpy and numba's import ~0.2 s, numba's first kernel load (its typing tables)
~0.1 s, loading the solver's kernels ~0.1 s, and two costs that are not work at all:

- the garbage collector's passes while modules import and kernels load: the start-up makes
  hundreds of thousands of objects and no garbage worth a pass over them (~10 %; the commands
  hold it off meanwhile with ``gcpause.collector_held``, as ``solve`` and ``design`` do);
- the interpreter's teardown at exit: freeing numba's and LLVM's objects one by one (~20 %).
"""
from __future__ import annotations

import os
import sys


def exit_now(code: int) -> None:
    """End the process with ``code`` once the command has returned, without the interpreter's
    teardown: its output flushed, nothing left running that needs it (the commands join their
    threads; numba writes its cache files whole before it uses them)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # a reader that went away (`| head`) or a closed stream: nothing to lose
    os._exit(code)
