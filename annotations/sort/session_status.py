"""SORT's part of the Sessions rows (:class:`~benchlab.annotations.task.SessionLayout`): where a session writes
(its file names carry the configuration and condition, read from the saved plan), and its CSV logs, whose practice
rows carry their own ``correct``."""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionFiles
from benchlab.annotations.task import LoggedAnswer, SessionLayout


def _correct(value: object) -> bool | None:
    """The CSV's ``correct`` cell (text), ``None`` when empty."""
    if value in (None, ""):
        return None
    return value in (True, "True", "true", 1, "1")


class SortSessionLayout:
    """Where a SORT session writes and what its logs hold."""

    lock_pattern: str = ".human_{p}.lock"

    def files(self, base: Path, plan: SessionPlan) -> SessionFiles:
        # deferred: the SORT session module loads pandas, which a CLI start (declaring every task) must not pay
        from benchlab.annotations.sort.session import sort_files

        config = plan.config
        return sort_files(base, plan.participant, plan.session, int(config["excerpt_length"]),
                          int(config["segment_length"]), str(config.get("condition", "stm")))

    def answers(self, path: Path, plan: SessionPlan) -> list[LoggedAnswer]:
        # deferred: the SORT results reader loads pandas, which a CLI start (declaring every task) must not pay
        from benchlab.annotations.sort.human_record import SortResultsLog

        if not path.exists():
            return []
        return [LoggedAnswer(str(r["trial_id"]), _correct(r.get("correct"))) for r in SortResultsLog(path).peek()]


LAYOUT: SessionLayout = SortSessionLayout()
