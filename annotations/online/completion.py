"""How an online session ended, and the code or redirect it gives: decided only from the files on disk.

The end record must be on disk first (the runner appends it fsynced): ``completed`` for a finished session,
``declined`` for a declined consent; ``withdrew`` / ``screened_out`` events written by the page's controls; a
session past the study's ``time_limit`` gets a ``timed_out`` event written (fsynced) here. Only then is the
completion decided, appended (fsynced) to the session's events log as a ``completion`` event holding the code
given, and to the study's private completions log, and returned to the page. A participant who reloads the page
gets the same completion again; a session still running gets none (jsPsych #2050: never redirect before the data
are safe).

Two outcomes are logged without ending the person's part in the usual way:

- ``screened_out`` (the device check refused a phone before consent): logged with the code shown, but
  *provisional*: the person may come back on a computer and take part, so :func:`given` skips it;
- ``withdrew``: the withdrawal deletes every record naming the participant id, so its completion line holds no
  participant id and no platform id, only ``person_key`` (the keyed hash of the platform id that the assignments log
  carried, :func:`~benchlab.annotations.online.private.person_key`), the code shown and the date. ``study reconcile``
  finds a submission's withdrawal through it, and a join by the same platform id is told they already took part.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from benchlab.annotations.online.attention import AttentionScore, score
from benchlab.annotations.online.private import (
    COMPLETIONS_FILE,
    KEY_FILE,
    append_record,
    locked,
    private_dir,
    read_jsonl,
)
from benchlab.annotations.online.session_files import OnDisk, on_disk
from benchlab.data.atomic import append_line

if TYPE_CHECKING:  # the study module imports the online package
    from benchlab.annotations.study import Study

#: Events a page may write to end a session early, and the outcome each gives.
ENDING_EVENTS = {"withdrew": "withdrew", "withdrawn": "withdrew", "screened_out": "screened_out",
                 "timed_out": "timed_out"}
#: Logged outcomes that do not end the person's part (see the module docstring).
PROVISIONAL = frozenset({"screened_out"})


@dataclass(frozen=True)
class Given:
    """The completion a participant was given (stored; shown again on a reload)."""

    participant: str
    outcome: str
    code: str | None
    redirect: str | None
    attention: str


def outcome_on_disk(study: Study, disk: OnDisk, now: datetime | None = None) -> str | None:
    """The outcome the files show (``None``: the session has not ended)."""
    names = disk.names()
    for name in reversed(names):
        if name in ENDING_EVENTS:
            return ENDING_EVENTS[name]
    if "completed" in names:
        online = study.spec.online
        if online is not None and score(online.attention, disk).failed_rule:
            return "failed_attention"
        return "completed"
    if names and names[-1] == "declined" and disk.plan is None:
        return "declined"
    return None


def past_time_limit(study: Study, disk: OnDisk, now: datetime | None = None) -> bool:
    online = study.spec.online
    limit = online.time_limit_s if online is not None else None
    started = disk.started_at()
    if limit is None or started is None:
        return False
    return ((now or datetime.now(UTC)) - started).total_seconds() > limit


def given(study: Study, participant: str) -> Given | None:
    """The completion already given to ``participant`` (the first one stored)."""
    for record in read_jsonl(private_dir(study.folder) / COMPLETIONS_FILE):
        if record.get("participant") == participant and record.get("outcome") not in PROVISIONAL:
            return Given(participant, str(record["outcome"]), record.get("code"), record.get("redirect"),
                         str(record.get("attention", "")))
    return None


def complete(study: Study, participant: str, now: datetime | None = None) -> Given | None:
    """The participant's completion, decided once from the files (``None`` while the session has not ended)."""
    online = study.spec.online
    if online is None:
        return None
    with locked(study.folder):
        earlier = given(study, participant)
        if earlier is not None:
            return earlier
        disk = on_disk(study.out, participant)
        outcome = outcome_on_disk(study, disk)
        if outcome is None and past_time_limit(study, disk, now) and disk.events_path is not None:
            _event(disk, participant, "timed_out", limit_s=online.time_limit_s)
            disk = on_disk(study.out, participant)
            outcome = outcome_on_disk(study, disk)
        if outcome is None:
            return None
        spec = online.completion.get(outcome)
        code = spec.code if spec is not None else None
        redirect = spec.redirect.replace("{code}", code or "") if spec is not None and spec.redirect else None
        attention: AttentionScore = score(online.attention, disk)
        if disk.events_path is not None and disk.plan is not None:
            # the end record stores the code given, before the page shows it (a declined consent has no session
            # to add to: its events log ends with "declined", which the Sessions screen reads; the private
            # completions log below holds its code)
            _event(disk, participant, "completion", outcome=outcome, code=code, redirect=redirect,
                   attention_failed=attention.failed, attention_answered=attention.answered)
        append_record(study.folder, COMPLETIONS_FILE, {"participant": participant, "outcome": outcome, "code": code,
                                                       "redirect": redirect, "attention": attention.text(),
                                                       "timestamp": datetime.now(UTC).isoformat()})
        return Given(participant, outcome, code, redirect, attention.text())


def _shown(study: Study, outcome: str) -> tuple[str | None, str | None]:
    """The code and redirect the study file gives ``outcome`` (a redirect that needs the raw ``{id}`` is not
    stored: the page fills it in from the key file)."""
    online = study.spec.online
    spec = online.completion.get(outcome) if online is not None else None
    if spec is None:
        return None, None
    redirect = spec.redirect.replace("{code}", spec.code or "") if spec.redirect else None
    return spec.code, None if redirect is not None and "{id}" in redirect else redirect


def log_screened_out(study: Study, participant: str) -> None:
    """Log the ``screened_out`` code a crowd joiner was shown (provisional: see the module docstring)."""
    code, redirect = _shown(study, "screened_out")
    append_record(study.folder, COMPLETIONS_FILE, {"participant": participant, "outcome": "screened_out",
                                                   "code": code, "redirect": redirect, "attention": "",
                                                   "timestamp": datetime.now(UTC).isoformat()})


def screened_out(study: Study, participant: str) -> bool:
    """Whether the device check refused ``participant`` (and they never took part after)."""
    return any(r.get("participant") == participant and r.get("outcome") == "screened_out"
               for r in read_jsonl(private_dir(study.folder) / COMPLETIONS_FILE))


def log_withdrawal(study: Study, person: str) -> None:
    """Log the ``withdrew`` code for the person behind ``person`` (a key-file ``person_key``), with no participant
    id or platform id and only the date (called by the withdrawal, after it removed the person's records)."""
    code, redirect = _shown(study, "withdrew")
    append_record(study.folder, COMPLETIONS_FILE, {"outcome": "withdrew", "person_key": person, "code": code,
                                                   "redirect": redirect,
                                                   "date": datetime.now(UTC).date().isoformat()})


def withdrawal_of(study: Study, person: str) -> dict[str, Any] | None:
    """The withdrawal line of the person behind ``person`` (a ``person_key``), if they withdrew."""
    return next((r for r in read_jsonl(private_dir(study.folder) / COMPLETIONS_FILE)
                 if r.get("outcome") == "withdrew" and r.get("person_key") == person), None)


def redirect_for(study: Study, done: Given) -> str | None:
    """The redirect the page follows: ``{id}`` (SONA's survey code, an MTurk worker id) filled in from the key file
    at page time only, so no stored record ever holds the raw id."""
    if done.redirect is None or "{id}" not in done.redirect:
        return done.redirect
    person = next((str(r.get("person")) for r in read_jsonl(private_dir(study.folder) / KEY_FILE)
                   if r.get("participant") == done.participant), "")
    return done.redirect.replace("{id}", quote(person, safe=""))


def _event(disk: OnDisk, participant: str, event: str, **fields: object) -> None:
    assert disk.events_path is not None
    record = {"event": event, "timestamp": datetime.now(UTC).isoformat(timespec="microseconds"),
              "participant": participant, "session": disk.plan.session if disk.plan else "1", **fields}
    append_line(disk.events_path, json.dumps(record, ensure_ascii=False))
