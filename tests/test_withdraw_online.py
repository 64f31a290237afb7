"""Withdrawing a person of an online study also removes their lines from the study's private online logs
(reservation, joins ledger, completion, the key file with the raw platform id); other people's lines stay."""

from __future__ import annotations

from pathlib import Path

import pytest
from online_helpers import finish, joins, online_study, study_of

from benchlab.annotations.online.completion import complete
from tests.test_report_study import cli


def test_withdraw_removes_the_online_records_of_that_person(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = online_study(tmp_path / "st")
    gone, stays = joins(folder, "LEAVING01").participant, joins(folder, "STAYING1").participant
    for who in (gone, stays):
        finish(folder, who)
        assert complete(study_of(folder), who) is not None
    code, out = cli(capsys, "withdraw", str(folder), "--participant", gone)
    assert code == 0, out
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert [p for p in files if gone.encode() in p.read_bytes() or b"LEAVING01" in p.read_bytes()] == []
    assert any(b"STAYING1" in p.read_bytes() for p in files if p.parent.name == ".online")
    assert any(stays.encode() in p.read_bytes() for p in files if p.name == "assignments.jsonl")
