"""One participant, several sessions in one output folder: SORT STM then LTM, second sessions of the same
configuration, WorldSense beside SORT; each starts cleanly, and every error names a way out that works."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from session_helpers import write_testset

from benchlab.annotations.session.plan import SessionPlan
from benchlab.tui.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(["run", *args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _trial_ids(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [row["trial_id"] for row in csv.DictReader(handle)]


def test_sort_stm_then_ltm_then_second_sessions_in_one_folder(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    base = ["sort", "--participant", "P1", "--out", str(tmp_path), "--simulate", "random", "--trials", "12"]
    runs = [[], ["--condition", "ltm"], ["--session", "2"], ["--condition", "ltm", "--session", "2"]]
    for extra in runs:
        code, out, err = run(capsys, *base, *extra)
        assert code == 0, f"{extra}: {err}"
        assert "completed: 12 of 12 scored trials recorded (12 in this run)" in out, out
    results = tmp_path / "results" / "250-s20-human_P1_results.csv"
    ids = _trial_ids(results)
    assert len(ids) == 48 == len(set(ids)), "a trial was recorded twice in the participant's results"
    practice = _trial_ids(tmp_path / "practice" / "250-s20-human_P1_practice.csv")
    assert len(practice) == len(set(practice))
    for condition, session in [("stm", "1"), ("ltm", "1"), ("stm", "2"), ("ltm", "2")]:
        plan = SessionPlan.load(tmp_path / "sessions" / f"human_P1_e250_s20_{condition}_session-{session}.plan.json")
        assert set(plan.main_items) <= set(ids) and plan.config["condition"] == condition
    # The same session again: the message says to add --resume, and --resume then works (nothing left to do).
    code, _, err = run(capsys, *base, "--condition", "ltm")
    assert code == 2 and "add --resume to continue it, or choose another --session" in err
    code, out, err = run(capsys, *base, "--condition", "ltm", "--resume")
    assert code == 0 and "12 of 12 scored trials recorded (0 in this run)" in out, err


def test_worldsense_and_sort_sessions_share_one_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=4)
    out = tmp_path / "lab"
    code, stdout, err = run(capsys, "worldsense", "-t", str(testset), "--participant", "P2", "--out", str(out),
                            "--simulate", "random", "--tuples-per-cell", "2", "--practice", "0")
    assert code == 0 and "84 of 84" in stdout, err
    code, stdout, err = run(capsys, "sort", "--participant", "P2", "--out", str(out), "--simulate", "random",
                            "--trials", "8")
    assert code == 0 and "8 of 8" in stdout, err
    code, stdout, err = run(capsys, "worldsense", "-t", str(testset), "--participant", "P2", "--out", str(out),
                            "--simulate", "random", "--tuples-per-cell", "2", "--practice", "0", "--session", "2")
    assert code == 0 and "84 of 84" in stdout, err


def test_resume_of_a_session_that_never_saved_its_plan_starts_it(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """What a kill during start-up leaves (a folder and a lock file, no plan): a scripted --resume starts the
    session cleanly and says so, rather than a dead end."""
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / ".human_P3.lock").write_text("123\n")
    base = ["sort", "--participant", "P3", "--out", str(tmp_path), "--simulate", "random", "--trials", "8"]
    code, out, err = run(capsys, *base, "--resume")
    assert code == 0 and "8 of 8 scored trials recorded" in out, err
    assert "nothing was recorded yet" in err and "starting it from the beginning" in err
    code, out, err = run(capsys, *base, "--resume")  # now there is a plan: a real resume, nothing left to do
    assert code == 0 and "8 of 8 scored trials recorded" in out and "nothing was recorded yet" not in err
