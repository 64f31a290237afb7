"""``benchlab study reconcile`` on crafted Prolific and MTurk exports (categories, decisions CSV, and one clear
line naming file and line for bad bytes, unknown columns and duplicate rows), ``benchlab study set-password`` and
``benchlab study init --online``."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from online_helpers import finish, joins, online_study, open_runner, study_of

from benchlab.annotations.online.completion import complete
from benchlab.annotations.online.password import check_password
from benchlab.annotations.online.private import PASSWORD_FILE, PRIVATE_DIR
from benchlab.annotations.registry import registry
from benchlab.annotations.study import load_study
from benchlab.tui.cli import main


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def crowd(tmp_path: Path) -> Path:
    """P_DONE finished (code given), P_PART stopped mid-way, P_HERE finished but has no submission."""
    folder = online_study(tmp_path / "st")
    for person in ("P_DONE", "P_HERE"):
        pid = joins(folder, person).participant
        finish(folder, pid)
        complete(study_of(folder), pid)
    runner = open_runner(folder, joins(folder, "P_PART").participant)
    runner.close()
    return folder


PROLIFIC = ("Submission id,Participant id,Status,Started at,Completed at,Time taken,Completion code,Total approvals\n"
            "s1,P_DONE,AWAITING REVIEW,2026-11-26,2026-11-26,300,DONE1234,10\n"
            "s2,P_PART,AWAITING REVIEW,2026-11-26,2026-11-26,100,DONE1234,3\n"
            "s3,P_GONE,RETURNED,2026-11-26,,,,7\n")


def test_a_prolific_export_is_reconciled_into_categories_and_decisions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = crowd(tmp_path)
    export = tmp_path / "prolific_export.csv"
    export.write_text(PROLIFIC)
    code, out = cli(capsys, "study", "reconcile", str(folder), "--submissions", str(export))
    assert code == 0, out
    assert "complete on both" in out and "complete here, no submission" in out
    rows = {r["platform_id"]: r for r in csv.DictReader(io.StringIO((tmp_path / "reconcile-prolific_export.csv")
                                                                   .read_text()))}
    assert rows["P_DONE"]["category"] == "complete on both" and rows["P_DONE"]["decision"] == "approve"
    assert rows["P_PART"]["category"] == "complete on platform, missing or partial here"
    assert rows["P_GONE"]["category"] == "returned or timed out"
    assert rows["P_HERE"]["category"] == "complete here, no submission"


def test_an_mturk_batch_with_a_wrong_code_is_a_code_mismatch(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    folder = crowd(tmp_path)
    export = tmp_path / "batch.csv"
    export.write_text("HITId,AssignmentId,WorkerId,AssignmentStatus,Answer.surveycode\n"
                      "H1,A1,P_DONE,Submitted,WRONG999\n")
    code, out = cli(capsys, "study", "reconcile", str(folder), "--submissions", str(export), "--out",
                    str(tmp_path / "decisions.csv"))
    assert code == 0, out
    rows = list(csv.DictReader(io.StringIO((tmp_path / "decisions.csv").read_text())))
    assert rows[0]["category"] == "code mismatch" and rows[0]["decision"] == "review"


@pytest.mark.parametrize(("content", "line", "words"), [
    (b"name,colour\nx,red\n", 1, "not a Prolific or MTurk submissions export"),
    (PROLIFIC.encode() + b"s4,P_X,APPROVED,\xff\xfe,,,,1\n", 5, "not UTF-8"),
    (PROLIFIC.encode() + b"s1,P_DONE,AWAITING REVIEW,2026,2026,300,DONE1234,10\n", 5, "listed twice"),
    (PROLIFIC.encode() + b"s5,P_Y,APPROVED,a,b,c,d,e,f,g\n", 5, "more fields"),
    (b"Participant id,Status\nA\0B,APPROVED\n", 2, "NUL"),
])
def test_bad_submissions_files_are_one_line_naming_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, line: int, words: str) -> None:
    folder = online_study(tmp_path / "st")
    export = tmp_path / "export.csv"
    export.write_bytes(content)
    code, out = cli(capsys, "study", "reconcile", str(folder), "--submissions", str(export))
    assert code == 2 and f"{export}:{line}: " in out and words in out, out
    assert "Traceback" not in out and len(out.strip().splitlines()) == 1
    assert not (tmp_path / "reconcile-export.csv").exists()


def test_set_password_stores_a_salted_slow_hash_only(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st")
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "benchlab.tui", "study", "set-password", str(folder)],
                              input="correct horse battery\n", capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
    stored = json.loads((folder / PRIVATE_DIR / PASSWORD_FILE).read_text())
    assert stored["scheme"] == "scrypt" and "correct horse" not in json.dumps(stored) and len(stored["salt"]) == 32
    assert check_password(folder, "correct horse battery") and not check_password(folder, "correct horse")
    short = subprocess.run([sys.executable, "-m", "benchlab.tui", "study", "set-password", str(folder)],
                           input="short\n", capture_output=True, text=True, timeout=60)
    assert short.returncode == 2 and "at least 10" in short.stderr


def test_study_init_online_writes_a_commented_online_section(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(capsys, "study", "init", str(tmp_path / "s"), "--online")
    assert code == 0, out
    text = (tmp_path / "s" / "study.toml").read_text()
    assert "[online]" in text and "PROLIFIC" not in text and "submissions/complete?cc={code}" in text
    study = load_study(tmp_path / "s", registry())
    assert study.spec.online is not None and study.spec.online.completion["completed"].code == "C1A2B3C4"


def test_serve_study_refuses_what_cannot_run_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(capsys, "serve", "--admin", "sort")
    assert code == 2 and "--admin goes with --study" in out
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "study.toml").write_text('title = "t"\nbenchmark = "sort"\n[options]\ntrials = 4\n')
    code, out = cli(capsys, "serve", "--study", str(plain))
    assert code == 2 and "no [online] section" in out and "study.toml" in out
    folder = online_study(tmp_path / "st", "quota = 0")
    code, out = cli(capsys, "serve", "--study", str(folder))
    assert code == 2 and "study.toml:" in out and "online.quota" in out and "Traceback" not in out


def test_study_show_counts_places_held_against_the_quotas(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    folder = online_study(tmp_path / "st", "quota = 3\narm_quotas = { stm = 2 }")
    joins(folder, "SHOW1")
    joins(folder, "SHOW2")
    code, out = cli(capsys, "study", "show", str(folder))
    assert code == 0 and "online (prolific): 2 of 3 places held (stm 1/2, ltm 1)" in out, out
