"""The task registry: the built-in benchmarks, then plug-ins from the ``benchlab.tasks`` entry-point group.

A plug-in package declares, in its ``pyproject.toml``::

    [project.entry-points."benchlab.tasks"]
    mytask = "my_package.task:TASK"

where ``TASK`` is a :class:`~benchlab.annotations.task.Task` (or a function returning one). Installing the package
is all it takes: ``benchlab run mytask``, ``benchlab score mytask``, the launcher line and the Results screen
appear. A plug-in that fails to import is skipped with a one-line reason (never a crash of the whole CLI).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from importlib.metadata import entry_points
from types import FunctionType

from benchlab.annotations.task import Registry, Task

ENTRY_POINT_GROUP = "benchlab.tasks"

#: Built-in tasks, in launcher order: ``module:attribute``.
BUILTIN = ("benchlab.annotations.worldsense.task:TASK", "benchlab.annotations.sort.task:TASK")


def _resolve(obj: object) -> Task:
    """An entry point names a task object or a function (without arguments) returning one."""
    task = obj() if isinstance(obj, FunctionType) else obj
    return task  # type: ignore[return-value]


def _load_builtin(spec: str) -> Task:
    module, _, attr = spec.partition(":")
    return _resolve(getattr(import_module(module), attr))


@lru_cache(maxsize=1)
def registry() -> Registry:
    """Every task, loaded once per process."""
    reg = Registry()
    for spec in BUILTIN:
        reg.add(_load_builtin(spec))
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            task = _resolve(ep.load())
        except Exception as exc:  # a broken plug-in must not take the CLI down
            reg.broken.append((f"{ep.name} = {ep.value}", f"{type(exc).__name__}: {exc}"))
            continue
        if task.name in reg.tasks:
            reg.broken.append((f"{ep.name} = {ep.value}", f"task name {task.name!r} is already taken"))
            continue
        reg.add(task)
    return reg


def register(task: Task) -> Task:
    """Add a task at run time (tests, notebooks); plug-in packages use the entry-point group instead."""
    return registry().add(task)
