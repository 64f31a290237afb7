"""WorldSense's part of the Sessions rows (:class:`~benchlab.annotations.task.SessionLayout`): where a session
writes, from its saved plan, and its JSONL logs read by trial Key. Practice records carry no correctness (a terminal
session's practice accuracy is unknown; a web session's comes from its events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchlab.annotations.response_log import ResponseLog
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionFiles
from benchlab.annotations.task import LoggedAnswer, SessionLayout
from benchlab.annotations.worldsense.session import worldsense_files


def _key(record: dict[str, Any]) -> str:
    return str(record["Key"])


class WorldSenseSessionLayout:
    """Where a WorldSense session writes and what its logs hold."""

    lock_pattern: str = ".human-{p}.lock"

    def files(self, base: Path, plan: SessionPlan) -> SessionFiles:
        return worldsense_files(base, plan.participant, plan.session)

    def answers(self, path: Path, plan: SessionPlan) -> list[LoggedAnswer]:
        if not path.exists():
            return []
        return [LoggedAnswer(_key(r), None) for r in ResponseLog(path, _key).peek()]


LAYOUT: SessionLayout = WorldSenseSessionLayout()
