"""The Blender lines the tests run on, as scripts/blender_lines.txt lists them (oldest first)."""
from __future__ import annotations

from pathlib import Path

LINES_FILE = Path(__file__).resolve().parent / "blender_lines.txt"
FIELDS = ("line", "python", "venv", "requirements", "runs")


def read_lines(path: Path = LINES_FILE) -> list:
    """One dict per line of the table (``FIELDS``), in the file's order."""
    rows = []
    for text in path.read_text(encoding="utf-8").splitlines():
        words = text.split("#", 1)[0].split()
        if words:
            if len(words) != len(FIELDS):
                raise ValueError(f"{path.name}: expected {len(FIELDS)} fields ({' '.join(FIELDS)}): {text!r}")
            rows.append(dict(zip(FIELDS, words)))
    return rows


def version_key(version: str) -> tuple:
    """'5.10' sorts after '5.9'."""
    return tuple(int(p) for p in version.split("."))
