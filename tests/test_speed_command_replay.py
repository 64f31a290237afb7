"""``benchlab score worldsense`` replayed by the console script (no CLI built): the same stdout and stderr as the
run that computed it, and computed again when a results file changes, a results file is added, the environment
differs, or the command line is not the same."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from benchlab.data.samples import sample_path

SAMPLE = sample_path("worldsense")


def _testset(tmp_path: Path) -> Path:
    folder = tmp_path / "ts"
    shutil.copytree(SAMPLE, folder)
    lines = (folder / "results" / "basic___GPT4___results.jsonl").read_text().splitlines()
    # an incomplete tuple: the scoring warns, so stderr is replayed too
    (folder / "results" / "cot___small___results.jsonl").write_text("\n".join(lines[1:]) + "\n")
    return folder


def _run(args: list[str], cache: Path, *extra_env: tuple[str, str]) -> tuple[str, str, bool]:
    """stdout, stderr, and whether the run was a replay (a replay writes no new entry and loads no command
    declaration)."""
    env = {**os.environ, "BENCHLAB_CACHE_DIR": str(cache), **dict(extra_env)}
    probe = ("import sys; from benchlab.tui.entry import main; main(sys.argv[1:]); "
             "sys.stderr.write('COMMAND LOADED\\n' if any(m.startswith('benchlab.annotations.') and "
             "m.endswith('.commands') for m in sys.modules) else '')")
    proc = subprocess.run([sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True,
                          timeout=300, check=True)
    err = proc.stderr.replace("COMMAND LOADED\n", "")
    return proc.stdout, err, "COMMAND LOADED" not in proc.stderr


def test_replay_prints_what_the_computing_run_printed(tmp_path: Path) -> None:
    folder, cache = _testset(tmp_path), tmp_path / "cache"
    args = ["score", "worldsense", "-t", str(folder)]
    first = _run(args, cache)
    second = _run(args, cache)
    assert not first[2] and second[2]
    assert first[:2] == second[:2]
    assert "warning" in first[1] and "GPT4" in first[0]
    for fmt in ("json", "csv"):  # each command line is its own entry
        computed = _run([*args, "--format", fmt], cache)
        replayed = _run([*args, "--format", fmt], cache)
        assert not computed[2] and replayed[2] and computed[:2] == replayed[:2]
        if fmt == "json":
            assert json.loads(replayed[0])


def test_a_changed_or_added_results_file_or_other_environment_is_computed_again(tmp_path: Path) -> None:
    folder, cache = _testset(tmp_path), tmp_path / "cache"
    args = ["score", "worldsense", "-t", str(folder)]
    _run(args, cache)
    assert _run(args, cache)[2]
    small = folder / "results" / "cot___small___results.jsonl"
    lines = small.read_text().splitlines()
    flipped = json.loads(lines[0])
    flipped["resp"] = "FALSE" if flipped["resp"] != "FALSE" else "TRUE"
    small.write_text("\n".join([json.dumps(flipped), *lines[1:]]) + "\n")
    changed = _run(args, cache)
    assert not changed[2]
    shutil.copy(small, folder / "results" / "cot___other___results.jsonl")
    added = _run(args, cache)
    assert not added[2] and "other" in added[0] and "other" not in changed[0]
    assert _run(args, cache)[2]
    assert not _run(args, cache, ("BENCHLAB_SOMETHING", "1"))[2]
    assert not _run([*args, "--no-cache"], cache)[2] and not _run([*args, "--no-cache"], cache)[2]


def test_a_replay_to_a_reader_that_stopped_early_ends_quietly(tmp_path: Path) -> None:
    folder, cache = _testset(tmp_path), tmp_path / "cache"
    args = ["score", "worldsense", "-t", str(folder), "--format", "json"]
    assert not _run(args, cache)[2]
    env = {**os.environ, "BENCHLAB_CACHE_DIR": str(cache)}
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from benchlab.tui.entry import main; "
                             "main(sys.argv[1:])", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head -c 0`: the reader is gone before anything is written
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert b"Traceback" not in err and b"BrokenPipe" not in err
