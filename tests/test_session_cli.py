"""``benchlab run worldsense`` from the command line: summaries, clear errors, and the timing check's report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from session_helpers import write_testset

from benchlab.annotations.session.lock import SessionLock
from benchlab.tui.cli import main
from benchlab.tui.frame_clock import FrameClock
from benchlab.tui.key_debounce import KeyDebounce


@pytest.fixture(scope="module")
def testset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_testset(tmp_path_factory.mktemp("ws"), tuples_per_cell=5, compress=True)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(["run", "worldsense", *args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_simulated_run_prints_where_the_results_are_and_how_many(testset: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-t", str(testset), "--participant", "P01", "--out", str(tmp_path), "--seed", "1",
                       "--simulate", "biased")
    assert code == 0
    results = tmp_path / "results" / "basic___human-P01___results.jsonl"
    assert "completed: 84 of 84 scored trials recorded" in out and str(results) in out
    assert len(results.read_text().splitlines()) == 84
    again = run(capsys, "-t", str(testset), "--participant", "P01", "--out", str(tmp_path), "--simulate", "biased")
    assert again[0] == 2 and "already started; add --resume" in again[2]
    # a second session of the same participant samples new tuples and appends to the same results file
    code, out, _ = run(capsys, "-t", str(testset), "--participant", "P01", "--session", "2", "--out", str(tmp_path),
                       "--simulate", "oracle", "--practice", "0")
    assert code == 0 and len(results.read_text().splitlines()) == 168
    keys = [json.loads(line)["Key"] for line in results.read_text().splitlines()]
    assert len(set(keys)) == 168


@pytest.mark.parametrize(("args", "message"), [
    (["--participant", "P 1"], "participant id 'P 1' must be"),
    (["--participant", "P1", "--tuples-per-cell", "1"], "--tuples-per-cell must be at least 2"),
    (["--participant", "P1", "--tuples-per-cell", "6"], "has 5 usable tuples"),
    (["--participant", "P1", "--block-size", "0"], "--block-size must be at least 1"),
])
def test_bad_options_give_one_clear_line(testset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         args: list[str], message: str) -> None:
    code, _, err = run(capsys, "-t", str(testset), "--out", str(tmp_path), "--simulate", "random", *args)
    assert code == 2 and err.startswith("benchlab: error: ") and message in err and "Traceback" not in err


def test_missing_test_set_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "-t", str(tmp_path / "nope"), "--participant", "P1", "--simulate", "random")
    assert code == 2 and "nope: no such test-set folder" in err


def test_a_running_session_locks_out_a_second_one(testset: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    lock = SessionLock(tmp_path / "sessions" / ".human-P01.lock")
    lock.acquire()
    try:
        code, _, err = run(capsys, "-t", str(testset), "--participant", "P01", "--out", str(tmp_path),
                           "--simulate", "random")
    finally:
        lock.release()
    assert code == 2 and "in use by process" in err
    assert not (tmp_path / "results").exists()


def test_key_debounce_rules() -> None:
    d = KeyDebounce(repeat_window_s=0.1, min_rt_s=0.2)
    assert not d.accepts("1", 9.9, onset=10.0)  # before onset
    assert not d.accepts("2", 10.1, onset=10.0)  # faster than the minimum RT
    assert d.accepts("1", 10.5, onset=10.0)
    assert not d.accepts("1", 10.55, onset=10.0)  # auto-repeat of a held key
    assert not d.accepts("1", 10.6, onset=10.0)  # still held
    assert d.accepts("1", 11.0, onset=10.0)  # released and pressed again
    assert not d.accepts("1", 11.5, onset=None)  # no stimulus on screen


def test_frame_clock_reports_a_write_that_happened_before_the_caller_asked() -> None:
    clock = FrameClock()
    got: list[float] = []
    first, second = clock.number("frame one"), clock.number("frame two")
    clock._writing(first, 1.0)
    clock.call_when_written(1, got.append)  # the writer thread was quicker: the stamp is still known
    clock.call_when_written(2, got.append)
    assert got == [1.0]
    clock._writing("not queued", 1.5)  # a write that bypassed the queue does not count
    clock._writing(second, 2.0)
    assert got == [1.0, 2.0]


@pytest.mark.slow
def test_timing_check_prints_its_figures(testset: Path, tmp_path: Path) -> None:
    from benchlab.tui.harness.timing_check import run_timing_check

    report = run_timing_check(n_trials=3, testset=str(testset), keep=tmp_path)
    assert "3 scripted key presses" in report
    for label in ("RT error (recorded - scripted)", "key stamp latency", "onset stamp - frame seen"):
        assert label in report
    figures = json.loads(next(tmp_path.rglob("timing-check.json")).read_text())
    assert len(figures) == 3 and all(f["onset_source"] == "frame_written" for f in figures)
