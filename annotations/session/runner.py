"""The session state machine every human task runs on: consent -> instructions -> practice -> blocks with breaks
-> end.

The Textual screens and the simulated participants drive the same :class:`SessionRunner`, so a pilot run with
``--simulate`` exercises exactly the recording path a real participant does. The runner knows nothing about a
task's items; a :class:`TaskSession` supplies the options of an item, turns a response into the task's own results
record, and names the item a record belongs to.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from benchlab.annotations.options import OptionError
from benchlab.annotations.session.guard import FolderGuard, SessionFilesMoved
from benchlab.annotations.session.lock import SessionLock
from benchlab.annotations.session.plan import PlannedStep, SessionPlan
from benchlab.data.atomic import append_line
from benchlab.data.errors import BenchlabError
from benchlab.data.record_log import KeyedRecordLog

#: How to continue an unfinished session started from the command line.
CLI_RESUME_HINT = "Resume later with the same command plus --resume."


class Stage(StrEnum):
    CONSENT = "consent"
    INSTRUCTIONS = "instructions"
    TRIAL = "trial"
    BREAK = "break"
    END = "end"


class BreakKind(StrEnum):
    PRACTICE_DONE = "practice_done"
    BLOCK = "block"


class EndReason(StrEnum):
    COMPLETED = "completed"
    DECLINED = "declined"
    ABORTED = "aborted"


def wall_clock_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class ResponseTiming:
    """When a stimulus was shown and answered, all on the monotonic clock (seconds) plus wall-clock time.

    ``onset_mono`` is stamped after the screen refresh that shows the stimulus; ``response_mono`` is the input
    event's own time. ``requested_mono`` (the stimulus was asked for) and ``handler_mono`` (the app handled the key)
    bracket the two for timing audits.
    """

    onset_mono: float | None
    response_mono: float | None
    wall_clock: str = field(default_factory=wall_clock_now)
    requested_mono: float | None = None
    handler_mono: float | None = None
    input: str = "key"
    ignored_keys: int = 0
    onset_source: str = ""
    #: The experimenter menu interrupted this trial and it was shown again: ``onset_mono`` is the fresh onset (the
    #: menu time is not in the RT), ``first_onset_mono`` when the trial was first on screen.
    interrupted: bool = False
    first_onset_mono: float | None = None
    #: Web sessions: the page's own stamps (``performance.now()``, ms): stimulus painted, key pressed, their
    #: difference, and the page's clock offset to the server's monotonic clock (page - server) at the time.
    client_rt_ms: float | None = None
    client_onset_ms: float | None = None
    client_key_ms: float | None = None
    client_clock_offset_ms: float | None = None
    #: Native web page: how often the trial was shown again (reloads, reconnects), the time the tab was hidden and
    #: how often the window lost focus while the trial was on screen, and blocked copy/paste/context-menu attempts.
    interruptions: int | None = None
    hidden_ms: float | None = None
    blurs: int | None = None
    clipboard_attempts: int | None = None

    @property
    def client_fields(self) -> dict[str, float | int | None]:
        """The page-side timing and conduct (all ``None`` outside a web session)."""
        return {"client_rt_ms": self.client_rt_ms, "client_onset_ms": self.client_onset_ms,
                "client_key_ms": self.client_key_ms, "client_clock_offset_ms": self.client_clock_offset_ms,
                **({} if self.interruptions is None else {
                    "interruptions": self.interruptions, "hidden_ms": self.hidden_ms, "blurs": self.blurs,
                    "clipboard_attempts": self.clipboard_attempts})}

    @property
    def rt_ms(self) -> float | None:
        if self.onset_mono is None or self.response_mono is None:
            return None
        return round((self.response_mono - self.onset_mono) * 1000.0, 3)


@dataclass(frozen=True)
class Feedback:
    """What a practice trial may tell the participant afterwards."""

    correct: bool
    message: str


class TaskSession(Protocol):
    """A task's part of one session (``runner.task_session``): the options and gold answer of an item, practice
    feedback, the results record of a response and the log format it is written in. The task declaration (a
    :class:`~benchlab.annotations.task.Task`) makes one per session, over the data that session loaded."""

    name: str
    @property
    def response_log(self) -> type[KeyedRecordLog]:
        """How this task's responses are written, opened as ``response_log(path, item_id_of)``: the runner appends
        to it and reads it back on resume (a JSONL ``ResponseLog``, or a task's own results CSV: see a benchmark's
        folder)."""
        ...

    def options(self, item_id: str) -> tuple[str, ...]: ...

    def make_record(
        self, plan: SessionPlan, step: PlannedStep, response: str, timing: ResponseTiming, *, skipped: bool,
        simulated: str | None,
    ) -> dict[str, Any]: ...

    def item_id_of(self, record: dict[str, Any]) -> str: ...

    def feedback(self, item_id: str, response: str) -> Feedback | None: ...

    def gold(self, item_id: str) -> str | None:
        """The correct answer, for simulated participants and practice feedback only (never displayed)."""
        ...


@dataclass(frozen=True)
class SessionFiles:
    """Where one participant's session writes: scored results, practice log, saved plan, lock."""

    results: Path
    practice: Path
    plan: Path
    lock: Path

    @property
    def events(self) -> Path:
        """The session's event log beside its plan (start, consent, breaks with their durations, skips, end)."""
        name = self.plan.name.removesuffix(".plan.json").removesuffix(".json")
        return self.plan.with_name(f"{name}.events.jsonl")

    @property
    def root(self) -> Path:
        """The session's output folder: the folder all its files are under (``--out``)."""
        return Path(os.path.commonpath([p.parent for p in (self.results, self.practice, self.plan, self.lock)]))

    @property
    def all(self) -> tuple[Path, ...]:
        return (self.results, self.practice, self.plan, self.events, self.lock)


@dataclass
class SessionText:
    """Participant-facing texts (markdown). ``consent=None`` skips consent; empty ``instructions`` skips them."""

    consent: str | None = None
    instructions: list[str] = field(default_factory=list)
    practice_feedback: bool = True
    #: The texts of this session when it is resumed (``None``: these). A web session greets a returning participant
    #: with a short "welcome back" page instead of the instructions, and never asks for consent again.
    returning: SessionText | None = None


class SessionRunner:
    """Drives one participant through a saved plan, recording every response durably before moving on.

    Made by :func:`~benchlab.annotations.session.opening.open_session` (which decides ``resume`` from the session's
    files). ``task_session`` is the task's part of this session (a :class:`TaskSession`, e.g. the items of this
    data set); ``task`` is its earlier name, kept for code written against it. The task *declaration* is
    not held here: front ends pass it beside the runner.
    """

    def __init__(
        self, plan: SessionPlan, task_session: TaskSession, files: SessionFiles, text: SessionText | None = None, *,
        resume: bool = False, simulated: str | None = None, resume_note: str | None = None,
    ) -> None:
        self.plan = plan
        self.task_session = task_session
        self.files = files
        self.text = text or SessionText()
        #: Set when a resume was asked for but no plan was saved (the session stopped before its first trial): it
        #: starts from its first trial, and says so.
        self.resume_note = resume_note
        self.resume = resume
        self.simulated = simulated
        self.results_log = task_session.response_log(files.results, task_session.item_id_of)
        self.practice_log = task_session.response_log(files.practice, task_session.item_id_of)
        self._lock = SessionLock(files.lock)
        self._guard = FolderGuard(files.root, files.all)
        self._started = False  # the plan is saved: events are written from now on
        self._steps = plan.steps()
        self._pending: list[PlannedStep] = []
        self._pos = 0
        self.stage: Stage = Stage.END
        self.break_kind: BreakKind | None = None
        self.end_reason: EndReason | None = None
        self.recorded_this_run = 0  # scored trials answered (or skipped) in this run
        self.practice_this_run = 0
        #: The files opening this session created (plan, event log), for :meth:`discard`.
        self._created: list[Path] | None = None

    @property
    def task(self) -> TaskSession:
        """The earlier name of :attr:`task_session` (it is the task's part of this session, not the task)."""
        return self.task_session

    # -- lifecycle -------------------------------------------------------------------------------------------

    def open(self) -> SessionRunner:
        """Lock the participant's files, read back what is recorded and decide where to start."""
        self._lock.acquire()
        try:
            self._guard.arm()
            if self._lock.fd is not None:
                st = os.fstat(self._lock.fd)
                self._guard.pin(self.files.lock, (st.st_dev, st.st_ino))
            self._started = self.files.plan.exists()
            main_done = self.results_log.answered()
            practice_done = self.practice_log.answered()
            planned_main = set(self.plan.main_items)
            if not self.resume and (main_done & planned_main or practice_done & set(self.plan.practice)):
                # Only a new plan gets here (a saved one without resume is refused before): its items are in the
                # participant's files from another session, so continuing is not the way out, another file is.
                raise OptionError("participant", "has items of this new plan already recorded in this file (by "
                                  "another session); use another {participant} id or {out} folder",
                                  label="this participant", path=self.files.results, lead=False)
            started_main = bool(main_done & planned_main)
            self._pending = [
                s for s in self._steps
                if (s.practice and not started_main and s.item_id not in practice_done)
                or (not s.practice and s.item_id not in main_done)
            ]
            if self.text.consent and not self._started:
                self.stage = Stage.CONSENT
            else:
                self._start()
        except BaseException:
            # Nothing may hold the lock (or leave its file behind) when the session could not start: a full disk
            # at the plan's first write, a refused resume, ...
            self._lock.release()
            raise
        return self

    def _start(self) -> None:
        """The session starts: save the plan (once), then instructions or the first trial."""
        if not self._started:
            self._created = [p for p in (self.files.plan, self.files.events) if not p.exists()]
            self._write(self.files.plan, lambda: self.plan.save(self.files.plan))
            self._started = True
        self._event("resumed" if self.resume else "started", consent=self.text.consent is not None,
                    recorded=self.recorded_main, planned=self.n_main, simulated=self.simulated)
        if self.text.instructions and self._pos < len(self._pending):
            self.stage = Stage.INSTRUCTIONS
        else:
            self._to_current()

    def _to_current(self) -> None:
        if self._pos >= len(self._pending):
            self._end(EndReason.COMPLETED)
        else:
            self.stage = Stage.TRIAL

    def _end(self, reason: EndReason) -> None:
        self.stage = Stage.END
        self.end_reason = reason
        if reason is not EndReason.DECLINED and self._lock.held and self._guard.tripped is None:
            self._event(reason.value, recorded=self.recorded_main, planned=self.n_main)
        self.close()

    def close(self) -> None:
        """Release the lock (safe to call more than once); the lock file is gone then, so the guard stops
        watching it (a web session still logs how it ended)."""
        self._lock.release()
        self._guard.forget(self.files.lock)

    def discard(self) -> None:
        """The experimenter went back before handing over (the launcher's preview): undo what opening wrote, so the
        same participant and session can be started again as if nothing happened. A session with answers on disk
        is only closed, never touched."""
        if self._created is not None and not (self.recorded_this_run or self.practice_this_run):
            for path in self._created:
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)
        self.close()

    def _event(self, event: str, **fields: Any) -> None:
        """Append one event (fsynced) once the session has started; before consent nothing is written."""
        if self._started:
            self.log_event(event, **fields)

    def log_event(self, event: str, **fields: Any) -> None:
        """Append one event (fsynced), even before consent: a web session logs its connections from the start."""
        self._log(event, fields, sync=True)

    def _log(self, event: str, fields: dict[str, Any], *, sync: bool) -> None:
        record = {"event": event, "mono": time.monotonic(), "timestamp": wall_clock_now(),
                  "participant": self.plan.participant, "session": self.plan.session, **fields}
        line = json.dumps(record, ensure_ascii=False)
        self._write(self.files.events, lambda: append_line(self.files.events, line, sync=sync))

    def _write(self, target: Path, write: Callable[[], None]) -> None:
        """Every write of the session goes through here: the folder and files must still be the session's own
        (see :mod:`benchlab.annotations.session.guard`), before and after the write."""
        self._guard.check(target)
        write()
        self._guard.wrote(target)

    @property
    def files_moved(self) -> SessionFilesMoved | None:
        """Why the session stopped, if its folder or a file of it was moved or deleted mid-session."""
        return self._guard.tripped

    # -- transitions ----------------------------------------------------------------------------------------

    def _expect(self, *stages: Stage) -> None:
        if self.stage not in stages:
            raise RuntimeError(f"session is at {self.stage.value}, not {'/'.join(s.value for s in stages)}")

    def accept_consent(self) -> None:
        self._expect(Stage.CONSENT)
        self._start()

    def decline_consent(self) -> None:
        """End with nothing recorded: no plan, no responses, no lock file left behind."""
        self._expect(Stage.CONSENT)
        self._end(EndReason.DECLINED)
        for folder in {self.files.lock.parent}:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if empty

    def finish_instructions(self) -> None:
        self._expect(Stage.INSTRUCTIONS)
        self._event("instructions_read")
        self._to_current()

    def continue_after_break(self) -> None:
        self._expect(Stage.BREAK)
        self._event("break_end", kind=self.break_kind.value if self.break_kind else None)
        self.break_kind = None
        self._to_current()

    def abort(self) -> None:
        """The experimenter ends the session early; everything answered so far is on disk."""
        if self.stage is not Stage.END:
            self._end(EndReason.ABORTED)

    # -- trials ---------------------------------------------------------------------------------------------

    @property
    def current(self) -> PlannedStep:
        self._expect(Stage.TRIAL)
        return self._pending[self._pos]

    def options(self) -> tuple[str, ...]:
        return self.task_session.options(self.current.item_id)

    def respond(self, response: str, timing: ResponseTiming) -> Feedback | None:
        """Record one answer (fsynced) and move on; returns practice feedback when there is any to show."""
        step = self.current
        options = self.task_session.options(step.item_id)
        if response not in options:
            raise ValueError(f"{response!r} is not an option of this trial ({', '.join(options)})")
        return self._record(step, response, timing, skipped=False)

    def skip(self, timing: ResponseTiming) -> None:
        """Record "no valid answer" ("" in the response formats) for the current trial, on the experimenter's word."""
        self._event("trial_skipped", item_id=self.current.item_id, practice=self.current.practice)
        self._record(self.current, "", timing, skipped=True)

    def _record(self, step: PlannedStep, response: str, timing: ResponseTiming, *, skipped: bool) -> Feedback | None:
        record = self.task_session.make_record(self.plan, step, response, timing, skipped=skipped,
                                               simulated=self.simulated)
        log = self.practice_log if step.practice else self.results_log
        self._write(log.path, lambda: log.append(record))
        # One fsync per answer: the built-in records carry the page's timing (client_* fields/columns) themselves,
        # so the ``client_timing`` event older versions always wrote beside them (a second fsync on the answer's
        # path) is written only for a plug-in record with no room for it.
        client = timing.client_fields
        if client.get("client_rt_ms") is not None and record.get("client_rt_ms") != client["client_rt_ms"]:
            self._event("client_timing", item_id=step.item_id, practice=step.practice, trial_index=step.index,
                        rt_ms=timing.rt_ms, **client)
        if step.practice:
            self.practice_this_run += 1
        else:
            self.recorded_this_run += 1
        feedback = None
        if step.practice and not skipped:
            checked = self.task_session.feedback(step.item_id, response)
            # every session (terminal or web) logs practice correctness: the Sessions screen's practice accuracy,
            # also for a task whose practice records carry none (WorldSense). Not fsynced: the answer's one fsync is
            # its record; this display figure survives a killed process, and the session's next synced event (at
            # the latest the break after practice) makes it durable.
            if self._started:
                self._log("practice_answered", {"item_id": step.item_id,
                                                 "correct": checked.correct if checked is not None else None},
                          sync=False)
            feedback = checked if self.text.practice_feedback else None
        self._advance(step)
        return feedback

    def _advance(self, done: PlannedStep) -> None:
        self._pos += 1
        if self._pos >= len(self._pending):
            self._end(EndReason.COMPLETED)
            return
        nxt = self._pending[self._pos]
        if done.practice and not nxt.practice:
            self.stage, self.break_kind = Stage.BREAK, BreakKind.PRACTICE_DONE
        elif not done.practice and nxt.block != done.block:
            self.stage, self.break_kind = Stage.BREAK, BreakKind.BLOCK
        else:
            self.stage = Stage.TRIAL
        if self.stage is Stage.BREAK:
            self._event("break_start", kind=self.break_kind.value if self.break_kind else None, after_block=done.block)

    # -- progress -------------------------------------------------------------------------------------------

    @property
    def n_blocks(self) -> int:
        return len(self.plan.blocks)

    @property
    def n_main(self) -> int:
        return len(self.plan.main_items)

    @property
    def n_practice(self) -> int:
        return len(self.plan.practice)

    @property
    def recorded_main(self) -> int:
        return len(self.results_log.answered() & set(self.plan.main_items))

    @property
    def recorded_practice(self) -> int:
        return len(self.practice_log.answered() & set(self.plan.practice))

    def on_disk(self, path: Path, items: list[str]) -> int:
        """How many of ``items`` the file at ``path`` holds now (read again: the summary never counts what was
        only attempted, or what went to a folder that was moved away)."""
        try:
            records = self.task_session.response_log(path, self.task_session.item_id_of).peek()
        except BenchlabError:
            return 0
        wanted = set(items)
        return len({self.task_session.item_id_of(r) for r in records} & wanted)

    def remaining_steps(self) -> list[PlannedStep]:
        """The trials still to present in this run (practice included), in order."""
        return self._pending[self._pos:]

    def position(self) -> str:
        """Where the session stands, in the experimenter's words (the menu's status line): a break after practice
        is "end of practice", not a block break."""
        if self.stage is Stage.TRIAL:
            step = self.current
            if step.practice:
                return f"practice trial {step.index + 1} of {self.n_practice}"
            return f"question {self.recorded_main + 1} of {self.n_main} (block {step.block} of {self.n_blocks})"
        if self.stage is Stage.BREAK:
            if self.break_kind is BreakKind.PRACTICE_DONE:
                return "end of practice (before the first question)"
            return f"break after block {self.next_block - 1} of {self.n_blocks}"
        return self.stage.value

    @property
    def next_block(self) -> int:
        """The block the next main trial belongs to (for break screens)."""
        for step in self._pending[self._pos:]:
            if not step.practice:
                return step.block
        return self.n_blocks

    def summary(self, resume_hint: str = CLI_RESUME_HINT) -> str:
        """What the experimenter needs at the end: where the results are and how many trials were recorded.

        ``resume_hint`` says how to continue an unfinished session in the words of the front end that ran it
        (a launcher user has no command to repeat)."""
        reason = self.end_reason.value if self.end_reason else "open"
        if self.end_reason is EndReason.DECLINED:
            return "Consent declined: nothing was recorded."
        main_now = self.on_disk(self.files.results, self.plan.main_items)
        practice_now = self.on_disk(self.files.practice, self.plan.practice)
        head = (f"Session {reason}: {main_now} of {self.n_main} scored trials recorded"
                f" ({min(self.recorded_this_run, main_now)} in this run)")
        if self.n_practice:
            head += (f"; practice trials: {practice_now} of {self.n_practice} recorded"
                     f" ({min(self.practice_this_run, practice_now)} in this run)")
        lines = [head + "."]
        if self.files_moved is not None:
            lines.append(f"Stopped: {self.files_moved}")
        written = [(label, path) for label, path in (("Results: ", self.files.results),
                                                     ("Practice:", self.files.practice)) if path.exists()]
        if not written:
            lines.append("Nothing is recorded here." if self.files_moved is not None
                         else "Nothing was recorded: no trial was answered.")
        lines += [f"{label} {path}" for label, path in written]
        if self.files.plan.exists():
            lines.append(f"Plan:     {self.files.plan}")
        if self.end_reason is EndReason.ABORTED and main_now < self.n_main:
            lines.append(resume_hint)
        return "\n".join(lines)
