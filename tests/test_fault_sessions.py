"""The Sessions screen under faults (issue 23 item 10): a session whose process died shows as crashed, a finished
session is not offered for resume, the study arm is a column, WorldSense practice accuracy is shown, and the summary
says "1 at a trial", not "1 trial"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from session_helpers import write_testset
from textual.app import App, ComposeResult
from textual.widgets import Button

from benchlab.annotations.session.runner import Stage
from benchlab.annotations.session.status import read_statuses
from benchlab.tui.screens.sessions import SessionsScreen
from benchlab.tui.widgets.existing_session import ExistingSessionOffer, existing_message, session_finished
from tests.test_session_status import Host, answer, worldsense


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_session_whose_process_died_is_crashed_and_practice_accuracy_is_read(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "set", tuples_per_cell=3, sizes=(3,))
    out = tmp_path / "out"
    runner = worldsense(testset, out, "KILLED", practice=2)
    answer(runner, 2)  # two practice trials, a break, one scored
    runner.continue_after_break()
    answer(runner, 1)
    lock = runner.files.lock
    lock.write_text(f"{_dead_pid()}\n")  # what kill -9 leaves: the lock file naming a process that is gone
    rows = read_statuses(out)
    assert [r.state for r in rows] == ["crashed"], rows
    row = rows[0]
    assert row.trial == 1
    assert row.practice_accuracy is not None  # WorldSense practice records carry no correctness: the events do
    runner.close()


def test_the_study_arm_is_read_from_the_assignments_log(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "set", tuples_per_cell=3, sizes=(3,))
    out = tmp_path / "study"
    runner = worldsense(testset, out, "P01")
    answer(runner, 1)
    (out / "assignments.jsonl").write_text(json.dumps({"participant": "P01", "session": "1", "arm": "fast"}) + "\n")
    [row] = read_statuses(out)
    assert row.arm == "fast"
    runner.close()


async def test_the_screen_has_an_arm_column_and_says_at_a_trial(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "set", tuples_per_cell=3, sizes=(3,))
    out = tmp_path / "out"
    runner = worldsense(testset, out, "P01")
    answer(runner, 1)
    screen = SessionsScreen(out)
    async with Host(screen).run_test(size=(160, 30)) as pilot:
        while screen.loads < 1:
            await pilot.pause(0.05)
        summary = str(screen.query_one("#status").render())
        assert "1 at a trial" in summary and "1 trial" not in summary
        assert [str(c.label) for c in screen.query_one("DataTable").columns.values()][3] == "Arm"  # type: ignore
    runner.close()


class OfferHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ExistingSessionOffer(id="offer")


async def test_a_finished_session_is_not_offered_for_resume(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "set", tuples_per_cell=3, sizes=(3,))
    out = tmp_path / "out"
    runner = worldsense(testset, out, "DONE")
    while runner.stage is not Stage.END:
        if runner.stage is Stage.BREAK:
            runner.continue_after_break()
        else:
            answer(runner, 1)
    runner.close()
    assert session_finished(out, "DONE", "worldsense", "1")
    assert "resume" not in existing_message("DONE", "1", 2, True)
    app = OfferHost()
    async with app.run_test() as pilot:
        offer = app.query_one(ExistingSessionOffer)
        offer.offer("1", 2, finished=True)
        await pilot.pause()
        assert not app.query_one("#resume-existing", Button).display
        assert app.query_one("#new-session", Button).has_focus
