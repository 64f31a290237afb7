"""Issue 22 item 3: `benchlab bench coverage` prints the whole table (designs x person SDs x people) through the
estimator and test `compare` prints; a reduced grid runs here in seconds (the full table is in NOTES-stats.md)."""

from __future__ import annotations

import pytest

from benchlab.data.analysis.coverage_grid import DESIGNS, GridRow, run_grid
from benchlab.tui.cli import main


def test_reduced_grid_has_every_design_sd_and_people_and_holds_its_level() -> None:
    rows, _seconds = run_grid(person_sds=(0.08, 0.25), people=(3, 10), studies=60, seed=3)
    assert {(r.design, r.person_sd, r.participants) for r in rows} == {
        (d.name, sd, n) for d in DESIGNS.values() for sd in (0.08, 0.25) for n in (3, 10)}
    for r in rows:
        # 60 studies: a loose check (the table's own studies decide the verdict); a narrower method fails here
        assert r.coverage >= 0.85 and r.fpr <= 0.15, r


def test_verdict_never_calls_a_narrow_interval_good() -> None:
    row = GridRow("d", 0.25, 3, 1000, 0.91, 0.04, 0.3, 0)
    assert row.verdict.startswith("NO")
    assert GridRow("d", 0.08, 3, 1000, 0.99, 0.01, 0.5, 0).verdict == "yes, wider than nominal"
    assert GridRow("d", 0.08, 10, 1000, 0.95, 0.07, 0.2, 0).verdict == "NO: FPR too high"


def test_bench_coverage_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        main(["bench", "coverage", "--studies", "20", "--participants", "3", "--participants", "5",
              "--person-sd", "0.08", "--person-sd", "0.25", "--design", "sort-config"])
    except SystemExit as exc:
        assert not exc.code
    out = capsys.readouterr().out
    assert "SORT configuration" in out and "0.25" in out and "meets target" in out
