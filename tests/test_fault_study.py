"""Study files under faults (issue 23 items 2, 5, 6, 13): a torn assignments line, an arm removed after assignment,
hostile participants files and ids with a trailing newline are each one clear line, never lost data or exit 70."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchlab.annotations.registry import registry
from benchlab.annotations.study import load_study
from benchlab.data.errors import BenchlabError
from tests.test_study import STUDY, cli, start, write_study


def test_a_torn_assignments_line_is_cut_with_a_warning_and_later_participants_are_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    start(folder, "P01")
    path = folder / "assignments.jsonl"
    os.truncate(path, path.stat().st_size - 40)  # truncate -s -40: the crash cut P01's line
    start(folder, "P02")
    assert "incomplete" in capsys.readouterr().err  # one warning naming the file
    start(folder, "P03")
    records = load_study(folder, registry()).assignments()
    assert [r["participant"] for r in records] == ["P02", "P03"]  # neither glued onto the cut line
    code, out = cli(capsys, "study", "show", str(folder))
    assert code == 0, out


def test_an_arm_removed_after_assignment_is_named_on_resume_not_an_internal_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    assert start(folder, "P01") == "stm"
    (folder / "study.toml").write_text(STUDY.replace("{rule}", "balanced").replace('name = "stm"', 'name = "short"'))
    study = load_study(folder, registry())
    with pytest.raises(BenchlabError, match="arm 'stm'.*no longer") as exc:
        study.assign("P01", "1", resume=True)
    assert exc.value.path is not None and exc.value.path.name == "assignments.jsonl" and exc.value.line == 1
    code, out = cli(capsys, "run", "--study", str(folder), "--participant", "P01", "--resume")
    assert code == 2 and "no longer" in out and "Traceback" not in out


@pytest.mark.parametrize(("body", "message", "line"), [
    ("P01,stm," + "x" * (200 * 1024) + "\n", "field", 2),
    ("P01,st\x00m\n", "NUL", 2),
    ("P 1,stm\n", "participant id", 2),
    ("P01,stm\nP02,ltm\nP01,ltm,2\n", "P01.*listed twice", 4),
])
def test_a_hostile_participants_file_is_refused_naming_its_line(
        tmp_path: Path, body: str, message: str, line: int, capsys: pytest.CaptureFixture[str]) -> None:
    text = STUDY.replace("{rule}", "participants-file") + 'participants_file = "people.csv"\n'
    folder = write_study(tmp_path / "s", text)
    header = "participant,arm,note\n" if body.count(",") == 2 and "x" * 10 in body else "participant,arm,session\n"
    if "x" * 10 not in body:
        body = "\n".join(r + ("," if r.count(",") == 1 else "") for r in body.rstrip("\n").split("\n")) + "\n"
    (folder / "people.csv").write_text(header + body)
    with pytest.raises(BenchlabError, match=message) as exc:
        load_study(folder, registry())
    assert exc.value.line == line
    code, out = cli(capsys, "study", "show", str(folder))
    assert code == 2 and "people.csv:" in out and "Traceback" not in out


@pytest.mark.parametrize(("participant", "session"), [("P01\n", "1"), ("P01", "1\n")])
def test_an_id_with_a_trailing_newline_is_refused(tmp_path: Path, participant: str, session: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    code, out = cli(capsys, "run", "--study", str(folder), "--participant", participant, "--session", session,
                    "--simulate", "oracle")
    assert code == 2 and "must be" in out
    assert not any("\n" in p.name for p in tmp_path.rglob("*"))
