"""The online study's sessions table (the dashboard's, and the columns the launcher's Sessions screen can add):
status, arm, progress, last activity, attention checks, device and outcome, from the files alone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from benchlab.annotations.online import places
from benchlab.annotations.online.attention import score
from benchlab.annotations.online.completion import given, outcome_on_disk
from benchlab.annotations.online.session_files import on_disk
from benchlab.annotations.session.status import device_of, read_statuses

if TYPE_CHECKING:  # the study module imports the online package
    from benchlab.annotations.study import Study


@dataclass(frozen=True)
class OnlineRow:
    participant: str
    status: str  # a Sessions state, or "abandoned" (idle past abandon_after: its place is free)
    arm: str
    progress: str
    last_activity: datetime | None
    attention: str
    device: str
    outcome: str


def online_rows(study: Study) -> list[OnlineRow]:
    """One row per participant with a recorded assignment (pilots left out)."""
    online = study.spec.online
    statuses = {s.participant: s for s in read_statuses(study.out)}
    out = []
    for place in places.places(study):
        status = statuses.get(place.participant)
        disk = on_disk(study.out, place.participant)
        attention = score(online.attention, disk).text() if online is not None else ""
        done = given(study, place.participant)
        ended = outcome_on_disk(study, disk) if done is None else None
        outcome = done.outcome if done else (f"{ended} (no code shown yet)" if ended else "")
        progress = f"{status.trial or 0}/{status.n_trials}" if status is not None and status.n_trials else ""
        out.append(OnlineRow(place.participant, "abandoned" if place.abandoned else place.state, place.arm, progress,
                             place.last_activity, attention, device_of(disk.events), outcome))
    return out
