"""The names the solve pipeline answers to: methods, countings, the seed's configurations.

Kept apart from ``driver.py`` so the CLI can build its argument parser and read the puzzle (and
report a bad file) before the kernels load.
"""

METHODS = ("brute", "hierarchical", "heuristic", "learned", "full")
REFERENCE_METHODS = ("oracle",)  # solve() takes it; the add-on does not offer it
# How the seed schedulers count linesolvers (schedulers.py): strict, or the seed's own rule.
COUNTINGS = ("strict", "seed")

# The seed study's Table 5 columns: (label, method, prepass).
SEED_CONFIGS = (("Brute", "brute", False), ("Hier", "hierarchical", False),
                ("Hier+Pre", "hierarchical", True), ("Heur", "heuristic", False),
                ("Heur+Pre", "heuristic", True))
# Compare Solvers in the add-on: the seed's five and the learned scheduler.
COMPARE_CONFIGS = SEED_CONFIGS + (("Learned", "learned", False), ("Learned+Pre", "learned", True))
