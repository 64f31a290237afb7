"""A join through the study link: one session per platform id, decided under the study's lock.

The first visit of a person (when recruitment is open and a place is free) gets a pseudonymous id, an arm by the
study's rule, a recorded assignment, a private session token, and one line in the key file. A later visit of the
same person resumes that session (flagged when its place had been freed as abandoned; refused as full when that
place has been taken meanwhile and the quota has none left), or, once it has ended or they withdrew, is told they
have already taken part. Nothing is written for a join that is refused.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from benchlab.annotations.online import places
from benchlab.annotations.online.completion import given, outcome_on_disk, withdrawal_of
from benchlab.annotations.online.platform_ids import PlatformId
from benchlab.annotations.online.private import (
    JOINS_FILE,
    KEY_FILE,
    append_record,
    locked,
    person_key,
    private_dir,
    pseudonym,
    read_jsonl,
    read_state,
)
from benchlab.annotations.online.session_files import on_disk

if TYPE_CHECKING:  # the study module imports the online package
    from benchlab.annotations.study import Study

JoinKind = Literal["start", "resume", "already", "full", "paused"]


@dataclass(frozen=True)
class Join:
    """What a join gets: start or resume a session (``token``), or a page saying why not."""

    kind: JoinKind
    participant: str
    token: str | None = None
    arm: str | None = None
    reason: str = ""
    flagged: bool = False  # came back after the place had been freed as abandoned


def joined(study: Study) -> dict[str, dict[str, str]]:
    """Pseudonymous id -> its join record (token, arm), from the private joins ledger."""
    out: dict[str, dict[str, str]] = {}
    for record in read_jsonl(private_dir(study.folder) / JOINS_FILE):
        if isinstance(record.get("participant"), str) and isinstance(record.get("token"), str):
            out.setdefault(record["participant"], {k: str(v) for k, v in record.items()})
    return out


def paused(study: Study) -> bool:
    return bool(read_state(study.folder).get("paused"))


def join(study: Study, who: PlatformId) -> Join:
    """Decide a join (see the module docstring); writes the assignment, ledger and key file lines for a new one."""
    pid = pseudonym(study.folder, who)
    with locked(study.folder):
        earlier = joined(study).get(pid)
        if earlier is not None:
            if given(study, pid) is not None or outcome_on_disk(study, on_disk(study.out, pid)) is not None:
                return Join("already", pid, earlier["token"], earlier.get("arm"))
            place = next((p for p in places.places(study) if p.participant == pid), None)
            flagged = place is not None and place.abandoned
            refused = places.returning_refusal(study, place) if place is not None else None
            if refused is not None:  # their place was freed and taken: resuming would go over the quota
                return Join("full", pid, reason=refused)
            if flagged:
                append_record(study.folder, JOINS_FILE, {"participant": pid, "event": "returned_after_abandon",
                                                         "timestamp": _now()})
            return Join("resume", pid, earlier["token"], earlier.get("arm"), flagged=flagged)
        if withdrawal_of(study, person_key(study.folder, who.person)) is not None:
            return Join("already", pid)  # they took part and withdrew: one session per person still holds
        if paused(study):
            return Join("paused", pid)
        reason = places.full(study)
        if reason is not None:
            return Join("full", pid, reason=reason)
        assignment = study.assign(pid, "1")
        reason = places.full(study, assignment.arm)
        if reason is not None:  # every open arm is full too (arm_for prefers arms with places)
            return Join("full", pid, reason=reason)
        study.record(assignment, source="web", person=person_key(study.folder, who.person))
        token = secrets.token_urlsafe(24)
        append_record(study.folder, KEY_FILE, {"participant": pid, "platform": who.platform, "person": who.person,
                                               **who.extra, "timestamp": _now()})
        append_record(study.folder, JOINS_FILE, {"participant": pid, "token": token, "arm": assignment.arm,
                                                 "timestamp": _now()})
        return Join("start", pid, token, assignment.arm)


def _now() -> str:
    return datetime.now(UTC).isoformat()
