"""Kill a running SORT session (SIGKILL, a real subprocess) and resume it: nothing lost, nothing duplicated."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from benchlab.annotations.sort.human_record import SortResultsLog

CLI = [sys.executable, "-c", "from benchlab.tui.cli import main; main()"]


def _rows(path: Path) -> int:
    return len(SortResultsLog(path).recover()) if path.exists() else 0


@pytest.mark.slow
def test_sigkill_mid_session_then_resume(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["run", "sort", "--participant", "K1", "--trials", "16", "--practice", "2", "--block-size", "8",
            "--seed", "11", "--out", str(out), "--simulate", "oracle"]
    results = out / "results" / "250-s20-human_K1_results.csv"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([*CLI, *args, "--sim-delay", "0.15"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while _rows(results) < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    killed_at = _rows(results)
    assert 4 <= killed_at < 16
    # Starting again without --resume is refused (the participant's data is never overwritten).
    again = subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "--resume" in again.stderr
    resumed = subprocess.run([*CLI, *args, "--resume"], env=env, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert "16 of 16 scored trials recorded" in resumed.stdout
    frame = pd.read_csv(results, index_col=0)
    plan = json.loads(next((out / "sessions").glob("*.plan.json")).read_text())
    planned = [t for block in plan["blocks"] for t in block]
    assert len(frame) == 16 and frame["trial_id"].is_unique
    assert list(frame["trial_id"]) == planned  # the same order as planned, the killed part kept as it was
    assert frame["correct"].all()
    assert list(frame.index) == list(range(16))
    practice = pd.read_csv(out / "practice" / "250-s20-human_K1_practice.csv", index_col=0)
    assert len(practice) == 2 and practice["trial_id"].is_unique


@pytest.mark.slow
def test_real_terminal_session_stamps_onsets_when_the_frame_is_written(tmp_path: Path) -> None:
    """In a real terminal both onsets come from the frame's write, and the clocks are in the order they happened."""
    from benchlab.tui.harness.pty_driver import PtyApp

    out = tmp_path / "out"
    app = PtyApp([*CLI, "run", "sort", "--participant", "T1", "--trials", "4", "--practice", "0", "--block-size",
                  "10", "--seed", "5", "--out", str(out), "--no-instructions",
                  "--min-seen", "0"],  # onsets only: a passage longer than 40 rows need not be scrolled through
                 size=(120, 40))
    try:
        offset = 0
        for _ in range(4):
            when, offset = app.wait_for(b"finished reading", offset)
            app.send_at(b"\r", when + 0.3)
            when, offset = app.wait_for(b"Which segment appeared", offset)  # not a word of an excerpt
            app.send_at(b"a", when + 0.3)
        app.wait_for(b"Thank you!", offset)
        time.sleep(1.1)  # the end screen ignores keys for a second
        app.send(b"\r")
        assert app.wait(30) == 0
    finally:
        app.close()
    frame = pd.read_csv(out / "results" / "250-s20-human_T1_results.csv", index_col=0)
    assert len(frame) == 4 and set(frame["onset_source"]) == {"frame_written"}
    order = frame[["excerpt_onset_mono", "continue_mono", "question_onset_mono", "response_mono"]].to_numpy()
    assert (order[:, :-1] < order[:, 1:]).all()
    assert (frame["reading_ms"] > 250).all() and (frame["rt_ms"] > 250).all()
