"""docs/BENCHMARKS.md's paragraphs by hand survive benchmarks/report.py writing it again."""
from pathlib import Path

import pytest

from benchmarks import handwritten as hw

DOC = Path(__file__).resolve().parent.parent / "docs" / "BENCHMARKS.md"


def _hand(*lines):
    return "\n".join([hw.BEGIN, *lines, hw.END])


GENERATED = "\n".join([
    "# Benchmarks", "",
    "## Speed", "", "Table run 2.", "| a | b |", "|---|---|", "| 1 | 2 |", "",
    "Closing line.", "",
    "## Colour", "", "Colour run 2.", "",
    "## Notes", "", "- a note", ""])


def test_a_block_stays_after_its_paragraph_when_that_is_generated_again():
    old = "\n".join(["# Benchmarks", "", "## Speed", "", "Table run 1.", "| a | b |", "|---|---|", "| 1 | 2 |",
                     "", _hand("Why row 1 is slow."), "", "Closing line.", ""])
    new = hw.keep(GENERATED, old)
    assert "| 1 | 2 |\n\n" + _hand("Why row 1 is slow.") + "\n\nClosing line." in new


def test_a_block_whose_paragraph_changed_goes_to_the_end_of_its_section():
    old = "\n".join(["# Benchmarks", "", "## Colour", "", "Colour run 1.", "", _hand("A bisection."), ""])
    new = hw.keep(GENERATED, old)
    assert "Colour run 2.\n\n" + _hand("A bisection.") + "\n\n## Notes" in new


def test_blocks_in_a_row_keep_their_order_and_a_block_under_a_heading_comes_first():
    old = "\n".join(["# Benchmarks", "", "## Speed", "", _hand("first"), "", _hand("second"), "",
                     "Table run 1.", ""])
    new = hw.keep(GENERATED, old)
    assert "## Speed\n\n" + _hand("first") + "\n\n" + _hand("second") + "\n\nTable run 2." in new


def test_a_block_after_a_common_line_stays_in_its_own_section():
    """A table's last line may stand in another section too: the block goes after the one in
    its own section."""
    generated = GENERATED.replace("Colour run 2.", "Colour run 2.\n| a | b |\n|---|---|\n| 1 | 2 |")
    old = "\n".join(["# Benchmarks", "", "## Colour", "", "Colour run 2.", "| a | b |", "|---|---|", "| 1 | 2 |",
                     "", _hand("Why."), ""])
    new = hw.keep(generated, old)
    assert "| 1 | 2 |\n\n" + _hand("Why.") + "\n\n## Notes" in new
    assert new.index(_hand("Why.")) > new.index("## Colour")


def test_a_block_whose_section_is_gone_is_kept_at_the_end_and_only_once():
    old = "\n".join(["# Benchmarks", "", "## Old section", "", "Gone.", "", _hand("Still true."), ""])
    new = hw.keep(GENERATED, old)
    assert new.endswith(f"{hw.ORPHANS}\n\n" + _hand("Still true.") + "\n")
    assert hw.keep(GENERATED, new) == new  # the next run keeps it there, once


def test_keeping_twice_changes_nothing_and_without_takes_the_blocks_out():
    old = "\n".join(["# Benchmarks", "", "## Speed", "", "Table run 1.", "", _hand("x"), "",
                     "## Colour", "", "Colour run 2.", "", _hand("y"), ""])
    once = hw.keep(GENERATED, old)
    assert hw.keep(GENERATED, once) == once
    assert hw.BEGIN not in hw.without(once) and "Colour run 2." in hw.without(once)


def test_an_unclosed_marker_is_an_error():
    with pytest.raises(hw.Unclosed, match="line 3"):
        hw.blocks("# B\n\n" + hw.BEGIN + "\nno end\n")


def test_every_block_of_the_document_comes_back():
    """The document itself: its generated part alone, with its blocks put back, holds every block
    verbatim and in the same order."""
    if not DOC.exists():
        pytest.skip("docs/BENCHMARKS.md is not there")
    text = DOC.read_text(encoding="utf-8")
    found = hw.blocks(text)
    assert found, "docs/BENCHMARKS.md has no paragraph marked as written by hand"
    back = hw.keep(hw.without(text), text)
    where = [back.index(block) for _, _, block in found]
    assert where == sorted(where)
    assert hw.ORPHANS not in back
