"""A session killed with SIGKILL (a real subprocess) resumes with no duplicate and no lost response, and scores."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from session_helpers import write_testset

from benchlab.annotations.session.plan import SessionPlan
from benchlab.data.worldsense.scoring import score_worldsense
from benchlab.tui.harness.pty_driver import PtyApp

CLI = [sys.executable, "-m", "benchlab.tui.cli"]


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _check_complete(out: Path, testset: Path, participant: str) -> list[dict[str, object]]:
    plan = SessionPlan.load(out / "sessions" / f"human-{participant}_session-1.plan.json")
    records = _records(out / "results" / f"basic___human-{participant}___results.jsonl")
    keys = [str(r["Key"]) for r in records]
    assert len(keys) == len(set(keys)), "duplicate responses"
    assert keys == plan.main_items, "a response is missing or out of order"
    tables = score_worldsense(testset, out / "results")
    assert tables.tuples["acc"].count() == plan.config["tuples"]  # every sampled tuple is complete and scored
    return records


@pytest.mark.slow
def test_simulated_session_killed_mid_way_resumes_exactly(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=3)
    out = tmp_path / "out"
    args = [*CLI, "run", "worldsense", "-t", str(testset), "--participant", "K1", "--out", str(out), "--seed", "5",
            "--practice", "2", "--simulate", "oracle"]
    results = out / "results" / "basic___human-K1___results.jsonl"
    proc = subprocess.Popen([*args, "--sim-delay", "0.02"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not results.exists() or len(results.read_bytes().splitlines()) < 15):
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    done_before = len(_records(results))
    assert 15 <= done_before < 84
    again = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "completed: 84 of 84" in again.stdout and f"({84 - done_before} in this run" in again.stdout
    records = _check_complete(out, testset, "K1")
    assert all(r["simulated"] == "oracle" for r in records)
    tables = score_worldsense(testset, out / "results")
    assert tables.overall is not None and float(tables.overall["mean"].iloc[0]) == 1.0


@pytest.mark.slow
def test_real_app_in_a_terminal_killed_mid_session_resumes_at_the_next_trial(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=3, sizes=(3,), problems=("Infer.normal", "Compl.normal"))
    out = tmp_path / "out"
    args = [*CLI, "run", "worldsense", "-t", str(testset), "--participant", "K2", "--out", str(out), "--seed", "9",
            "--practice", "0", "--no-instructions", "--block-size", "100"]
    results = out / "results" / "basic___human-K2___results.jsonl"

    def answer(app: PtyApp, first: int, last: int, offset: int = 0) -> int:
        for k in range(first, last + 1):
            when, offset = app.wait_for(f"Question {k} of 10".encode(), offset)
            app.send_at(b"1" if k % 2 else b"2", when + 0.2)
        return offset

    app = PtyApp(args)
    try:
        answer(app, 1, 3)
        app.wait_for(b"Question 4 of 10")
        deadline = time.monotonic() + 10
        while len(_records(results)) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        app.kill(signal.SIGKILL)  # killed while trial 4 is on screen
    finally:
        app.close()
    assert len(_records(results)) == 3
    resumed = PtyApp([*args, "--resume"])
    try:
        offset = answer(resumed, 4, 10)  # the resumed session continues with question 4
        _, offset = resumed.wait_for(b"Thank you!", offset)
        time.sleep(1.1)  # the end screen ignores keys for a second
        resumed.send(b"\r")
        assert resumed.wait(30) == 0
    finally:
        resumed.close()
    assert b"completed: 10 of 10 scored trials recorded (7 in this run" in resumed.output
    records = _check_complete(out, testset, "K2")
    assert all(r["input"] == "key" and r["onset_source"] == "frame_written" for r in records)
