"""Simulated participants through ``benchlab run sort`` and the scorer: the figures each one must give."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from benchlab.data.sort.scoring import score_paths
from benchlab.tui.cli import cli


def _run(out: Path, policy: str, participant: str, *extra: str) -> None:
    result = CliRunner().invoke(cli, ["run", "sort", "--participant", participant, "--simulate", policy,
                                      "--trials", "40", "--seed", "5", "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    assert "40 of 40 scored trials recorded" in result.output


@pytest.mark.parametrize("condition", ["stm", "ltm"])
def test_oracle_always_a_and_random(tmp_path: Path, condition: str) -> None:
    out = tmp_path / "out"
    _run(out, "oracle", "O1", "--condition", condition)
    _run(out, "always-a", "A1", "--condition", condition, "-e", "1000")
    _run(out, "random", "R1", "--condition", condition)
    overall = score_paths([out / "results"])[0].frame
    label = f" {condition} (simulated "
    assert overall.loc[f"human-O1{label}oracle)", "accuracy"] == 1.0
    a_file = pd.read_csv(out / "results" / "1000-s20-human_A1_results.csv", index_col=0)
    share_truth_a = float((a_file["present_seg1_first"] == 1).mean())
    assert overall.loc[f"human-A1{label}always-a)", "accuracy"] == pytest.approx(share_truth_a, abs=1e-4)
    assert overall.loc[f"human-A1{label}always-a)", "share_A"] == 1.0
    # The plan balances A/B inside each distance bin (10 per bin here), so always-A is exactly at chance.
    assert share_truth_a == 0.5
    random_row = overall.loc[f"human-R1{label}random)"]
    assert random_row["n"] == 40 and 0.0 <= random_row["accuracy"] <= 1.0
    # Simulated runs are never pooled as people.
    assert not any("pooled" in str(i) for i in overall.index)
    files = sorted(p.name for p in (out / "results").iterdir())
    assert files == ["1000-s20-human_A1_results.csv", "250-s20-human_O1_results.csv", "250-s20-human_R1_results.csv"]
