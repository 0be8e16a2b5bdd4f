"""Time limits checked so a busy machine does not fail them, while a limit that is not kept still fails.

A solve's time limit and a cancel are wall-clock deadlines. On a machine shared with other work the
process gets only part of a core, so the work it does after the deadline (a slice of line solves, a
SAT chunk, the final check) takes longer in wall time by that part. ``Stopwatch.working`` is the wall
time the stretch would have taken on a core of its own: the wall time times the share of a core the
process got (CPU time over wall time; never above 1, which is the plain wall clock on a quiet machine
or with threads of its own, and never below ``FLOOR``, so a stop that never comes, or a wait, still
fails).
"""
from __future__ import annotations

import time

FLOOR = 0.25  # a share below a quarter of a core is a wait, not a busy machine


class Stopwatch:
    def __enter__(self):
        self._wall0, self._cpu0 = time.perf_counter(), time.process_time()
        self.wall = self.cpu = None
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self._wall0
        self.cpu = time.process_time() - self._cpu0
        return False

    def elapsed(self) -> float:
        """Wall seconds since the start (inside the stretch too, for a progress callback)."""
        return time.perf_counter() - self._wall0

    @property
    def share(self) -> float:
        if not self.wall:
            return 1.0
        return min(1.0, max(FLOOR, self.cpu / self.wall))

    @property
    def working(self) -> float:
        return self.wall * self.share

    def __repr__(self):
        return f"Stopwatch(wall={self.wall:.3f} s, cpu={self.cpu:.3f} s, working={self.working:.3f} s)"
