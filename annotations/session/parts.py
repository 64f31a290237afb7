"""What a task contributes to opening one of its sessions, and nothing more.

Opening a session has shared steps (checking the ids, deciding from the files whether it is new or resumed,
refusing to replace a started session, taking the participant's lock, saving the plan) written once in
:mod:`benchlab.annotations.session.opening`. A task adds only what is its own, as a :class:`SessionParts`: where
the session's files go, its per-session part (a :class:`PlannedTaskSession`) and how to build a new plan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionFiles, TaskSession


class PlannedTaskSession(TaskSession, Protocol):
    """A :class:`TaskSession` that can check a plan against the data it was opened with: every planned item must
    exist (a saved plan names items of the data set it was made from). It may also adopt the plan's own settings
    (a resumed session keeps the condition its saved plan was made with)."""

    def check_plan(self, plan: SessionPlan) -> None: ...


@dataclass(frozen=True)
class SessionParts:
    """One session of one task, as the task sees it: who, where its files go, its per-session part, and how a new
    plan is made. ``build`` gets the plan seed and reads the participant's earlier answers itself (so items already
    answered are not drawn again); ``design`` adds the design to the "already started" refusal (``" (stm,
    e250/s20)"``)."""

    #: The task's name, as saved in the plan's ``task`` field (a resumed plan must carry the same).
    task: str
    participant: str
    session: str
    files: SessionFiles
    task_session: PlannedTaskSession
    build: Callable[[int], SessionPlan]
    design: str = ""
