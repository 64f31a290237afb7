"""Rendering details a reader notices: left-aligned long text, empty tables, MultiIndex headers."""

from __future__ import annotations

import pandas as pd

from benchlab.data.tables import Table, render


def test_long_text_is_left_aligned_in_table_format() -> None:
    notes = ["short", "a long methods note " * 10]
    frame = pd.DataFrame({"note": notes}, index=pd.RangeIndex(1, 3, name="#"))
    lines = render([Table("methods", frame)], "table").splitlines()
    assert lines[3] == "1 short"  # not padded on the left to the longest note's width
    assert lines[4].startswith("2 a long methods note")
    assert all(line == line.rstrip() for line in lines)


def test_empty_table_prints_a_sentence_not_an_empty_grid() -> None:
    table = Table("humans minus model", pd.DataFrame(), empty_text="(no shared items)")
    md = render([table], "markdown")
    assert md == "### humans minus model\n\n(no shared items)\n"
    assert "(no shared items)" in render([table], "table") and "|" not in render([table], "table")


def test_multiindex_header_leaves_out_empty_levels() -> None:
    frame = pd.DataFrame([[3, 0.5]], index=pd.Index([1], name="chapter"),
                         columns=pd.MultiIndex.from_tuples([("", "questions"), ("run", "MRR@10")]))
    header = render([Table("per chapter", frame)], "markdown").splitlines()[2]
    assert header == "| chapter | questions | run / MRR@10 |"
