"""Issue 19's leftovers: the ``screened_out`` and ``withdrew`` codes are written to the study's completions log
(no platform id outside the key file, no participant id after a withdrawal); ``study reconcile`` lists a withdrawn
person's submission as "withdrew" with the study's decision; and the quota rule: the study link's quotas count crowd
joins only (private links are invited and never refused), and a crowd joiner whose freed place was taken cannot
resume over the quota."""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path

import pytest
from online_helpers import answer, finish, joins, online_study, open_runner, study_of

from benchlab.annotations.exclusions.dataset import load_data
from benchlab.annotations.online import places
from benchlab.annotations.online.commands import online_summary
from benchlab.annotations.online.completion import complete, given
from benchlab.annotations.online.private import COMPLETIONS_FILE, PRIVATE_DIR, read_jsonl
from benchlab.annotations.report.flow import online_outcomes
from benchlab.annotations.withdraw import withdraw_participant
from tests.test_online_reconcile import cli

CODES = ('\n[online.completion.withdrew]\ncode = "WDRAW7"\n'
         '[online.completion.screened_out]\ncode = "PHONE3"\n')


def completions(folder: Path) -> list[dict[str, object]]:
    return read_jsonl(folder / PRIVATE_DIR / COMPLETIONS_FILE)


def test_a_screened_out_code_is_logged_and_the_person_may_still_take_part(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", CODES)
    pid = joins(folder, "PHONE01").participant
    places.screen_out(study_of(folder), pid)  # the device check refused a phone before consent
    [line] = completions(folder)
    assert (line["participant"], line["outcome"], line["code"]) == (pid, "screened_out", "PHONE3")
    assert "PHONE01" not in (folder / PRIVATE_DIR / COMPLETIONS_FILE).read_text()  # only the pseudonym
    assert given(study_of(folder), pid) is None  # provisional: it does not end their part
    back = joins(folder, "PHONE01")  # back on a computer
    assert back.kind == "resume" and back.participant == pid
    finish(folder, pid)
    done = complete(study_of(folder), pid)
    assert done is not None and done.outcome == "completed" and done.code == "DONE1234"


@pytest.mark.parametrize("rule", ["approve", "review"])
def test_a_withdrawal_is_logged_without_ids_and_reconciled_as_withdrew(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], rule: str) -> None:
    folder = online_study(tmp_path / "st", f'withdrew_decision = "{rule}"\n' + CODES)
    gone = joins(folder, "LEAVER01").participant
    finish(folder, gone)
    assert complete(study_of(folder), gone) is not None
    withdraw_participant(folder, gone)
    [line] = [r for r in completions(folder) if r["outcome"] == "withdrew"]
    assert line["code"] == "WDRAW7" and "participant" not in line and str(line["person_key"]).startswith("p-")
    private = b"".join(p.read_bytes() for p in (folder / PRIVATE_DIR).glob("*.jsonl"))
    assert b"LEAVER01" not in private and gone.encode() not in private
    assert joins(folder, "LEAVER01").kind == "already"  # one session per person, also after a withdrawal
    assert online_outcomes(load_data([folder]))["withdrew"] == 1  # the report's flow counts it (no id)
    export = tmp_path / "export.csv"
    export.write_text("Submission id,Participant id,Status,Completion code\ns1,LEAVER01,AWAITING REVIEW,DONE1234\n")
    code, out = cli(capsys, "study", "reconcile", str(folder), "--submissions", str(export))
    assert code == 0, out
    assert [line.split() for line in out.splitlines() if line.startswith("withdrew")] == [["withdrew", "1"]]
    [row] = csv.DictReader(io.StringIO((tmp_path / "reconcile-export.csv").read_text()))
    assert (row["category"], row["decision"], row["code_given"], row["participant"]) == (
        "withdrew", rule, "WDRAW7", "")


def test_the_quota_counts_crowd_joins_and_never_refuses_an_invited_person(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", "quota = 1")
    study = study_of(folder)
    invited = study.assign("INV01", "1")  # a private link's session opening, as the study server records it
    study.record(invited, source="link")
    runner = open_runner(folder, "INV01")
    answer(runner, trials=1)
    runner.close()
    assert "INV01" in places.counted(study_of(folder))  # it holds a place in the arms' balance ...
    crowd = joins(folder, "CROWD1")
    assert crowd.kind == "start" and crowd.arm != invited.arm  # ... but not the study link's one place
    assert joins(folder, "CROWD2").kind == "full"
    late = study_of(folder).assign("INV02", "1")  # invited people are never refused by the quota
    study_of(folder).record(late, source="link")
    assert "INV02" in places.counted(study_of(folder))
    assert "1 of 1 places held (stm 1, ltm 0) + 2 invited (outside the quotas)" in online_summary(study_of(folder)) \
        or "1 of 1 places held (stm 0, ltm 1) + 2 invited (outside the quotas)" in online_summary(study_of(folder))


def test_a_returning_person_whose_place_was_taken_cannot_go_over_the_quota(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", "quota = 1\nabandon_after = 1")
    gone = joins(folder, "GONE")
    runner = open_runner(folder, gone.participant)
    answer(runner, trials=1)
    runner.close()
    time.sleep(1.5)  # idle past abandon_after: the place is freed
    assert joins(folder, "WAITING").kind == "start"
    back = joins(folder, "GONE")
    assert back.kind == "full" and "1 places" in back.reason
    assert sum(p.on_quota for p in places.places(study_of(folder))) == 1  # never over the quota
    assert any(p.name.endswith("_results.csv") for p in (folder / "results").iterdir())  # their data kept
