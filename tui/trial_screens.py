"""Which screen shows a trial, by the task's ``trial_kind``: every kind, built-in or plug-in, is an entry point.

The ``benchlab.trial_screens`` entry-point group maps a trial kind (the entry's name, the value of a task's
``trial_kind``) to a factory ``(runner, step, context) -> Screen`` (:data:`TrialScreenFactory`). benchlab's own
kinds are declared in its ``pyproject.toml`` like a plug-in's, so this module names no benchmark::

    [project.entry-points."benchlab.trial_screens"]
    rating-scale = "my_package.rating_screen:rating_trial_screen"

A factory that fails to import, is not callable, has a name that cannot be a kind, or takes a kind already taken
(a built-in's included: built-ins load first) is not used; it is kept with its one-line reason
(:func:`trial_screen_report`, listed by ``benchlab plugins``), and a task asking for that kind gets one line naming
the task, the kind, the known kinds and the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypeAlias

from benchlab.annotations.plugins import (
    Broken,
    Entry,
    GroupReport,
    clash,
    declared_entries,
    load_group,
    name_problem,
    remember,
)
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:  # ``benchlab --help`` and ``benchlab plugins`` read this group's report without loading Textual
    from textual.screen import Screen

    from benchlab.annotations.session.plan import PlannedStep
    from benchlab.annotations.session.runner import SessionRunner
    from benchlab.tui.trial_context import TrialContext

ENTRY_POINT_GROUP = "benchlab.trial_screens"

TrialScreenFactory: TypeAlias = "Callable[[SessionRunner, PlannedStep, TrialContext], Screen[None]]"


def _problem(entry: Entry, obj: Any) -> str | None:
    """Why a loaded object cannot show trials (``None`` when it can)."""
    if not callable(obj):
        return f"{type(obj).__name__} is not a trial screen factory: it is not callable as (runner, step, context)"
    return name_problem(entry.name, "trial kind")


@cache
def _loaded() -> tuple[GroupReport, dict[str, TrialScreenFactory]]:
    """The group, loaded once per process: the report (kept for ``benchlab plugins``) and the factories by kind."""
    report = remember(load_group(ENTRY_POINT_GROUP, _problem))
    kept = report.refuse_clashes("trial kind", lambda entry, _: entry.name)
    factories: dict[str, TrialScreenFactory] = {entry.name: factory for entry, factory in kept}
    return report, factories


def trial_screen_report() -> GroupReport:
    """What the ``benchlab.trial_screens`` group gave: the kinds loaded and the broken entries with their reasons."""
    return _loaded()[0]


def plugin_problems() -> list[Broken]:
    """The broken trial kinds of plug-ins, found by loading only the plug-ins' entries (a kind clashing with a
    built-in one included). ``benchlab --help`` and ``benchlab run WORD`` warn from this without loading benchlab's
    own screens, so a start with no plug-in installed loads no Textual; once the group is fully loaded (the app,
    ``benchlab plugins``) that report answers."""
    if _loaded.cache_info().currsize:
        return list(_loaded()[0].broken)
    report = load_group(ENTRY_POINT_GROUP, _problem, builtins=False)
    built_in = {entry.name: entry for entry in declared_entries(ENTRY_POINT_GROUP) if entry.builtin}
    for entry, _ in list(report.loaded):
        if entry.name in built_in:
            report.refuse(entry, clash("trial kind", entry.name, built_in[entry.name], entry))
    report.refuse_clashes("trial kind", lambda entry, _: entry.name)
    return report.broken


def trial_screen_kinds() -> list[str]:
    """The trial kinds a task may name, built-ins first."""
    return list(_loaded()[1])


def register_trial_screen(kind: str, factory: TrialScreenFactory) -> None:
    """Show trials of ``kind`` with ``factory`` in this process only (notebooks, tests); a package declares its kind
    in the ``benchlab.trial_screens`` group instead. A kind already taken is refused, as for an entry point."""
    factories = _loaded()[1]
    if kind in factories:
        raise ValueError(f"trial kind {kind!r} already has a screen")
    factories[kind] = factory


def trial_screen(kind: str, runner: SessionRunner, step: PlannedStep, context: TrialContext) -> Screen[None]:
    """The screen showing trial ``step`` of ``runner``'s session, made by the factory of ``kind``."""
    report, factories = _loaded()
    try:
        factory = factories[kind]
    except KeyError:
        known = ", ".join(factories) or "none"
        broken = next((b for b in report.broken if b.entry.name == kind), None)
        why = f"; {broken.entry.where()} did not load: {broken.reason}" if broken is not None else ""
        raise BenchlabError(f"task {runner.task.name} has trials of kind {kind!r}, which no trial screen shows "
                            f"(known: {known}){why}") from None
    return factory(runner, step, context)
