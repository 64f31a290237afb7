"""Which screen shows a trial, by the task's ``trial_kind``: the app's only per-kind code.

``"choice"`` (text + numbered answer buttons) needs nothing from the task but its session's
:meth:`~benchlab.annotations.task.ChoiceSession.prompt`, so a plug-in choice task needs no app code; ``"sort"`` is
SORT's reading-then-question screen. A plug-in with its own kind of trial calls :func:`register_trial_screen`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, TypeAlias

from benchlab.annotations.plugins import GroupReport, load_group, remember
from benchlab.annotations.session.plan import PlannedStep
from benchlab.annotations.session.runner import SessionRunner
from benchlab.annotations.task import ChoiceSession
from benchlab.data.errors import BenchlabError
from benchlab.tui.trial_context import TrialContext

if TYPE_CHECKING:  # `benchlab --help` reads this group's report without loading Textual
    from textual.screen import Screen

TrialScreenFactory: TypeAlias = "Callable[[SessionRunner, PlannedStep, TrialContext], Screen[None]]"


def choice_trial_screen(runner: SessionRunner, step: PlannedStep, context: TrialContext) -> Screen[None]:
    from benchlab.tui.screens.choice_trial import ChoiceTrialScreen

    task = runner.task
    if not isinstance(task, ChoiceSession):
        raise BenchlabError(f"task {task.name} has choice trials but its session has no prompt(item_id)")
    prompt = task.prompt(step.item_id)
    return ChoiceTrialScreen(prompt.text, prompt.options, context)


def sort_trial_screen(runner: SessionRunner, step: PlannedStep, context: TrialContext) -> Screen[None]:
    from benchlab.tui.sort.trial_screen import sort_trial_screen as make

    return make(runner, step, context)


TRIAL_SCREENS: dict[str, TrialScreenFactory] = {"choice": choice_trial_screen, "sort": sort_trial_screen}


def register_trial_screen(kind: str, factory: TrialScreenFactory) -> None:
    """Show trials of ``kind`` with ``factory`` (for a plug-in task whose trials are not choices)."""
    TRIAL_SCREENS[kind] = factory


def trial_screen(kind: str, runner: SessionRunner, step: PlannedStep, context: TrialContext) -> Screen[None]:
    try:
        factory = TRIAL_SCREENS[kind]
    except KeyError:
        known = ", ".join(TRIAL_SCREENS)
        raise BenchlabError(f"no trial screen for trial kind {kind!r} (known: {known})") from None
    return factory(runner, step, context)


# -- the benchlab.trial_screens group (stub of the wiring branch: the kit branch owns the real loader) ----------

def trial_screen_report() -> GroupReport:
    """What the ``benchlab.trial_screens`` group gave (loaded and remembered once per process)."""
    return _trial_screen_report()


@lru_cache(maxsize=1)
def _trial_screen_report() -> GroupReport:
    return remember(load_group("benchlab.trial_screens"))
