"""The plain kind (``plainkind.PlainKind`` / ``PlainSolver``): propagation on a trail
(``propagate``), probing (``probe``), the quick search and the walk, propagation over masks of
shown lines and the score's rounds (``maskprop``, ``grade``), the CDCL solver, its CNF and its
phases (``sat``, ``satblocks``, ``satphase``), and the seed study's line schedulers
(``schedulers``, ``learned``, ``oracle``)."""
