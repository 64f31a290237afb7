"""Opening a session: one function for every task and every front end.

:func:`open_session` (checked options) and :func:`open_session_from_values` (a form's strings, a test's keywords)
are how the CLI's ``run``, the launcher form, ``serve``'s web sessions, studies, the harnesses and the tests open a
session. The steps every task shares are written here once:

1. check the options (a simulated participant the task offers) and read the participant-facing texts;
2. the task contributes its part (:meth:`~benchlab.annotations.task.OpensSessions.session_parts`: it loads its
   data, says where the files go, how a plan is built, and its per-session part);
3. :func:`open_parts`: check the ids, read what the session is from its files
   (:func:`~benchlab.annotations.session.state.session_state`), decide new or resume from that, refuse to replace
   a started session, check the plan against the data, then open the runner (it takes the participant's lock and
   saves the plan when the session starts).

``resume`` means "continue this session if its plan is saved, else start it" (a session killed before its plan
was saved recorded nothing: it starts, and :attr:`SessionRunner.resume_note` says so). A web session always asks
for that, so a reconnect continues and a first visit starts.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from benchlab.annotations.ids import check_id
from benchlab.annotations.options import OptionError, Options, parse_options
from benchlab.annotations.session.parts import SessionParts
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionFiles, SessionRunner, SessionText
from benchlab.annotations.session.state import SessionState, session_state
from benchlab.annotations.session.texts import session_text
from benchlab.annotations.task import OpensSessions, SessionOptions, Task
from benchlab.data.errors import BenchlabError


def session_options(task: Task, values: Mapping[str, Any]) -> tuple[SessionOptions, Options]:
    """The checked session and plan options of ``task`` from values by field name (unknown names are refused)."""
    session_fields = task.session_options.model_fields
    plan_fields = task.plan_options.model_fields
    unknown = [name for name in values if name not in session_fields and name not in plan_fields]
    if unknown:
        raise OptionError(unknown[0], f"is not an option of {task.name}")
    session = parse_options(task.session_options, {k: v for k, v in values.items() if k in session_fields})
    plan = parse_options(task.plan_options, {k: v for k, v in values.items() if k in plan_fields})
    return session, plan


def open_session(task: Task, session: SessionOptions, plan: Options, text: SessionText | None = None, *,
                 planned: SessionPlan | None = None) -> SessionRunner:
    """The opened runner of a session of ``task`` (new, or resumed when ``session.resume`` and its plan is saved),
    holding the participant's lock. Slow (it loads the task's data): screens call it from a worker.

    ``text``: the participant-facing texts (default: read from the session options, see
    :func:`~benchlab.annotations.session.texts.session_text`). ``planned``: the plan :func:`plan_ahead` built for
    this session, used if the session is new (a started one continues its saved plan as always). Raises
    :class:`~benchlab.annotations.options.OptionError` naming a field, or ``BenchlabError``.
    """
    return prepare_opening(task, session, plan, text, planned=lambda: planned).open()


@dataclass(frozen=True)
class Opening:
    """A session about to open, before its plan is built (the CPU-heavy part) and before its lock is taken: what a
    front end may show at once (a new session's consent needs no plan), and :attr:`open` to open it, which may run
    later in a worker while the participant reads the consent."""

    text: SessionText
    #: The session's files (``None`` for a task that opens its runner itself).
    files: SessionFiles | None
    #: Its plan was saved when this was made (:attr:`open` resumes it, or refuses it without ``resume``).
    started: bool
    open: Callable[[], SessionRunner]

    @property
    def consent_first(self) -> bool:
        """A new session that asks for consent: its consent can be shown before :attr:`open` has run."""
        return self.files is not None and not self.started and bool(self.text.consent)


def prepare_opening(task: Task, session: SessionOptions, plan: Options, text: SessionText | None = None, *,
                    planned: Callable[[], SessionPlan | None] | None = None) -> Opening:
    """What :func:`open_session` does, split in two: the options checked and the texts read now (cheap), the plan
    built and the runner opened by the returned :attr:`Opening.open`. ``planned`` is asked for the plan built
    ahead when the session opens (not now: it may wait for the plan being built)."""
    if session.simulate is not None and session.simulate not in task.simulated_policies:
        raise OptionError("simulate", f"must be one of {', '.join(task.simulated_policies)}",
                          label="simulated participant")
    if text is None:
        text = session_text(task, session, plan)
    checked = text
    if not isinstance(task, OpensSessions):
        # A task that opens its runner itself (a plug-in written against Task.prepare alone); the built-in tasks
        # and the choice kit declare session_parts, so their sessions share the steps above and below.
        return Opening(text, None, False, lambda: task.prepare(session, plan, checked))
    parts = task.session_parts(session, plan)

    def open_now() -> SessionRunner:
        ahead = planned() if planned is not None else None
        chosen = parts
        if ahead is not None and (ahead.task, ahead.participant, ahead.session) == (
                parts.task, parts.participant, parts.session):
            chosen = dataclasses.replace(parts, build=lambda _seed: ahead)
        return open_parts(chosen, seed=session.seed, resume=session.resume, text=checked, simulated=session.simulate)

    return Opening(text, parts.files, session_state(parts.files, parts.task_session).started, open_now)


def plan_ahead(task: Task, session: SessionOptions, plan: Options) -> SessionPlan | None:
    """The plan a new session of these options would get (its seed, or a fresh random one, recorded in it), built
    now without writing anything; ``None`` when the session was already started or the task opens its sessions
    itself. A server builds these before its participants arrive and hands each to :func:`open_session`."""
    if not isinstance(task, OpensSessions):
        return None
    parts = task.session_parts(session, plan)
    if session_state(parts.files, parts.task_session).started:
        return None
    return parts.build(session.seed if session.seed is not None else secrets.randbelow(2**31))


def open_session_from_values(task: Task, values: Mapping[str, Any] | None = None, **kw: Any) -> SessionRunner:
    """:func:`open_session` from values by field name (session and plan options together, checked)."""
    session, plan = session_options(task, {**(values or {}), **kw})
    return open_session(task, session, plan)


#: The earlier name of :func:`open_session_from_values` (tests and the fault harness use it).
prepare_session = open_session_from_values


def open_parts(parts: SessionParts, *, seed: int | None = None, resume: bool = False,
               text: SessionText | None = None, simulated: str | None = None) -> SessionRunner:
    """The shared steps of opening (see the module docstring) for the session ``parts`` describes."""
    check_id(parts.participant, "participant")
    check_id(parts.session, "session")
    state = session_state(parts.files, parts.task_session)
    plan = saved_plan(parts) if state.started and resume else new_plan(parts, state, seed)
    parts.task_session.check_plan(plan)
    text = text or SessionText()
    resuming = state.started and resume
    if resuming and text.returning is not None:
        text = text.returning
    runner = SessionRunner(plan, parts.task_session, parts.files, text, resume=resuming, simulated=simulated,
                           resume_note=_nothing_to_resume(parts) if resume and not resuming else None)
    return runner.open()


def saved_plan(parts: SessionParts) -> SessionPlan:
    """The session's saved plan; it must be this participant's session of this task."""
    plan = SessionPlan.load(parts.files.plan)
    if plan.task != parts.task or plan.participant != parts.participant or plan.session != parts.session:
        raise BenchlabError(f"this plan is for {plan.task} participant {plan.participant} session {plan.session}",
                            parts.files.plan)
    return plan


def new_plan(parts: SessionParts, state: SessionState, seed: int | None) -> SessionPlan:
    """A new plan (from ``seed``, or a fresh random one that the plan records). A started session is never silently
    replaced: its plan on disk is refused, naming the way out."""
    if state.started:
        raise OptionError("session", f"{parts.session} of participant {parts.participant}{parts.design} was already "
                          "started; add {resume} to continue it, or choose another {session}",
                          path=parts.files.plan, lead=False)
    return parts.build(seed if seed is not None else secrets.randbelow(2**31))


def _nothing_to_resume(parts: SessionParts) -> str:
    return (f"nothing was recorded yet for session {parts.session} of participant {parts.participant} (no saved "
            "plan: it stopped before its first trial); starting it from the beginning")
