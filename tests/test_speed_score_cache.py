"""The cached ``score worldsense`` output: printed cell for cell as the computing path prints it (every format,
warnings in the same order), recomputed when any input changes, and printed without importing numpy or pandas."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab.data.samples import sample_path
from benchlab.data.tables import FORMATS, render
from benchlab.data.worldsense.score_cache import output_key, scored_output
from benchlab.data.worldsense.scoring import score_testset_dir
from benchlab.tui.cli import main

SAMPLE = sample_path("worldsense")


def _testset(tmp_path: Path, answers: dict[str, list[dict[str, object]]]) -> Path:
    """A small synthetic test set: the sample's trials and the given results files."""
    folder = tmp_path / "ts"
    (folder / "results").mkdir(parents=True)
    shutil.copy(SAMPLE / "trials.jsonl.bz2", folder / "trials.jsonl.bz2")
    for name, lines in answers.items():
        (folder / "results" / name).write_text("".join(json.dumps(obj) + "\n" for obj in lines))
    return folder


def _sample_answers(name: str = "basic___GPT4___results.jsonl") -> list[dict[str, object]]:
    return [json.loads(line) for line in (SAMPLE / "results" / name).read_text().splitlines()]


def _synthetic(tmp_path: Path) -> Path:
    """Two models, one with a missing answer (an incomplete tuple: a warning) and an unknown Key (another)."""
    gpt4 = _sample_answers()
    partial = [*_sample_answers("basic___GPT3.5___results.jsonl")[1:], {"Key": 999_999_999, "resp": "TRUE"}]
    return _testset(tmp_path, {"basic___GPT4___results.jsonl": gpt4, "cot___small___results.jsonl": partial})


@pytest.mark.parametrize("fmt", FORMATS)
def test_cached_output_is_the_computed_output_in_every_format(tmp_path: Path, fmt: str) -> None:
    for folder in (SAMPLE, _synthetic(tmp_path)):
        tables = score_testset_dir(folder, cache=False)
        expected = render(tables.tables(), fmt)
        computed_warnings: list[str] = []
        first = scored_output(folder, [folder / "results"], fmt, on_warning=computed_warnings.append)
        cached_warnings: list[str] = []
        second = scored_output(folder, [folder / "results"], fmt, on_warning=cached_warnings.append)
        assert first.text == second.text == expected
        assert computed_warnings == cached_warnings == tables.warnings


def test_synthetic_files_give_warnings_that_the_cache_replays(tmp_path: Path) -> None:
    folder = _synthetic(tmp_path)
    scored_output(folder, [folder / "results"], "table")
    replayed: list[str] = []
    scored_output(folder, [folder / "results"], "table", on_warning=replayed.append)
    assert any("not in the test set" in w or "unknown" in w.lower() for w in replayed), replayed


def test_a_changed_added_or_removed_file_is_never_served_stale(tmp_path: Path) -> None:
    folder = _testset(tmp_path, {"basic___GPT4___results.jsonl": _sample_answers()})
    dirs = [folder / "results"]
    before = scored_output(folder, dirs, "csv").text
    keys = {output_key(folder, dirs, "csv")}
    wrong = [{"Key": a["Key"], "resp": "FALSE" if a["resp"] == "TRUE" else "TRUE"} for a in _sample_answers()]
    (folder / "results" / "basic___GPT4___results.jsonl").write_text("".join(json.dumps(a) + "\n" for a in wrong))
    changed = scored_output(folder, dirs, "csv").text
    assert changed != before
    assert changed == render(score_testset_dir(folder, cache=False).tables(), "csv")
    keys.add(output_key(folder, dirs, "csv"))
    (folder / "results" / "cot___GPT4___results.jsonl").write_text("".join(json.dumps(a) + "\n" for a in wrong))
    added = scored_output(folder, dirs, "csv").text
    assert "cot" in added and "cot" not in changed
    keys.add(output_key(folder, dirs, "csv"))
    assert len(keys) == 3


def test_a_damaged_entry_is_recomputed(tmp_path: Path) -> None:
    folder = _testset(tmp_path, {"basic___GPT4___results.jsonl": _sample_answers()})
    dirs = [folder / "results"]
    good = scored_output(folder, dirs, "table").text
    key = output_key(folder, dirs, "table")
    assert key is not None
    entries = list(Path(os.environ["XDG_CACHE_HOME"]).rglob(f"score-v*-{key}.json"))
    assert len(entries) == 1
    for entry in entries:
        entry.write_text("{not json")
    assert scored_output(folder, dirs, "table").text == good


def test_score_command_prints_the_same_tables_cached_and_computed(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = _synthetic(tmp_path)
    printed = []
    for extra in (["--no-cache"], [], []):  # computed, computed and stored, then from the cache
        main(["score", "worldsense", "-t", str(folder), *extra])  # returns normally on success (no exit)
        printed.append(capsys.readouterr())
    assert printed[0].out == printed[1].out == printed[2].out
    assert printed[0].err.count("warning") == printed[2].err.count("warning") > 0


def test_the_cached_path_imports_neither_numpy_nor_pandas(tmp_path: Path) -> None:
    folder = _synthetic(tmp_path)
    env = {**os.environ, "BENCHLAB_CACHE_DIR": str(tmp_path / "cache")}
    probe = ("import sys, runpy\nsys.argv = ['x', '-t', sys.argv[1]]\n"
             "try:\n    runpy.run_module('benchlab.data.worldsense', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "print('LOADED', sorted(m for m in ('numpy', 'pandas') if m in sys.modules), file=sys.stderr)\n")
    runs = [subprocess.run([sys.executable, "-c", probe, str(folder)], env=env, capture_output=True, text=True,
                           timeout=120) for _ in range(2)]
    assert "LOADED ['numpy']" in runs[0].stderr, runs[0].stderr  # the first run computes (its tables need no pandas)
    assert "LOADED []" in runs[1].stderr, runs[1].stderr  # the second prints from the cache
    assert runs[0].stdout == runs[1].stdout and "accuracy" in runs[1].stdout.lower()


def test_an_unusable_cache_folder_still_prints_the_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchlab.data.settings import reset_settings

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BENCHLAB_CACHE_DIR", str(blocker / "cache"))
    reset_settings()
    expected = render(score_testset_dir(SAMPLE, cache=False).tables(), "table")
    assert scored_output(SAMPLE, [SAMPLE / "results"], "table").text == expected
