"""The speed harnesses (``bench serve``, ``timing-check``) drive a task chosen from the registry, and build its
session's command line from the declaration, not from a benchmark's name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchlab.annotations.registry import registry
from benchlab.data.errors import BenchlabError
from benchlab.data.settings import reset_settings
from benchlab.tui.cli import main
from benchlab.tui.harness.driven_task import dataset_flag, driven_task, plan_flags
from benchlab.tui.harness.serve_level import bench_dataset


def test_the_default_is_the_first_registered_task_with_choice_trials() -> None:
    first = next(task for task in registry() if task.trial_kind == "choice")
    assert driven_task(None, "bench serve") is first
    assert first.name == "worldsense"  # the built-in order: what the published figures were measured on


def test_a_task_without_choice_trials_is_refused_in_one_line() -> None:
    with pytest.raises(BenchlabError, match="timing-check drives choice trials .* task 'sort' shows 'sort' trials"):
        driven_task("sort", "timing-check")


def test_the_command_line_comes_from_the_declaration() -> None:
    task = registry().get("worldsense")
    assert dataset_flag(task, "/data/x") == ["--testset", "/data/x"]  # the task's own name for the data-set flag
    assert plan_flags(task, practice=0, block_size=1000) == ["--practice", "0", "--block-size", "1000"]
    assert plan_flags(task, no_such_option=1) == []  # an option the task's plan lacks is left to its defaults


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_timing_check_drives_the_task_named_with_task(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "timing-check", "--trials", "3", "--task", "worldsense", "--keep", str(tmp_path))
    assert (code, err) == (0, "")
    assert "3 scripted key presses" in out and f"{registry().get('worldsense').title} trial screen" in out
    plan = json.loads(next(tmp_path.rglob("*plan*.json")).read_text())
    assert plan["task"] == "worldsense"


@pytest.mark.parametrize("command", [["timing-check", "--trials", "3"], ["bench", "serve", "--no-probe"]])
@pytest.mark.parametrize(("name", "problem"), [("nope", "unknown task 'nope' (known: "),
                                               ("sort", "drives choice trials (one key per question); task 'sort'")])
def test_a_harness_refuses_an_unknown_or_non_choice_task_in_one_line(
        command: list[str], name: str, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, *command, "--task", name, "--keep", str(tmp_path))
    assert code == 2 and out == ""
    assert err.startswith("benchlab: error: ") and problem in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())  # refused before a session was started


def test_the_harness_help_says_which_task_is_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["timing-check"], ["bench", "serve"]):
        code, out, _ = cli(capsys, *command, "--help")
        assert code == 0
        assert "--task NAME" in out and "first registered task with choice trials" in " ".join(out.split())


def test_bench_serve_measures_on_the_full_data_set_when_this_machine_has_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Capacity measured on a bundled sample hid what a real test set costs (issue 24): the full one when present."""
    task = registry().get("worldsense")
    monkeypatch.setenv("BENCHLAB_SHARED_DATASETS", str(tmp_path))
    reset_settings()
    try:
        assert bench_dataset(task) == task.default_dataset()  # not here: the bundled sample
        full = tmp_path / "worldsense" / "test_set"
        full.mkdir(parents=True)
        (full / "trials.jsonl.bz2").write_bytes(b"")
        assert bench_dataset(task) == full.resolve()
    finally:
        monkeypatch.undo()
        reset_settings()
