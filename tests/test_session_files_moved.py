"""A session whose output folder (or one of its files) is moved or deleted mid-session stops at once, names the path,
writes nothing anywhere else, and its summary never counts more than is on disk (real subprocesses, real ``mv`` and
``rm -rf``)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from session_helpers import write_testset

from benchlab.annotations.session.runner import ResponseTiming
from benchlab.annotations.worldsense.plan import WorldSensePlanOptions
from benchlab.annotations.worldsense.session import prepare_worldsense_session
from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense.loader import load_trials

CLI = [sys.executable, "-m", "benchlab.tui.cli"]
RESULTS = Path("results") / "basic___human-M3___results.jsonl"


@pytest.fixture(scope="module")
def testset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_testset(tmp_path_factory.mktemp("ws"), tuples_per_cell=4)


def _start(testset: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([*CLI, "run", "worldsense", "-t", str(testset), "--participant", "M3", "--simulate",
                             "random", "--seed", "4", "--sim-delay", "0.03", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_records(results: Path, n: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_bytes().splitlines()) >= n:
            return
        time.sleep(0.01)
    raise AssertionError("the session wrote no records")


def _keys(path: Path) -> list[int]:
    return [json.loads(line)["Key"] for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.slow
def test_moved_output_folder_stops_the_session_and_nothing_is_recreated(testset: Path, tmp_path: Path) -> None:
    out, moved = tmp_path / "mv", tmp_path / "mv-moved"
    proc = _start(testset, out)
    _wait_for_records(out / RESULTS, 10)
    out.rename(moved)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2, (stdout, stderr)
    assert stderr.startswith(f"benchlab: error: {out}: ") and "moved" in stderr and "Traceback" not in stderr
    assert not out.exists(), "the session recreated the moved folder at its old path"
    keys = _keys(moved / RESULTS)
    assert 10 <= len(keys) < 84 and len(set(keys)) == len(keys)
    assert "84 of 84" not in stdout
    # Moved back, the session continues where it stopped: no loss, no duplicate.
    moved.rename(out)
    again = subprocess.run([*CLI, "run", "worldsense", "-t", str(testset), "--participant", "M3", "--simulate",
                            "random", "--out", str(out), "--resume"], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    keys = _keys(out / RESULTS)
    assert len(keys) == 84 == len(set(keys)) and "84 of 84" in again.stdout


@pytest.mark.slow
def test_deleted_output_folder_stops_the_session_at_once(testset: Path, tmp_path: Path) -> None:
    out = tmp_path / "rm"
    proc = _start(testset, out)
    _wait_for_records(out / RESULTS, 10)
    subprocess.run(["rm", "-rf", str(out)], check=True)  # as a user would (the session may unlink its lock meanwhile)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2, (stdout, stderr)
    assert stderr.startswith("benchlab: error: ") and str(out) in stderr and "deleted" in stderr
    assert not out.exists(), "the session recreated the deleted folder"
    assert "scored trials recorded" not in stdout


def test_summary_counts_what_is_on_disk_after_the_results_file_is_moved(testset: Path, tmp_path: Path) -> None:
    """In process: the results file moved aside mid-session; the next answer is refused naming the file, and the
    summary (what the app shows) counts the records at the session's path: none."""
    runner = prepare_worldsense_session(load_trials(testset), dataset=str(testset), participant="M3",
                                        out=tmp_path, seed=1,
                                        options=WorldSensePlanOptions(practice=0, block_size=200))  # type: ignore[call-arg]
    for _ in range(6):
        runner.respond(runner.options()[0], ResponseTiming(onset_mono=1.0, response_mono=2.0))
    results = tmp_path / RESULTS
    assert len(_keys(results)) >= 2
    results.rename(tmp_path / "aside.jsonl")
    with pytest.raises(BenchlabError, match="this file was deleted or moved away") as stopped:
        runner.respond(runner.options()[0], ResponseTiming(onset_mono=1.0, response_mono=2.0))
    assert stopped.value.path == results
    assert not results.exists()
    runner.close()
    summary = runner.summary()
    assert "Session open: 0 of 84 scored trials recorded (0 in this run)" in summary
    assert "Stopped:" in summary and "Nothing is recorded here." in summary
