"""benchlab withdraw: the person's files and assignment lines go, every other file stays valid for the benchmark's
own code (compare still reads them), an audit line holds no id; unknown and live participants are refused with
nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchlab.annotations.registry import registry
from benchlab.annotations.session.lock import SessionLock
from benchlab.annotations.study import load_study
from benchlab.annotations.withdraw import participant_of_code, withdrawal_code
from benchlab.data.sort.compare import compare_sort
from tests.report_helpers import run_person, write_study
from tests.test_report_study import cli


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_withdraw_removes_one_person_and_leaves_valid_files(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    for who in ("P01", "P07", "P10"):
        run_person(folder, who, "oracle")
    (folder / "serve-tokens.json").write_text('{\n "P01": "t1",\n "P07": "t7"\n}\n')
    (folder / "links.csv").write_text("participant,url\nP01,http://x/t1\nP07,http://x/t7\n")
    code, out = cli(capsys, "withdraw", str(folder), "--participant", "P07")
    assert code == 0 and "withdrawn: 1 session(s)" in out, out
    left = snapshot(folder)
    assert not [name for name in left if "P07" in name]
    assert all(b"P07" not in data for name, data in left.items())  # assignments rewritten, audit without the id
    assert [r["participant"] for r in load_study(folder, registry()).assignments()] == ["P01", "P10"]
    comp = compare_sort([folder / "results"])  # the benchmark's own reader still reads every file
    assert {e.name for e in comp.participants} == {"P01", "P10"}
    assert json.loads((folder / "serve-tokens.json").read_text()) == {"P01": "t1"}  # their link opens nothing
    assert (folder / "links.csv").read_text() == "participant,url\nP01,http://x/t1\n"
    audit = (folder / "withdrawals.jsonl").read_text()
    assert '"event": "withdrawn"' in audit and '"sessions": 1' in audit


def test_unknown_and_live_participants_are_refused_with_nothing_changed(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    run_person(folder, "P01", "oracle")
    before = snapshot(folder)
    code, out = cli(capsys, "withdraw", str(folder), "--participant", "P99")
    assert code == 2 and "'P99' is not in this study" in out and "assignments.jsonl" in out
    lock = SessionLock(folder / "sessions" / ".human_P01.lock")
    lock.acquire()  # P01's session is live (an app holds its lock)
    try:
        held = snapshot(folder)
        code, out = cli(capsys, "withdraw", str(folder), "--participant", "P01")
        assert code == 2 and "live session" in out and ".human_P01.lock" in out
        assert snapshot(folder) == held
    finally:
        lock.release()
    assert snapshot(folder) == before


def test_withdrawal_code_for_the_web_end_page_finds_the_person(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    run_person(folder, "P01", "oracle")
    run_person(folder, "P02", "oracle")
    code_p2 = withdrawal_code(folder, "P02")
    assert code_p2 != withdrawal_code(folder, "P01") and "P02" not in code_p2
    assert participant_of_code(folder, code_p2.lower()) == "P02"
    code, out = cli(capsys, "withdraw", str(folder), "--code", code_p2)
    assert code == 0, out
    assert not list((folder / "results").glob("*P02*")) and list((folder / "results").glob("*P01*"))
