"""Benchmark harness (not part of the add-on)."""
