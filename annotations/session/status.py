"""Where every participant of a results folder is: not started, consent, practice, trial k of n, break, disconnected
(resumable), finished or declined; with the last activity and the practice accuracy so far.

Read from the folder's own files only (saved plans, results and practice logs, events logs, lock files), never
from a running process, so the same reader serves ``benchlab serve``'s live table, the launcher's Sessions screen,
and terminal sessions of several lab seats writing to one shared folder. Nothing is written, and a file being
appended to meanwhile (a torn last line) is read up to its last complete record.

What the files can tell, and so what each state means:

- a saved plan is a started session; its ``completed`` event (or every scored trial recorded) makes it
  ``finished``; ``disconnected``/``aborted`` as the last event, or no lock file (no app holds the session),
  makes it ``disconnected`` (it resumes at its next unanswered trial), a lock file whose owner process is dead
  (killed mid-session) ``crashed`` (resumable too); else the last events and the records say
  ``break``, ``practice`` or ``trial`` (``trial`` is then the 1-based trial being answered, elsewhere the number
  of scored trials recorded);
- before consent nothing but the lock file (and, for a web session, its ``connected`` event) exists: ``consent``;
  a web session's declined consent leaves only its ``declined`` event: ``declined`` (a terminal session's decline
  leaves nothing, as before, so it reads as ``not started``);
- ``practice_accuracy``: from the practice records' correctness where the task's logs tell it, else from the
  ``practice_answered`` events every session logs (WorldSense's practice records carry no correctness);
- ``arm``: from the study's ``assignments.jsonl`` in the folder or the one above it.

Where a task's session writes and how its logs read is the task's own (:class:`~benchlab.annotations.task.
ShowsSessions`, looked up by the plan's ``task`` in the registry). A task the registry does not hold (a plug-in
no longer installed, or one loaded by hand) is read as the plug-in kit writes, when its plan is where the kit puts
it; any other shows the progress its events log tells.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchlab.annotations.choice.layout import CHOICE_LAYOUT
from benchlab.annotations.registry import registry
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionFiles
from benchlab.annotations.task import LoggedAnswer, SessionLayout, ShowsSessions
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import complete_events, complete_objects

STATES = ("not started", "consent", "practice", "trial", "break", "disconnected", "crashed", "finished", "declined")
#: States of a session that an app holds right now.
LIVE = ("consent", "practice", "trial", "break")


@dataclass(frozen=True)
class SessionStatus:
    """One participant's session as its files show it (``state`` is one of :data:`STATES`)."""

    participant: str
    task: str
    session: str
    condition: str
    state: str
    trial: int | None
    n_trials: int | None
    last_activity: datetime | None
    practice_accuracy: float | None
    arm: str = ""  # the study arm the session was assigned (from the study's assignments log), "" outside a study
    #: "phone" or "desktop" from a web session's browser (its events' user agent); "" for a terminal session.
    device: str = ""


#: How a session of a task the registry does not hold is read: as the plug-in kit writes.
FALLBACK: SessionLayout = CHOICE_LAYOUT


def _layouts() -> dict[str, SessionLayout]:
    """The Sessions part of every registered task that has one, by task name, in registry order."""
    return {name: task.session_layout for name, task in registry().benchmarks.items()
            if isinstance(task, ShowsSessions)}


def _lock_patterns() -> list[str]:
    """Lock-file names a participant's session may hold (every task's, then the fallback), each once."""
    return list(dict.fromkeys([*(layout.lock_pattern for layout in _layouts().values()), FALLBACK.lock_pattern]))


def _records(layout: SessionLayout | None, path: Path | None, plan: SessionPlan) -> list[LoggedAnswer]:
    """The complete records of a results/practice log; ``[]`` when absent or unreadable."""
    if layout is None or path is None or not path.exists():
        return []
    try:
        return layout.answers(path, plan)
    except (BenchlabError, OSError):
        return []




def _mtime(*paths: Path | None) -> datetime | None:
    times = []
    for path in paths:
        if path is None:
            continue
        try:
            times.append(path.stat().st_mtime)
        except OSError:
            continue
    return datetime.fromtimestamp(max(times), UTC) if times else None


def _accuracy(values: Iterable[Any]) -> float | None:
    marks = [v in (True, "True", "true", 1, "1") for v in values if v not in (None, "")]
    return sum(marks) / len(marks) if marks else None


def _holder_dead(lock: Path) -> bool:
    """The lock file names a process that no longer runs: its session was killed (``kill -9``, a power cut), as
    opposed to closed (which removes the lock). Read without taking the lock: a reading must never make a
    starting session fail."""
    try:
        pid = int(lock.read_text(encoding="ascii").strip() or 0)
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def _lock_of(folder: Path, participant: str) -> Path | None:
    for name in _lock_patterns():
        path = folder / name.format(p=participant)
        if path.exists():
            return path
    return None


#: A reader's memory between passes (``benchlab serve`` reads every session every 2 s): per saved plan, the files
#: its status was read from, their stamps then, and the status. A session none of whose files changed (and whose
#: lock holder is as alive as it was) is not read again.
StatusCache = dict[Path, tuple[tuple[Path | None, ...], tuple[Any, ...], "SessionStatus"]]


def _stamp(paths: tuple[Path | None, ...]) -> tuple[Any, ...]:
    """What changes when a session's files change: size, mtime and inode of each; whether the lock's owner died."""
    stamp: list[Any] = []
    for path in paths:
        try:
            st = path.stat() if path is not None else None
        except OSError:
            st = None
        stamp.append(None if st is None else (st.st_mtime_ns, st.st_size, st.st_ino))
    lock = paths[-1]
    stamp.append(lock is not None and stamp[-1] is not None and _holder_dead(lock))
    return tuple(stamp)


def _started(folder: Path, plan_path: Path, cache: StatusCache | None = None) -> SessionStatus | None:
    hit = cache.get(plan_path) if cache is not None else None
    if hit is not None and _stamp(hit[0]) == hit[1]:
        return hit[2]
    try:
        plan = SessionPlan.load(plan_path)
    except BenchlabError:
        return None
    layout, files = _layout_of(folder.parent, plan, plan_path)
    events_path = plan_path.with_name(plan_path.name.removesuffix(".plan.json") + ".events.jsonl")
    watched = (plan_path, events_path, files.results, files.practice, files.lock) if files else None
    before = _stamp(watched) if watched is not None else None  # stamped before reading: a later write is seen
    events = complete_events(events_path)
    names = [e["event"] for e in events]
    main, practice = set(plan.main_items), set(plan.practice)
    results = [r for r in _records(layout, files.results if files else None, plan) if r.item in main]
    practiced = [r for r in _records(layout, files.practice if files else None, plan) if r.item in practice]
    n = len(plan.main_items)
    recorded = len(results) if files else sum(1 for e in events if e["event"] == "client_timing"
                                             and not e.get("practice"))
    lock = files.lock if files else _lock_of(folder, plan.participant)
    held = lock is not None and lock.exists()
    last = next((name for name in reversed(names) if name not in ("client_timing", "practice_answered",
                                                                   "connected")), "")
    if "completed" in names or recorded >= n:
        state = "finished"
    elif held and lock is not None and _holder_dead(lock):
        state = "crashed"  # the lock's owner died mid-session: resumable, and the experimenter should know
    elif last in ("disconnected", "aborted") or not held:
        state = "disconnected"
    elif last == "break_start":
        state = "break"
    elif recorded == 0 and len(practiced) < len(practice):
        state = "practice"
    else:
        state = "trial"
    if any(r.correct is not None for r in practiced):
        accuracy = _accuracy(r.correct for r in practiced)
    else:
        accuracy = _accuracy(e.get("correct") for e in events if e["event"] == "practice_answered")
    status = SessionStatus(
        participant=plan.participant, task=plan.task, session=plan.session,
        condition=str(plan.config.get("condition", "")), state=state,
        trial=min(recorded + 1, n) if state == "trial" else recorded, n_trials=n,
        last_activity=_mtime(plan_path, events_path, files.results if files else None,
                             files.practice if files else None),
        practice_accuracy=accuracy, device=device_of(events),
    )
    if cache is not None and watched is not None and before is not None:
        cache[plan_path] = (watched, before, status)
    return status


def device_of(events: list[dict[str, Any]]) -> str:
    """The device of a web session: from the native page's own device report (``page_device`` /
    ``page_connected`` events: a finger as the only pointer is a phone, or a tablet from 600 px on its short
    side), else from the last user agent its events name (stored only when ``BENCHLAB_RECORD_USER_AGENT=1``)."""
    reports = [e for e in events if e.get("event") in ("page_device", "page_connected") and "fine" in e]
    if reports:
        last = reports[-1]
        if last.get("fine") or not last.get("coarse"):
            return "desktop"
        short = min(_px(last.get("screen_w")), _px(last.get("screen_h")))
        return "tablet" if short >= 600 else "phone"
    agents = [str(e["user_agent"]) for e in events if e.get("user_agent")]
    if not agents:
        return ""
    return "phone" if "Mobile" in agents[-1] or "Android" in agents[-1] else "desktop"


def _px(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _layout_of(base: Path, plan: SessionPlan, plan_path: Path) -> tuple[SessionLayout | None, SessionFiles | None]:
    """The task's own layout and the session's files; else the kit's (when the plan is where that puts it)."""
    layout = _layouts().get(plan.task)
    if layout is not None:
        return layout, layout.files(base, plan)
    files = FALLBACK.files(base, plan)
    return (FALLBACK, files) if files.plan == plan_path else (None, None)


def _before_plan(folder: Path, events_path: Path) -> SessionStatus | None:
    """A web session whose consent was shown (or declined): events but no plan."""
    events = complete_events(events_path)
    if not events:
        return None
    participant = str(events[-1].get("participant", ""))
    task = next((str(e["task"]) for e in events if e.get("task")), "")
    last = [e["event"] for e in events][-1]
    if last == "declined":
        state = "declined"
    elif last != "disconnected" and (lock := _lock_of(folder, participant)) is not None:
        state = "crashed" if _holder_dead(lock) else "consent"
    else:
        state = "disconnected"
    return SessionStatus(participant=participant, task=task, session=str(events[-1].get("session", "")),
                         condition="", state=state, trial=None, n_trials=None, last_activity=_mtime(events_path),
                         practice_accuracy=None)


def _session_folders(out: Path) -> list[Path]:
    """``out/sessions`` and the sessions folders one or two levels down (``benchlab-results/<task>/<set>``)."""
    found = [out / "sessions", *out.glob("*/sessions"), *out.glob("*/*/sessions")]
    return sorted({p for p in found if p.is_dir()})


def read_statuses(out: Path, expected: Iterable[str] = (), cache: StatusCache | None = None) -> list[SessionStatus]:
    """Every session under ``out`` (by participant, then task and session), plus a ``not started`` row for each id
    of ``expected`` that has none. ``cache`` (kept by a caller that reads again and again): sessions whose files
    did not change since the last pass are not read again."""
    rows: list[SessionStatus] = []
    for folder in _session_folders(Path(out)):
        planned = set()
        for plan_path in sorted(folder.glob("*.plan.json")):
            planned.add(plan_path.name.removesuffix(".plan.json"))
            status = _started(folder, plan_path, cache)
            if status is not None:
                rows.append(status)
        for events_path in sorted(folder.glob("*.events.jsonl")):
            if events_path.name.removesuffix(".events.jsonl") not in planned:
                status = _before_plan(folder, events_path)
                if status is not None:
                    rows.append(status)
        # A terminal session at its consent: only the lock exists (a held session's lock is already accounted for).
        busy = {r.participant for r in rows if r.state in (*LIVE, "disconnected", "crashed")}
        for lock in sorted(folder.glob(".*.lock")):
            participant = _participant_of_lock(lock.name)
            if participant and participant not in busy:
                rows.append(SessionStatus(participant=participant, task="", session="", condition="",
                                          state="crashed" if _holder_dead(lock) else "consent", trial=None,
                                          n_trials=None, last_activity=_mtime(lock), practice_accuracy=None))
    arms = _arms(Path(out))
    rows = [replace(r, arm=arms.get((r.participant, r.session), "")) if arms else r for r in rows]
    known = {r.participant for r in rows}
    rows += [SessionStatus(participant=p, task="", session="", condition="", state="not started", trial=None,
                           n_trials=None, last_activity=None, practice_accuracy=None)
             for p in dict.fromkeys(expected) if p not in known]
    return sorted(rows, key=lambda r: (r.participant, r.task, r.session))


def _arms(out: Path) -> dict[tuple[str, str], str]:
    """(participant, session) -> arm, from a study's ``assignments.jsonl`` in ``out`` or the folder above it (a
    study's sessions write into its own folder, or into a folder inside it)."""
    arms: dict[tuple[str, str], str] = {}
    for folder in (out, out.parent):
        for record in complete_objects(folder / "assignments.jsonl"):
            if {"participant", "session", "arm"} <= record.keys():
                arms.setdefault((str(record["participant"]), str(record["session"])), str(record["arm"]))
    return arms




def _participant_of_lock(name: str) -> str:
    """The participant whose lock ``name`` is, by the most specific task's lock pattern that fits."""
    splits = [pattern.split("{p}", 1) for pattern in _lock_patterns() if "{p}" in pattern]
    for prefix, suffix in sorted(splits, key=lambda ps: -len(ps[0]) - len(ps[1])):
        if name.startswith(prefix) and name.endswith(suffix) and len(name) >= len(prefix) + len(suffix):
            return name[len(prefix):len(name) - len(suffix)]
    return name.removeprefix(".").removesuffix(".lock")
