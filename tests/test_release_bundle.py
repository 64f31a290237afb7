"""benchlab release: ids re-keyed, private columns dropped, a manifest that checks, tables rebuilt from the bundle
alone give the same numbers; a non-empty folder is refused."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.report_helpers import RT_FLOOR, add_reading, run_person, write_study
from tests.test_report_study import cli


def test_release_bundle_rebuilds_its_tables_and_holds_no_original_id(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s", RT_FLOOR.format(ms=1500))
    for who in ("P01", "P02"):
        run_person(folder, who, "oracle")
    run_person(folder, "P03", "random", median_rt_s=0.5)
    add_reading(folder)
    bundle = tmp_path / "bundle"
    code, out = cli(capsys, "release", str(folder), "--out", str(bundle))
    assert code == 0, out
    files = {str(p.relative_to(bundle)) for p in bundle.rglob("*") if p.is_file()}
    assert {"trials.csv", "codebook.md", "tables/summary.csv", "REPRODUCE.md", "report.md", "SHA256SUMS",
            "materials/study.toml", "materials/items.csv"} <= files
    for p in bundle.rglob("*"):
        if p.is_file():
            assert b"P01" not in p.read_bytes() or p.name == "study.toml", p
    trials = pd.read_csv(bundle / "trials.csv")
    assert set(trials["participant"]) == {"S001", "S002", "S003"}
    assert "source_file" not in trials and "timestamp" not in trials and "excerpt_text" not in trials
    assert trials.groupby("participant")["excluded"].first().fillna("").str.contains("rt_floor").sum() == 1
    for line in (bundle / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split("  ", 1)
        assert hashlib.sha256((bundle / name).read_bytes()).hexdigest() == digest
    rebuilt = subprocess.run([sys.executable, "-m", "benchlab.annotations.release.tables", "trials.csv"],
                             cwd=bundle, capture_output=True, text=True, check=True, timeout=120).stdout
    assert pd.read_csv(io.StringIO(rebuilt)).equals(pd.read_csv(bundle / "tables" / "summary.csv"))
    pooled = pd.read_csv(bundle / "tables" / "summary.csv").set_index("participant").loc["pooled (included people)"]
    assert float(pooled["accuracy"]) == 1.0  # the two oracles; the excluded fast guesser is left out
    # SORT's reading times, seen share and delays (the comparison's `reading` table), per person and pooled, re-keyed
    reading = pd.read_csv(bundle / "tables" / "reading.csv")
    assert {"S001", "S002", "S003", "all people"} <= set(reading["who"])
    assert (reading["trials"] > 0).all() and reading["delay_ms_median"].notna().any()
    assert "reading time, seen share and delay" in (bundle / "report.md").read_text()


def test_release_refuses_a_non_empty_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    run_person(folder, "P01", "oracle")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "old.txt").write_text("keep")
    code, out = cli(capsys, "release", str(folder), "--out", str(tmp_path / "b"))
    assert code == 2 and "not empty" in out and str(tmp_path / "b") in out
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["old.txt"]
