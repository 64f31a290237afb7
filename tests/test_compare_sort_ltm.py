"""Issue 22 item 6 (and the lme4 offer of item 5): SORT's whole-book LTM records the time since reading (asked as a
plan option, stored in the plan, reported by compare), reports where in the book the segments lie per gap bin,
and STM in people is labelled an extension of the paper's LTM-only human study."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchlab.data.sort.compare import compare_sort
from benchlab.tui.cli import main
from tests.test_compare_sort_designs import session


def _run(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def test_whole_book_session_stores_time_since_reading_and_compare_reports_it_with_positions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lab"
    assert _run(["run", "sort", "--participant", "SIM", "--condition", "ltm", "--design", "whole-book",
                 "--simulate", "oracle", "--trials", "16", "--practice", "0", "--read-days-ago", "3",
                 "--out", str(out)]) == 0, capsys.readouterr()
    (plan,) = (out / "sessions").glob("*.plan.json")
    assert '"since_reading_h": 72.0' in plan.read_text()
    comp = compare_sort([out / "results"], n_boot=100, include_simulated=True)
    assert any("time since reading" in n and "SIM session 1 3.0 days" in n for n in comp.notes)
    _formatted, numeric = comp.extra_tables["positions"]
    assert len(numeric.frame) == 8 and (numeric.frame["trials"] == 2).all()
    # a long gap forces the segments apart: at least 25k of the book's 69,607 words (36%) between their starts
    last = numeric.frame.loc["e69607-s20 gap 25k-40k"]
    earlier, later = last["earlier segment (mean % of book)"], last["later segment (mean % of book)"]
    assert earlier >= 0 and later <= 100 and later - earlier >= 100 * 25_000 / 69_607 - 0.1


def test_stm_people_are_labelled_an_extension_and_lme4_is_offered_where_data_allow(tmp_path: Path) -> None:
    for n in range(5):
        for b in range(4):  # the sample lists 100 trials per distance bin: a few from each bin
            session(tmp_path, f"P{n}", "stm", [(i + n + b) % 3 != 0 for i in range(3)], session_id=str(b + 1),
                    start=100 * b + 3 * n)
    comp = compare_sort([tmp_path], n_boot=100)
    assert any("extension of the paper's design" in n for n in comp.notes)
    lme4 = next(n for n in comp.notes if "lme4" in n or "Primary analysis" in n)
    assert "glmer(correct ~ log_distance + (1|participant) + (1|item)" in lme4
    assert "benchlab export trials sort" in lme4
    few = compare_sort([tmp_path / "results" / "250-s20-human_P0_results.csv"], n_boot=100)
    assert any("not offered" in n and ">= 5 people" in n for n in few.notes)
