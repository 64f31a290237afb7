"""The report's participant flow counts how online sessions ended, from what the online slice records: completed
with a code, declined consent, screened out, timed out, withdrew, and abandoned (place freed without an end)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from online_helpers import answer, finish, joins, online_study, open_runner, study_of

from benchlab.annotations.online.completion import complete
from tests.test_report_study import cli


def test_flow_shows_each_online_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = online_study(tmp_path / "st", "abandon_after = 1\ntime_limit = 1", consent=True)
    done = joins(folder, "DONE0001").participant
    finish(folder, done)
    assert complete(study_of(folder), done) is not None
    no = joins(folder, "DECLINE1").participant
    runner = open_runner(folder, no)
    runner.log_event("declined", task="sort")  # what the web session logs before the end record
    runner.decline_consent()
    for pid, event in (("SCREEN01", "screened_out"), ("WITHDRW1", "withdrew")):
        who = joins(folder, pid).participant
        runner = open_runner(folder, who)
        answer(runner, trials=1)
        runner.log_event(event, task="sort")  # the page's device check / withdraw control
        runner.close()
    slow, gone = joins(folder, "SLOW0001").participant, joins(folder, "GONE0001").participant
    for who in (slow, gone):
        runner = open_runner(folder, who)
        answer(runner, trials=1)
        runner.close()
    time.sleep(1.5)
    for pid in ("DECLINE1", "SCREEN01", "WITHDRW1"):
        assert complete(study_of(folder), joins(folder, pid).participant) is not None
    timed = complete(study_of(folder), slow)
    assert timed is not None and timed.outcome == "timed_out"  # the gone one never came back: no completion
    code, out = cli(capsys, "report", str(folder), "--out", str(tmp_path / "r"))
    assert code == 0, out
    md = (tmp_path / "r" / "report.md").read_text()
    for label in ("completed, code given", "declined consent", "screened out", "timed out", "withdrew",
                  "abandoned (place freed)"):
        assert f"| online: {label} | 1 |" in md, label
    assert "| online: completed, no code |" not in md
    html = (tmp_path / "r" / "report.html").read_text()
    assert "Online outcomes: completed, code given 1;" in html  # in the drawn flow diagram too
