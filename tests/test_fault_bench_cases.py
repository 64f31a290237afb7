"""``benchlab bench faults`` grows file-level cases (issue 23, done-when): the study-file cases run and count
nothing lost on today's code, the review cases see the loss and duplication a positional merge made, and the table
puts the cases beside the kill figures."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchlab.annotations.fastbook import review as review_module
from benchlab.annotations.harness.faults import Tally, cases_table
from benchlab.tui.fastbook.fault_cases import review_cases
from benchlab.tui.harness.fault_cases import fault_case_groups
from benchlab.tui.harness.fault_kit import CaseTally
from benchlab.tui.sort.fault_cases import study_cases


def test_the_study_file_cases_find_nothing_lost(tmp_path: Path) -> None:
    tally = CaseTally()
    study_cases(tmp_path, random.Random(1), tally)
    assert tally.cases >= 30 and (tally.lost, tally.duplicated, tally.internal) == (0, 0, 0), tally.problems


def test_the_review_cases_see_a_positional_merge_lose_and_duplicate(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """With components aligned by position again (the old merge), the cases must count losses: a harness that
    cannot see one proves nothing."""
    def by_position(a: list[object], b: list[object]) -> list[tuple[int | None, int | None]]:
        return [(i if i < len(a) else None, i if i < len(b) else None) for i in range(max(len(a), len(b)))]

    monkeypatch.setattr(review_module, "align", by_position)
    tally = CaseTally()
    review_cases(tmp_path, random.Random(1), tally)
    assert tally.lost > 0


def test_the_groups_come_from_the_benchmarks_declarations() -> None:
    """The runner names no benchmark: each group is declared in a benchmark's folder (entry points)."""
    report, groups = fault_case_groups()
    assert set(groups) == {"study files", "exports", "review", "serve"} and not report.broken
    assert groups["review"] is review_cases and groups["study files"] is study_cases


def test_the_table_puts_the_cases_beside_the_kills() -> None:
    groups = {"study files": {"cases": 33, "lost": 0, "duplicated": 0, "internal": 0, "problems": []},
              "serve": {"cases": 14, "lost": 1, "duplicated": 0, "internal": 2, "problems": ["serve case 0: x"]}}
    table = cases_table(groups, {"sort": Tally(kills=4)})
    assert "all file cases" in table and "session kills (-9)" in table and "problem: serve case 0: x" in table
    assert [line.split()[-4:] for line in table.splitlines() if line.startswith("all file cases")] == \
        [["47", "1", "0", "2"]]
