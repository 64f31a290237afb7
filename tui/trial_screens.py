"""Which screen shows a trial, by the task's ``trial_kind``: ``"choice"`` built in, other kinds from plug-ins.

A :class:`~benchlab.annotations.task.Task` names its trial kind; the session flow asks :func:`trial_screen` for
the screen of each trial. The built-in ``"choice"`` kind shows ``runner.task.prompt(item_id)`` (a
:class:`~benchlab.annotations.task.ChoicePrompt`: text and numbered options) on the shared
:class:`~benchlab.tui.screens.choice_trial.ChoiceTrialScreen`, so a plug-in made with ``make_choice_task`` needs no
screen of its own. A plug-in with a new kind of trial registers a factory for it, either in code
(:func:`register_trial_screen`) or, without benchlab importing the plug-in's app code before it is needed, in the
``benchlab.trial_screens`` entry-point group (entry-point name = the trial kind).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from textual.screen import Screen

from benchlab.annotations.session_plan import PlannedStep
from benchlab.annotations.session_runner import SessionRunner
from benchlab.annotations.task import ChoicePrompt
from benchlab.data.errors import BenchlabError
from benchlab.tui.task_registry import TrialContext

ENTRY_POINT_GROUP = "benchlab.trial_screens"

#: ``(runner, step, context) -> Screen``: the screen that shows ``step`` and calls ``context.on_answer`` once.
TrialScreenFactory = Callable[[SessionRunner, PlannedStep, TrialContext], Screen[None]]


@runtime_checkable
class PromptingSession(Protocol):
    """A task session whose trials are choice prompts (what the ``"choice"`` kind needs of ``runner.task``)."""

    def prompt(self, item_id: str) -> ChoicePrompt: ...


def choice_trial_screen(runner: SessionRunner, step: PlannedStep, context: TrialContext) -> Screen[None]:
    """The ``"choice"`` kind: the prompt's text above, one numbered button per option below."""
    from benchlab.tui.screens.choice_trial import ChoiceTrialScreen

    task = runner.task
    if not isinstance(task, PromptingSession):
        raise BenchlabError(f"task {task.name!r} declares choice trials but its session has no prompt(item_id)")
    prompt = task.prompt(step.item_id)
    return ChoiceTrialScreen(prompt.text, prompt.options, context)


TRIAL_SCREENS: dict[str, TrialScreenFactory] = {"choice": choice_trial_screen}


def register_trial_screen(kind: str, factory: TrialScreenFactory) -> TrialScreenFactory:
    """Show trials of ``kind`` with ``factory`` (a later registration of the same kind replaces the earlier)."""
    TRIAL_SCREENS[kind] = factory
    return factory


def trial_screen_factory(kind: str) -> TrialScreenFactory:
    """The factory of ``kind``: registered in code, else from the ``benchlab.trial_screens`` entry points."""
    if kind not in TRIAL_SCREENS:
        for ep in entry_points(group=ENTRY_POINT_GROUP, name=kind):
            TRIAL_SCREENS[kind] = ep.load()
            break
    try:
        return TRIAL_SCREENS[kind]
    except KeyError:
        known = ", ".join(sorted(TRIAL_SCREENS))
        raise BenchlabError(f"no screen shows trials of kind {kind!r} (known: {known}); the plug-in that declares "
                            f"it registers one in the {ENTRY_POINT_GROUP!r} entry-point group") from None


def trial_screen(kind: str, runner: SessionRunner, step: PlannedStep, context: TrialContext) -> Screen[None]:
    """The screen of one trial of a task whose ``trial_kind`` is ``kind``."""
    return trial_screen_factory(kind)(runner, step, context)
