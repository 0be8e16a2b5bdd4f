"""The paragraphs of docs/BENCHMARKS.md written by hand, kept when benchmarks/report.py writes the
document again from the result files.

A measurement that no result file holds (a bisection, a profile, runs read from a log, why a
target is missed) is written between two markers, each on a line of its own::

    <!-- by hand -->
    ...
    <!-- /by hand -->

``keep`` puts every such block back into the newly generated text where it stood: after the
line that came before it when that line is generated again unchanged, else at the end of its
section (the ``#`` heading above it), else under a last section of their own, so no block is
ever lost, only moved.
"""
from __future__ import annotations

BEGIN = "<!-- by hand -->"
END = "<!-- /by hand -->"
ORPHANS = "## Kept by hand (their sections are no longer generated)"


class Unclosed(ValueError):
    """A ``BEGIN`` marker with no ``END`` after it."""


def blocks(text: str) -> list:
    """``(anchor, heading, block)`` for each block by hand in ``text``, in order: the last
    non-blank line before it that is not by hand (None when another block comes right before it),
    the heading of its section ("" before the first) and its lines, markers included."""
    lines = text.split("\n")
    found: list = []
    anchor: "str | None" = ""
    heading = ""
    i = 0
    while i < len(lines):
        if lines[i].strip() == BEGIN:
            j = i + 1
            while j < len(lines) and lines[j].strip() != END:
                j += 1
            if j == len(lines):
                raise Unclosed(f"'{BEGIN}' at line {i + 1} has no '{END}' after it")
            found.append((anchor, heading, "\n".join(lines[i:j + 1])))
            anchor = None  # the next block, with nothing generated in between, follows this one
            i = j + 1
            continue
        if lines[i].strip():
            anchor = lines[i]
            if lines[i].startswith("#"):
                heading = lines[i]
        i += 1
    return found


def _level(line: str) -> int:
    return len(line) - len(line.lstrip("#")) if line.startswith("#") else 0


def _section_end(lines: list, start: int) -> int:
    """The index of the next heading of the same or a higher level after ``lines[start]``."""
    level = _level(lines[start])
    for k in range(start + 1, len(lines)):
        if 0 < _level(lines[k]) <= level:
            return k
    return len(lines)


def _after_paragraph(lines: list, k: int) -> int:
    """The index just past the paragraph (or table, or list) holding ``lines[k]``."""
    if lines[k].startswith("#"):
        return k + 1
    while k + 1 < len(lines) and lines[k + 1].strip() and not lines[k + 1].startswith("#"):
        k += 1
    return k + 1


def keep(new: str, old: str) -> str:
    """``new`` (freshly generated) with the blocks by hand of ``old`` put back."""
    lines = new.split("\n")
    orphans: list = []
    last = None  # just past the previous block's end marker in ``lines``
    for anchor, heading, block in blocks(old):
        # the anchor is looked for in the block's own section (a table's rule or a common line
        # stands in many)
        top = lines.index(heading) if heading and heading in lines else -1
        end = _section_end(lines, top) if top >= 0 else len(lines)
        found = next((k for k in range(max(top, 0), end) if lines[k] == anchor), -1) if anchor else -1
        if anchor is None and last is not None:
            at = last
        elif found >= 0:
            at = _after_paragraph(lines, found)
        elif top >= 0:
            at = end
            while at > 0 and not lines[at - 1].strip():
                at -= 1
        else:
            orphans.append(block)
            last = None
            continue
        lead = [""] if at > 0 and lines[at - 1].strip() else []
        trail = [""] if at < len(lines) and lines[at].strip() else []
        lines[at:at] = lead + block.split("\n") + trail
        last = at + len(lead) + block.count("\n") + 1
    text = "\n".join(lines)
    if orphans:
        text = text.rstrip("\n") + f"\n\n{ORPHANS}\n\n" + "\n\n".join(orphans) + "\n"
    return text


def without(text: str) -> str:
    """``text`` with its blocks by hand taken out (what the generator alone writes)."""
    out: list = []
    inside = False
    for line in text.split("\n"):
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)
