"""Readers refuse non-regular files and stay within bounded memory (issue 23 item 7): a FIFO, a folder or a symlink
loop named like a results file is an error naming it (never a hang, never skipped); a 2 GB sparse results file is
refused before it is read, with the peak memory of the whole command measured in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab.data.samples import sample_path
from tests.test_compare_sort import run_cli

SAMPLE = sample_path("worldsense")


def _testset(tmp_path: Path) -> Path:
    folder = tmp_path / "ts"
    shutil.copytree(SAMPLE, folder)
    return folder


@pytest.mark.parametrize("kind", ["fifo", "folder", "loop"])
def test_a_non_regular_entry_named_like_a_results_file_is_an_error_naming_it(
        tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _testset(tmp_path)
    odd = folder / "results" / "basic___Odd___results.jsonl"
    if kind == "fifo":
        os.mkfifo(odd)
    elif kind == "folder":
        odd.mkdir()
    else:
        odd.symlink_to(odd)
    code = run_cli(["score", "worldsense", "-t", str(folder)])  # a FIFO used to block here forever
    err = capsys.readouterr().err
    assert code == 2 and str(odd) in err and "Traceback" not in err


def test_a_fifo_named_like_a_sort_results_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "results").mkdir()
    os.mkfifo(tmp_path / "results" / "250-s20-human_P01_results.csv")
    assert run_cli(["score", "sort", str(tmp_path / "results")]) == 2
    assert "not a regular file" in capsys.readouterr().err


#: The command's own peak: VmHWM of its address space. Not ``ru_maxrss``, which Linux carries over ``execve`` from
#: the forking process (a pytest worker that has grown to hundreds of MB would be counted as the command's peak).
PEAK = """
import sys
from benchlab.tui.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
hwm = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print("PEAK_KB", hwm, "CODE", code, file=sys.stderr)
"""


@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_2_gb_sparse_results_file_is_refused_within_bounded_memory(tmp_path: Path, command: str) -> None:
    folder = _testset(tmp_path)
    huge = folder / "results" / "basic___Huge___results.jsonl"
    with open(huge, "wb") as handle:
        handle.truncate(2 * 1024**3)  # sparse: no disk used
    args = [command, "worldsense", "-t", str(folder)] if command == "score" else [
        command, "worldsense", "--results", str(folder / "results"), "-t", str(folder)]
    done = subprocess.run([sys.executable, "-c", PEAK, *args], capture_output=True, text=True, timeout=120)
    peak_mb = int(done.stderr.split("PEAK_KB ")[1].split()[0]) / 1024
    assert "CODE 2" in done.stderr and "over the" in done.stderr and str(huge) in done.stderr
    assert peak_mb < 500, f"peak {peak_mb:.0f} MB"
