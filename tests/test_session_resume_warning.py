"""``run worldsense|sort --resume`` replays the saved plan: plan options typed again with other values are
ignored, and the command says so on one stderr line (naming the plan file and each option)."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_helpers import write_testset

from benchlab.tui.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(["run", *args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("benchlab: warning:")]


def test_worldsense_resume_names_the_options_it_ignores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=4, sizes=(3,))
    base = ["worldsense", "-t", str(testset), "--participant", "P01", "--out", str(tmp_path / "out")]
    assert run(capsys, *base, "--seed", "4", "--practice", "2", "--simulate", "oracle")[0] == 0
    plan = tmp_path / "out" / "sessions" / "human-P01_session-1.plan.json"
    code, out, err = run(capsys, *base, "--resume", "--seed", "7", "--tuples-per-cell", "3", "--practice", "2",
                         "--simulate", "oracle")
    assert code == 0 and "completed" in out
    (line,) = warnings(err)
    assert str(plan) in line and "ignored" in line
    assert "--seed 7 (plan: 4)" in line and "--tuples-per-cell 3 (plan: 2)" in line
    assert "--practice" not in line  # typed, but the same as the plan
    # the same options as the plan (or none typed): no warning
    _, _, err = run(capsys, *base, "--resume", "--seed", "4", "--simulate", "oracle")
    assert warnings(err) == []
    other = write_testset(tmp_path / "copy", tuples_per_cell=4, sizes=(3,))
    _, _, err = run(capsys, "worldsense", "-t", str(other), "--participant", "P01", "--out", str(tmp_path / "out"),
                    "--resume", "--simulate", "oracle")
    (line,) = warnings(err)
    assert f"--testset {other}" in line and str(testset) in line


def test_sort_resume_names_the_options_it_ignores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["sort", "--participant", "P01", "--out", str(tmp_path / "out"), "--simulate", "oracle"]
    assert run(capsys, *base, "--seed", "3", "--trials", "4", "--practice", "0")[0] == 0
    code, _, err = run(capsys, *base, "--resume", "--seed", "9", "--trials", "8", "--delay", "2")
    assert code == 0
    (line,) = warnings(err)
    assert "human_P01_e250_s20_stm_session-1.plan.json" in line
    assert "--seed 9 (plan: 3)" in line and "--trials 8 (plan: 4)" in line and "--delay 2.0 (plan: 0.0)" in line
