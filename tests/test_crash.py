"""A bug inside the running app (a real terminal): exit 70, terminal restored, a report without locals, and the
session resumes with nothing lost; reports of crashes outside the app follow the same rules."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from session_helpers import write_testset

from benchlab.annotations.session.plan import SessionPlan
from benchlab.tui import crash
from benchlab.tui.harness.pty_driver import PtyApp

CLI = [sys.executable, "-m", "benchlab.tui.cli"]
DRIVER = [sys.executable, str(Path(__file__).with_name("crash_driver.py"))]
SECRET = "PARTICIPANT-ANSWER-7f3a91"


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def _answer(app: PtyApp, first: int, last: int, offset: int = 0) -> int:
    for k in range(first, last + 1):
        when, offset = app.wait_for(f"Question {k} of 10".encode(), offset)
        app.send_at(b"1" if k % 2 else b"2", when + 0.2)
    return offset


@pytest.mark.slow
def test_a_screen_that_raises_mid_session_exits_70_with_a_report_and_resumes(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=3, sizes=(3,), problems=("Infer.normal", "Compl.normal"))
    out = tmp_path / "out"
    reports = tmp_path / "crash-reports"
    reports.mkdir()
    for i in range(12):  # older reports: only the newest 10 (with the new one) are kept
        (reports / f"crash-20000101T0000{i:02d}000000-1.txt").write_text("old\n")
    env = {**os.environ, "BENCHLAB_CRASH_DIR": str(reports), "CRASH_DRIVER_AFTER": "3", "CRASH_DRIVER_SECRET": SECRET}
    args = ["run", "worldsense", "-t", str(testset), "--participant", "C7", "--out", str(out), "--seed", "9",
            "--practice", "0", "--no-instructions", "--block-size", "100"]
    results = out / "results" / "basic___human-C7___results.jsonl"

    app = PtyApp([*DRIVER, *args], env=env)
    try:
        offset = _answer(app, 1, 3)
        when, offset = app.wait_for(b"Question 4 of 10", offset)
        app.send_at(b"1", when + 0.2)  # the trial screen's key handler raises
        assert app.wait(30) == crash.EXIT_CODE
    finally:
        app.close()
    output = app.output
    text = output.decode("utf-8", "replace")
    # the terminal is restored (alternate screen left) before the single error line, and shows no traceback
    line_at = text.index("benchlab: internal error: RuntimeError: planted crash")
    assert text.rfind("\x1b[?1049l", 0, line_at) != -1
    tail = text[line_at:].strip().splitlines()
    assert len(tail) == 1 and "Report saved to " in tail[0]
    assert SECRET not in text and "Traceback" not in text and "participant_answer" not in text

    report = Path(tail[0].rsplit("Report saved to ", 1)[1].strip())
    assert report.parent == reports and report.is_file()
    body = report.read_text(encoding="utf-8")
    assert "Traceback" in body and "RuntimeError: planted crash" in body and "crash_driver.py" in body
    assert "--participant C7" in body and "textual: " in body and "python: " in body and "benchlab: " in body
    assert SECRET not in body  # frames and source lines only, never the values of local variables
    kept = sorted(p.name for p in reports.glob("crash-*.txt"))
    assert len(kept) == crash.KEEP and report.name in kept and "crash-20000101T000001000000-1.txt" not in kept

    before = _records(results)
    assert len(before) == 3  # every answer given before the crash was on disk
    resumed = PtyApp([*CLI, *args, "--resume"], env=env)
    try:
        offset = _answer(resumed, 4, 10)
        _, offset = resumed.wait_for(b"Thank you!", offset)
        time.sleep(1.1)  # the end screen ignores keys for a second
        resumed.send(b"\r")
        assert resumed.wait(30) == 0
    finally:
        resumed.close()
    plan = SessionPlan.load(out / "sessions" / "human-C7_session-1.plan.json")
    records = _records(results)
    keys = [str(r["Key"]) for r in records]
    assert records[:3] == before and keys == plan.main_items and len(set(keys)) == len(keys)


def test_reports_keep_the_newest_ten_and_never_hold_locals(tmp_path: Path) -> None:
    def failing() -> None:
        participant_answer = SECRET
        raise ValueError(f"bad value ({len(participant_answer)})")

    paths = []
    for _ in range(crash.KEEP + 3):
        try:
            failing()
        except ValueError as exc:
            paths.append(crash.write_report(exc, tmp_path))
    kept = sorted(tmp_path.glob("crash-*.txt"))
    assert kept == sorted(p for p in paths[-crash.KEEP:] if p is not None)
    body = kept[-1].read_text()
    assert "ValueError: bad value (25)" in body and 'raise ValueError(f"bad value' in body and SECRET not in body


async def test_a_timer_or_worker_that_raises_closes_the_app_and_is_raised_again(tmp_path: Path) -> None:
    from textual.app import ComposeResult
    from textual.widgets import Label

    from benchlab.tui.crash_app import CrashSafeApp

    class Boom(CrashSafeApp[None]):
        def __init__(self, where: str) -> None:
            super().__init__()
            self.where = where

        def compose(self) -> ComposeResult:
            yield Label("x")

        def on_mount(self) -> None:
            if self.where == "timer":
                self.set_timer(0.01, self.fail)
            else:
                self.run_worker(self.work(), exit_on_error=True)

        def fail(self) -> None:
            raise KeyError("from a " + self.where)

        async def work(self) -> None:
            self.fail()

    for where in ("timer", "worker"):
        app = Boom(where)
        with pytest.raises(Exception) as info:
            await app.run_async(headless=True)
        assert isinstance(crash.root_cause(info.value), KeyError)
        assert app.return_code == crash.EXIT_CODE
        report = crash.write_report(info.value, tmp_path)
        assert report is not None and f"KeyError: 'from a {where}'" in report.read_text()
