"""The ``benchlab`` console script ends a pure command (one that offered its output for replay) without the
interpreter's teardown: its output is still complete through a pipe, its exit status is still 0, every exit handler
still runs; errors keep their status, and a command that is not pure ends the usual way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchlab.data.samples import sample_path

SAMPLE = sample_path("worldsense")

#: ``benchlab ARGS`` as the console script runs it, with an exit handler registered after it (as a library the
#: command loads would register one) that leaves a marker file, and an object whose finaliser says whether the
#: interpreter's teardown ran.
PROBE = """
import atexit, sys
from pathlib import Path
marker = Path(sys.argv.pop(1))
sys.argv[0] = "benchlab"
from benchlab.tui.entry import console
class Torn:
    def __del__(self):
        marker.with_suffix(".teardown").write_text("torn down")
KEEP = Torn()
try:
    console()
finally:
    atexit.register(marker.write_text, "exit handler ran")
"""


def _console(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    marker = tmp_path / "marker.txt"
    marker.unlink(missing_ok=True)
    marker.with_suffix(".teardown").unlink(missing_ok=True)
    env = {**os.environ, "BENCHLAB_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", PROBE, str(marker), *args], env=env, capture_output=True,
                          timeout=300)
    return proc, marker


def _in_process_cli(*args: str) -> bytes:
    return subprocess.run([sys.executable, "-m", "benchlab.tui.cli", *args], capture_output=True, timeout=300,
                          check=True).stdout


def test_a_pure_command_ends_early_with_its_whole_output_and_every_exit_handler(tmp_path: Path) -> None:
    args = ("compare", "worldsense", "-t", str(SAMPLE), "--results", str(SAMPLE / "results"), "--format", "json")
    proc, marker = _console(tmp_path, *args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == _in_process_cli(*args)  # every byte, though the process did not tear down
    assert len(proc.stdout) > 10_000
    assert marker.read_text() == "exit handler ran"
    assert not marker.with_suffix(".teardown").exists()  # the early end: no module was torn down


def test_an_error_keeps_its_status_and_a_command_that_is_not_pure_ends_as_usual(tmp_path: Path) -> None:
    proc, marker = _console(tmp_path, "compare", "worldsense", "-t", str(tmp_path / "missing"))
    assert proc.returncode == 2 and b"benchlab: error:" in proc.stderr
    assert marker.read_text() == "exit handler ran"
    assert marker.with_suffix(".teardown").read_text() == "torn down"
    proc, marker = _console(tmp_path, "plugins")  # prints, but offers nothing for replay
    assert proc.returncode == 0 and proc.stdout
    assert marker.with_suffix(".teardown").read_text() == "torn down"


def test_a_pure_command_into_a_pipe_that_closed_early_ends_quietly(tmp_path: Path) -> None:
    env = {**os.environ, "BENCHLAB_CACHE_DIR": str(tmp_path / "cache")}
    probe = "import sys; sys.argv[0] = 'benchlab'; from benchlab.tui.entry import console; console()"
    proc = subprocess.Popen([sys.executable, "-c", probe, "compare", "worldsense", "-t", str(SAMPLE), "--format",
                             "json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(100)
    proc.stdout.close()  # `| head -c 100`
    err = proc.stderr.read()
    assert proc.wait(timeout=120) in (0, 120)  # what the interpreter's own exit gives a broken stdout
    assert b"Traceback" not in err
