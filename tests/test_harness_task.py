"""The speed harnesses (``bench serve``, ``timing-check``) drive a task chosen from the registry, and build its
session's command line from the declaration, not from a benchmark's name."""

from __future__ import annotations

import pytest

from benchlab.annotations.registry import registry
from benchlab.data.errors import BenchlabError
from benchlab.tui.harness.driven_task import dataset_flag, driven_task, plan_flags


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
