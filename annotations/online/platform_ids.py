"""The participant's platform id from the study link's URL parameters, checked before anything is stored.

Prolific appends ``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID``; SONA the survey code as ``id``; MTurk's external
question page ``workerId``, ``assignmentId``, ``hitId`` (a preview has ``assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE``);
any other recruiter can send ``participant``. The id a person is known by (Prolific PID, SONA code, MTurk worker) is
what "one session per person" keys on; the other parameters are kept in the key file for reconciliation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from benchlab.annotations.online.config import Platform

#: Letters, digits, '_' and '-' only (no markup, spaces or control characters), at most 128 characters.
_ID_OK = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"

#: platform -> (the parameter naming the person, the other parameters kept with it)
PARAMETERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "prolific": ("PROLIFIC_PID", ("STUDY_ID", "SESSION_ID")),
    "sona": ("id", ()),
    "mturk": ("workerId", ("assignmentId", "hitId")),
    "generic": ("participant", ()),
}


class PlatformIdError(ValueError):
    """The link's parameters do not name a participant as the platform would (said to the participant plainly)."""


@dataclass(frozen=True)
class PlatformId:
    """Who joined, as the platform knows them: ``person`` (one session each) and the extra ids (submission)."""

    platform: str
    person: str
    extra: dict[str, str] = field(default_factory=dict)


def platform_id(platform: Platform, params: Mapping[str, str]) -> PlatformId:
    """The checked platform id of a join; :class:`PlatformIdError` for a missing, too long or malformed one, or an
    MTurk preview (which must not take a place)."""
    name, extras = PARAMETERS[platform]
    person = params.get(name)
    if person is None or person == "":
        raise PlatformIdError(f"this link needs your {platform_label(platform)} id (the {name} parameter): open "
                              "the study from the recruitment site")
    _check(name, person)
    if platform == "mturk" and params.get("assignmentId") == MTURK_PREVIEW:
        raise PlatformIdError("this is a preview: accept the HIT to take part")
    extra: dict[str, str] = {}
    for key in extras:
        value = params.get(key)
        if value:
            _check(key, value)
            extra[key] = value
    return PlatformId(platform, person, extra)


def _check(name: str, value: str) -> None:
    if len(value) > 128:
        raise PlatformIdError(f"the {name} parameter is too long (at most 128 characters)")
    if not _ID_OK.match(value):
        raise PlatformIdError(f"the {name} parameter may hold only letters, digits, '_' and '-'")


def platform_label(platform: str) -> str:
    return {"prolific": "Prolific", "sona": "SONA", "mturk": "MTurk worker", "generic": "participant"}[platform]
