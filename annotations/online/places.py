"""Who holds a place in a study's balance and quotas, and the arm a new participant gets, decided under a lock.

A recorded assignment (``assignments.jsonl``) takes a place while its session, as the output folder's files show
it (:func:`~benchlab.annotations.session.status.read_statuses`):

- has passed consent (practice, trial, break, finished), or is at its consent right now (its lock is held);
- is *not* declined (a declined consent takes no place, in the browser and at a terminal seat alike);
- is not *abandoned*: idle (disconnected or at consent) longer than the study's ``abandon_after`` frees the place;
  its data stay, and the row is marked abandoned (a person who comes back resumes, flagged);
- or has not opened yet but was assigned moments ago (``GRACE_S`` for a terminal seat, ``abandon_after`` for a
  browser join, whose page may take a while to start the session).

Quotas (``quota``, ``arm_quotas``) are the places of the *study link*: they count the places held by crowd joins
(assignments recorded with ``source = "web"``) and refuse crowd joins only. Per-person private links and terminal
seats of the same study were invited by the researcher: they hold places in the arms' balance but neither count
against the quotas nor are refused by them, so the platform's place count and benchlab's agree. A crowd joiner whose
place was freed as abandoned resumes only while the study link has a place (in total and in their arm); otherwise
they get the "study is full" page, and their kept data stay marked abandoned (see :func:`returning_refusal`).

Choosing an arm and recording it happen under one file lock (:func:`~benchlab.annotations.online.private.locked`),
with a reservation for the terminal path (``run --study`` records the assignment only once its session is open), so
two seats or fifty browsers joining in the same second never read the same counts.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from benchlab.annotations.online.completion import log_screened_out
from benchlab.annotations.online.private import COMPLETIONS_FILE, append_record, read_jsonl
from benchlab.annotations.session.status import SessionStatus, read_statuses

if TYPE_CHECKING:  # the study module imports this one
    from benchlab.annotations.study import Study

#: Seconds an assignment of a terminal seat holds its place before its session shows on disk.
GRACE_S = 120.0
#: A browser join whose study declares no abandon_after holds its place this long before its session opens.
WEB_GRACE_S = 600.0
RESERVATIONS_FILE = "reservations.jsonl"
#: Joiners the page's device check refused before consent (a phone on a study that requires a computer): they hold
#: no place until they come back on a device that passes and consent.
SCREENED_FILE = "screened.jsonl"
PLACE_STATES = ("practice", "trial", "break", "finished")


@dataclass(frozen=True)
class Place:
    """One participant of the study as the balance sees them."""

    participant: str
    arm: str
    state: str  # the session's state (see read_statuses), or "assigned" before it opened
    counts: bool
    abandoned: bool
    last_activity: datetime | None
    #: ``"web"`` for a join through the study link (the quotas count these), else ``"link"`` (a private link) or
    #: ``""`` (a terminal seat).
    source: str = ""

    @property
    def on_quota(self) -> bool:
        """Whether this place counts against the study link's quotas."""
        return self.counts and self.source == "web"


def _age_s(timestamp: Any, now: float) -> float:
    try:
        return now - datetime.fromisoformat(str(timestamp)).timestamp()
    except ValueError:
        return float("inf")


def places(study: Study, now: float | None = None) -> list[Place]:
    """Every participant with a recorded assignment (pilots left out), first arm, whether they hold a place."""
    now = time.time() if now is None else now
    abandon = study.spec.online.abandon_after_s if study.spec.online is not None else None
    statuses: dict[str, SessionStatus] = {}
    for row in read_statuses(study.out):
        statuses.setdefault(row.participant, row)
    first: dict[str, dict[str, Any]] = {}
    for record in study.assignments():
        if not record.get("simulated"):
            first.setdefault(str(record["participant"]), record)
    declined = {str(r.get("participant")) for r in read_jsonl(study.folder / ".online" / COMPLETIONS_FILE)
                if r.get("outcome") == "declined"}
    declined |= {str(r.get("participant")) for r in read_jsonl(study.folder / ".online" / SCREENED_FILE)}
    out = []
    for participant, record in first.items():
        status = statuses.get(participant)
        state = status.state if status is not None else "assigned"
        last = status.last_activity if status is not None else None
        idle = now - last.timestamp() if last is not None else _age_s(record.get("timestamp"), now)
        abandoned = False
        if state in PLACE_STATES:
            counts = True
        elif state == "declined" or participant in declined:
            counts = False
        elif state in ("consent", "disconnected"):
            abandoned = abandon is not None and idle > abandon and state != "finished"
            counts = not abandoned
        elif record.get("plan") and record.get("source") != "web":
            counts = False  # recorded by an open terminal session that left nothing: it declined consent
        else:  # assigned, its session not opened yet
            grace = (abandon or WEB_GRACE_S) if record.get("source") == "web" else GRACE_S
            counts = _age_s(record.get("timestamp"), now) <= grace
            abandoned = record.get("source") == "web" and not counts
        out.append(Place(participant, str(record["arm"]), state, counts, abandoned, last,
                         str(record.get("source") or "")))
    return out


def screen_out(study: Study, participant: str) -> None:
    """The device check refused ``participant`` before consent: their join stops holding a place (nothing of a
    session was written; consenting later on another device counts them again)."""
    append_record(study.folder, SCREENED_FILE, {"participant": participant,
                                                 "timestamp": datetime.now(UTC).isoformat()})
    log_screened_out(study, participant)  # the code the page shows, in the completions log


def counted(study: Study) -> set[str]:
    """Participants holding a place now (the balance and the quotas count these)."""
    return {p.participant for p in places(study) if p.counts}


def pending_reservations(study: Study, now: float | None = None) -> list[dict[str, Any]]:
    """Arms chosen for terminal seats in the last ``GRACE_S`` seconds whose assignment is not recorded yet."""
    now = time.time() if now is None else now
    recorded = {(str(r["participant"]), str(r["session"])) for r in study.assignments()}
    folder = study.folder / ".online"
    return [r for r in read_jsonl(folder / RESERVATIONS_FILE)
            if (str(r.get("participant")), str(r.get("session"))) not in recorded
            and _age_s(r.get("timestamp"), now) <= GRACE_S]


def reserve(study: Study, participant: str, session: str, arm: str) -> None:
    """Hold ``arm`` for a session about to open (called under the study's lock)."""
    append_record(study.folder, RESERVATIONS_FILE, {"participant": participant, "session": session, "arm": arm,
                                                    "timestamp": datetime.now(UTC).isoformat()})


def arm_counts(study: Study) -> Counter[str]:
    """Places held per arm (between-participant: each person's first arm), every link and seat."""
    return Counter(p.arm for p in places(study) if p.counts)


def quota_counts(study: Study) -> Counter[str]:
    """Places held per arm through the study link: what the quotas count."""
    return Counter(p.arm for p in places(study) if p.on_quota)


def full(study: Study, arm: str | None = None) -> str | None:
    """Why no new crowd joiner can start (the study link's total quota, or ``arm``'s quota, reached), else
    ``None``."""
    online = study.spec.online
    if online is None:
        return None
    counts = quota_counts(study)
    if online.quota is not None and sum(counts.values()) >= online.quota:
        return f"all {online.quota} places are taken"
    if arm is not None and arm in online.arm_quotas and counts[arm] >= online.arm_quotas[arm]:
        return f"arm {arm} has all its {online.arm_quotas[arm]} places"
    return None


def returning_refusal(study: Study, place: Place) -> str | None:
    """Why a crowd joiner whose place was freed as abandoned cannot resume now (the study link is full in total or
    in their arm: coming back must not take the study over its quota), else ``None``. A place still held always
    resumes."""
    if not place.abandoned or place.counts:
        return None
    return full(study) or full(study, place.arm)


def open_arms(study: Study) -> list[str]:
    """Arms that still have places under their quotas (all arms when none is declared)."""
    return [a.name for a in study.spec.arms if full(study, a.name) is None]
