"""The task registry: every task declared in the ``benchlab.tasks`` entry-point group, benchlab's own included.

benchlab declares its built-in benchmarks in its own ``pyproject.toml``; a plug-in package declares::

    [project.entry-points."benchlab.tasks"]
    mytask = "my_package.task:TASK"

where ``TASK`` is a :class:`~benchlab.annotations.task.Task` (or a function returning one). Installing the package
is all it takes: ``benchlab run mytask``, ``benchlab score mytask``, the launcher line and the Results screen
appear. A plug-in that fails to import, has a name that cannot be a command word, or takes a name already taken is
not loaded; it is kept with its one-line reason (``benchlab plugins``), never a crash of the whole CLI.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from benchlab.annotations.plugins import Entry, load_group, name_problem, remember
from benchlab.annotations.task import Benchmark, Ranked, Registry

ENTRY_POINT_GROUP = "benchlab.tasks"


def _problem(entry: Entry, obj: Any) -> str | None:
    """Why a loaded object is not a usable task (``None`` when it is)."""
    missing = [attr for attr in ("name", "title", "description", "commands") if not hasattr(obj, attr)]
    if missing:
        return f"{type(obj).__name__} is not a task: it has no {', '.join(missing)}"
    return name_problem(obj.name, "task")


def _rank(task: Any) -> tuple[int, str]:
    """Launcher order: a declared rank first (the built-ins have one), then by name."""
    return (task.launcher_rank if isinstance(task, Ranked) else 1000, str(task.name))


@lru_cache(maxsize=1)
def registry() -> Registry:
    """Every task, loaded once per process: built-ins first, then plug-ins by entry-point name."""
    report = remember(load_group(ENTRY_POINT_GROUP, _problem))
    report.loaded.sort(key=lambda loaded: _rank(loaded[1]))
    reg = Registry()
    for _, task in report.refuse_clashes("task", lambda _, task: str(task.name)):
        reg.add(task)
    reg.broken = [(b.entry.where(), b.reason) for b in report.broken]
    return reg


def register(benchmark: Benchmark) -> Benchmark:
    """Add a task at run time (tests, notebooks); plug-in packages use the entry-point group instead."""
    return registry().add(benchmark)
