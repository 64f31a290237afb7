"""A participant's session as ``benchlab serve`` runs it: ``python -m benchlab.tui run ... --web-session`` speaking
Textual's web packet protocol on stdin/stdout (no browser: the test writes the packets a server would relay from
the page, reads the app's output, and checks what reaches disk)."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path
from typing import Any

import pytest
from web_packets import ONSET, WebApp

from benchlab.annotations.session.status import read_statuses
from benchlab.annotations.sort.human_record import HUMAN_COLUMNS
from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense.results import read_results as read_worldsense_results
from benchlab.tui.app import BenchlabApp
from benchlab.tui.driver_choice import app_driver_class
from benchlab.tui.web.driver import WebSessionDriver


def args(participant: str, out: Path, practice: int = 0) -> list[str]:
    return ["worldsense", "--participant", participant, "--out", str(out), "--practice", str(practice),
            "--block-size", "50", "--seed", "3", "--no-instructions"]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


# -- which driver ---------------------------------------------------------------------------------------------

def test_the_app_takes_the_driver_named_by_textual_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEXTUAL_DRIVER", "benchlab.tui.web.driver:WebSessionDriver")
    assert BenchlabApp().driver_class is WebSessionDriver
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    assert BenchlabApp().driver_class.__name__ == "WebDriver"  # textual-serve's own choice is honoured too
    monkeypatch.setenv("TEXTUAL_DRIVER", "benchlab.tui.app:BenchlabApp")
    with pytest.raises(BenchlabError, match="is not a Textual driver class"):
        app_driver_class()


def test_without_textual_driver_the_terminal_keeps_its_timed_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    driver = BenchlabApp().driver_class
    assert driver.__name__ == "TimedLinuxDriver"  # the frame clock's terminal driver, as before
    assert BenchlabApp(web_session=True).driver_class is WebSessionDriver  # --web-session alone speaks packets


def test_web_session_is_a_hidden_flag_of_run(capsys: pytest.CaptureFixture[str]) -> None:
    from benchlab.tui.cli import main

    main(["run", "worldsense", "--help"])
    shown = capsys.readouterr().out
    assert "--participant" in shown and "--web-session" not in shown  # for the server, not for people
    with pytest.raises(SystemExit) as done:
        main(["run", "worldsense", "--web-session", "--bogus"])
    assert done.value.code == 2 and "--bogus" in capsys.readouterr().err  # the flag itself is accepted


# -- a whole web session over the packet protocol ---------------------------------------------------------------

def test_web_session_records_page_timing_refuses_early_keys_exits_on_eof_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    results = out / "results" / "basic___human-W1___results.jsonl"
    events = out / "sessions" / "human-W1_session-1.events.jsonl"
    plan = out / "sessions" / "human-W1_session-1.plan.json"
    app = WebApp(args("W1", out), cwd=tmp_path)
    try:
        app.send_meta({"type": "benchlab_client", "user_agent": "Probe/1.0", "reconnect": False})
        app.send_meta({"type": "benchlab_clock", "offset_ms": -12.5, "rtt_ms": 0.8})
        mark, pos = app.next_onset()  # the first question's frame, followed by its marker
        assert "Question 1 of" in app.output[:pos]
        time.sleep(0.3)  # past the app's own minimum RT: only the page's stamps decide below
        app.press("1", 950.0)  # the page has not reported painting the question yet: not an answer
        app.send_meta({"type": "benchlab_onset", "mark": mark, "page_ms": 1000.0})
        time.sleep(0.3)
        app.press("1", 990.0)  # stamped before the page painted the question (bytes arrived late): not an answer
        time.sleep(0.3)
        assert not results.exists()
        app.press("2", 1400.0)  # every question has at least two options
        before = pos
        mark2, pos = app.next_onset(pos)  # the next question: the answer was recorded before it was shown
        assert mark2 != mark and "Question 2 of" in app.output[before:pos]  # the marker follows its frame
        (record,) = lines(results)
        first_item = json.loads(plan.read_text())["blocks"][0][0]
        assert str(record["Key"]) == first_item and record["resp"] != ""
        assert record["client_rt_ms"] == 400.0 and record["client_onset_ms"] == 1000.0
        assert record["client_key_ms"] == 1400.0 and record["client_clock_offset_ms"] == -12.5
        assert record["rt_ms"] > 0 and record["onset_source"] == "frame_written" and record["ignored_keys"] == 2
        # stdin closed (the server's WebSocket is gone): the app logs it and exits at once
        app.close_stdin()
        closed = time.monotonic()
        app.proc.wait(5)
        assert time.monotonic() - closed < 2.0 and app.proc.returncode == 0
    finally:
        app.stop()
    log = lines(events)
    names = [e["event"] for e in log]
    assert names[0] == "started" and names[-1] == "disconnected"
    connected = next(e for e in log if e["event"] == "connected")
    assert "user_agent" not in connected and connected["reconnect"] is False  # not stored unless the study asks
    # one fsync per answer: the page timing is in the record itself (checked above), no event beside it
    assert "client_timing" not in names
    assert not (out / "sessions" / ".human-W1.lock").exists()

    # The same command again (a reconnect): welcome back, then the next unanswered question.
    again = WebApp(args("W1", out), cwd=tmp_path)
    try:
        again.send_meta({"type": "benchlab_client", "user_agent": "Probe/1.0", "reconnect": True})
        found = again.wait_for(r"Welcome back")
        assert ONSET.search(again.output) is None  # no question before the participant goes on
        again.wait_for(r"1 of \d+ questions answered", since=found.start())
        time.sleep(0.2)
        again.press("Enter", 5000.0, "\r")
        mark3, _ = again.next_onset()
        assert "Question 2 of" in again.output
        again.send_meta({"type": "benchlab_onset", "mark": mark3, "page_ms": 6000.0})
        time.sleep(0.3)
        again.press("1", 6250.0)
        again.wait_for(r"Question 3 of")
        again.close_stdin()
        again.proc.wait(5)
    finally:
        again.stop()
    records = lines(results)
    assert [str(r["Key"]) for r in records] == json.loads(plan.read_text())["blocks"][0][:2]  # no loss, no duplicate
    assert records[1]["client_rt_ms"] == 250.0
    scored = read_worldsense_results(results)  # the scorers' reader: the page timing is an extra field it keeps
    assert [(line.Key, line.resp) for line in scored] == [(r["Key"], r["resp"]) for r in records]
    assert scored[1].extras["client_rt_ms"] == 250.0
    log = lines(events)
    resumed_at = [e["event"] for e in log].index("resumed")
    after = [e["event"] for e in log[resumed_at:]]
    assert "connected" in after and after[-1] == "disconnected"
    assert next(e for e in log[resumed_at:] if e["event"] == "connected")["reconnect"] is True


def test_sigterm_logs_disconnected_before_the_app_exits_and_the_status_shows_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = WebApp(args("W2", out, practice=2), cwd=tmp_path)
    try:
        mark, pos = app.next_onset()
        app.send_meta({"type": "benchlab_onset", "mark": mark, "page_ms": 100.0})
        time.sleep(0.3)
        app.press("1", 700.0)  # a practice answer: its feedback follows
        app.wait_for("Correct|Not quite", since=pos)
        assert [s.state for s in read_statuses(out)] == ["practice"]
        app.proc.terminate()
        sent = time.monotonic()
        app.proc.wait(5)
        assert time.monotonic() - sent < 1.5
    finally:
        app.stop()
    log = lines(out / "sessions" / "human-W2_session-1.events.jsonl")
    assert log[-1]["event"] == "disconnected" and log[-1]["reason"] == "SIGTERM"
    (practised,) = [e for e in log if e["event"] == "practice_answered"]
    (status,) = read_statuses(out, expected=("W2",))
    assert (status.participant, status.state, status.trial) == ("W2", "disconnected", 0)
    assert status.practice_accuracy == (1.0 if practised["correct"] else 0.0)


def test_sort_excerpt_and_segments_each_get_a_marker_after_their_frame(tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = WebApp(["sort", "--participant", "S1", "--out", str(out), "--practice", "0", "--trials", "4", "--seed", "3",
                  "--no-instructions"], cwd=tmp_path)
    try:
        excerpt, pos = app.next_onset()
        assert "Read this passage" in app.output[:pos]
        app.send_meta({"type": "benchlab_onset", "mark": excerpt, "page_ms": 100.0})
        time.sleep(0.3)
        app.press("Enter", 2000.0, "\r")
        before = pos
        question, pos = app.next_onset(pos)
        assert "Which segment appeared" in app.output[before:pos]  # not a leftover frame of the reading view
        app.send_meta({"type": "benchlab_onset", "mark": question, "page_ms": 2500.0})
        time.sleep(0.3)
        app.press("a", 3100.0)
        app.next_onset(pos)  # the next excerpt: the answer is on disk
        app.close_stdin()
        app.proc.wait(5)
    finally:
        app.stop()
    header = (out / "results" / "250-s20-human_S1_results.csv").read_text().splitlines()[0].split(",")
    assert header == HUMAN_COLUMNS  # the page timing is in the SORT record's own client_* columns
    with (out / "results" / "250-s20-human_S1_results.csv").open(newline="") as handle:
        (timing,) = [row for row in csv.DictReader(handle) if row["client_rt_ms"]]  # the results file: not practice
    assert float(timing["client_rt_ms"]) == 600.0 and float(timing["client_onset_ms"]) == 2500.0
    assert "client_timing" not in {e["event"] for e in lines(
        out / "sessions" / "human_S1_e250_s20_stm_session-1.events.jsonl")}  # one fsync per answer
