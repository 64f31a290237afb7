"""What a session is, read from its files: new, in progress (n answered), finished, or killed before its plan was
saved.

Every front end decides "new or resume" from this one reading (:func:`session_state`) instead of trying one and
catching the error of the other. It only reads: nothing is locked, cut or written, so it is safe while another
process runs the session.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from enum import StrEnum

from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionFiles, TaskSession
from benchlab.data.errors import BenchlabError


class SessionStage(StrEnum):
    """Where a session stands as its files show it (between runs; the runner's own
    :class:`~benchlab.annotations.session.runner.Stage` is where a running session is: consent, a trial, ...)."""

    #: Nothing of this session on disk.
    NEW = "new"
    #: The plan is saved (the session started) and not every scored trial is answered yet.
    IN_PROGRESS = "in progress"
    #: The plan is saved and every scored trial of it is answered.
    FINISHED = "finished"
    #: No plan, but the participant's lock file was left behind by a process that is gone: a session was killed
    #: during start-up or at consent. Nothing of it was recorded, so it starts from its first trial. The lock is
    #: the participant's, so the killed session may also have been another session of theirs.
    KILLED_BEFORE_PLAN = "killed before its plan was saved"


@dataclass(frozen=True)
class SessionState:
    """A session's files, read: its stage, how many of its scored trials are answered, and who holds its lock."""

    stage: SessionStage
    #: Scored trials of the saved plan answered in the results file (0 without a plan; ``None``: unreadable).
    answered: int | None = 0
    #: Scored trials in the saved plan (``None``: no plan, or the plan cannot be read).
    planned: int | None = None
    #: The process id written in the participant's lock file, when that process is alive (a session is running).
    held_by: int | None = None

    @property
    def started(self) -> bool:
        """The plan is saved: this session can only be resumed (or refused), never started again."""
        return self.stage in (SessionStage.IN_PROGRESS, SessionStage.FINISHED)

    def __str__(self) -> str:
        if self.stage is SessionStage.IN_PROGRESS and self.planned is not None and self.answered is not None:
            return f"{self.stage.value} ({self.answered} of {self.planned} answered)"
        return self.stage.value


def session_state(files: SessionFiles, task_session: TaskSession) -> SessionState:
    """Read the session's plan file, its results log (in the task's format) and the participant's lock.

    A plan that cannot be read still means "started" (its stage is in progress, ``planned`` is ``None``): opening
    then names the broken file when asked to resume, as it always did.
    """
    held_by = _live_holder(files)
    if not files.plan.exists():
        stage = SessionStage.KILLED_BEFORE_PLAN if files.lock.exists() and held_by is None else SessionStage.NEW
        return SessionState(stage, held_by=held_by)
    try:
        main = set(SessionPlan.load(files.plan).main_items)
    except BenchlabError:
        return SessionState(SessionStage.IN_PROGRESS, answered=None, held_by=held_by)
    answered: int | None
    try:
        log = task_session.response_log(files.results, task_session.item_id_of)
        answered = len({task_session.item_id_of(r) for r in log.peek()} & main)
    except (BenchlabError, KeyError, ValueError):
        answered = None
    stage = SessionStage.FINISHED if answered == len(main) else SessionStage.IN_PROGRESS
    return SessionState(stage, answered=answered, planned=len(main), held_by=held_by)


def _live_holder(files: SessionFiles) -> int | None:
    """The process named in the lock file, if it still runs (read without taking the lock: a reading must never
    make a starting session fail)."""
    try:
        pid = int(files.lock.read_text().strip() or 0)
    except (OSError, ValueError):
        return None
    if pid <= 0:
        return None
    with contextlib.suppress(PermissionError):  # alive, but another user's
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
    return pid
