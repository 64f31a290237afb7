"""Which task a speed harness drives, and the command line of its session, from the task's declaration.

``bench serve`` and ``timing-check`` answer one key per question, so they drive a task whose trials are choice
trials (``trial_kind == "choice"``, shown by the generic choice screen): the task named, else the first registered
one (launcher order). The session's command line is built from the declaration: its name, its data-set flag with
its bundled data set, and a plan without practice in one block where the task's plan has those options.
"""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.options import option_infos
from benchlab.annotations.registry import registry
from benchlab.annotations.task import Task
from benchlab.data.errors import BenchlabError

#: The trial kind a harness can drive: one numbered key per question.
DRIVEN_KIND = "choice"


def driven_task(name: str | None, harness: str) -> Task:
    """The task ``harness`` drives: ``name``, else the first registered task with choice trials."""
    tasks = registry()
    if name is not None:
        task = tasks.get(name)
        if task.trial_kind != DRIVEN_KIND:
            raise BenchlabError(f"{harness} drives choice trials (one key per question); task {name!r} shows "
                                f"{task.trial_kind!r} trials")
        return task
    for task in tasks:
        if task.trial_kind == DRIVEN_KIND:
            return task
    raise BenchlabError(f"{harness}: no registered task shows choice trials")


def dataset_flag(task: Task, dataset: str | Path) -> list[str]:
    """The task's own data-set flag (``--dataset`` or what the task renamed it to) with ``dataset``."""
    flag = next(info.flag for info in option_infos(task.session_options) if info.name == "dataset")
    return [flag, str(dataset)]


def plan_flags(task: Task, **values: object) -> list[str]:
    """Flags for the plan options among ``values`` (by field name) that the task's plan has; the others are left
    to the task's defaults (a task without practice trials has no ``practice`` to set to 0)."""
    flags = {info.name: info.flag for info in option_infos(task.plan_options) if info.cli}
    return [part for name, value in values.items() if name in flags for part in (flags[name], str(value))]
