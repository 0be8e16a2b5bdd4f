"""The puzzle kinds' own code, one folder a kind: ``plain/`` (block lists and 3D count clues on
bit kernels) and ``colour/`` (clues per colour on automata over value masks). The pipelines above
(``solve/``, ``design/``) reach a kind through ``solve.kinds.kind_for`` and never the other way:
a kind imports only lower parts (``lines/``, ``model/``, ``jit``) and, for the colour kind, the
plain kind's shared pieces. docs/DEVELOPING.md "One pipeline, puzzle kinds" has the tree and
where to add a kind."""
