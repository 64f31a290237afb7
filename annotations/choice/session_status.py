"""A choice task's part of the Sessions rows (:class:`~benchlab.annotations.task.SessionLayout`): where its
sessions write and its JSONL logs, scored against the items file the plan names, so a plug-in's row shows its
practice accuracy like a built-in task's.

The task hands in where it writes and how it reads items (``choice_files`` and ``load_items`` of
:mod:`benchlab.annotations.choice.task`), so this module does not import the task module that offers it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlab.annotations.response_log import ResponseLog
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionFiles
from benchlab.annotations.task import LoggedAnswer
from benchlab.data.choice.items import ChoiceItems
from benchlab.data.errors import BenchlabError


def _item(record: dict[str, Any]) -> str:
    return str(record["item"])


class ChoiceSessionLayout:
    """Where a choice task's session writes (``files_of(out, participant, session)``) and what its logs hold."""

    #: The lock ``files_of`` names: ``sessions/.<participant>.lock``.
    lock_pattern: str = ".{p}.lock"

    def __init__(self, files_of: Callable[[Path, str, str], SessionFiles],
                 items_of: Callable[[str | Path], ChoiceItems]) -> None:
        self._files_of = files_of
        self._items_of = items_of

    def files(self, base: Path, plan: SessionPlan) -> SessionFiles:
        return self._files_of(base, plan.participant, plan.session)

    def answers(self, path: Path, plan: SessionPlan) -> list[LoggedAnswer]:
        if not path.exists():
            return []
        records = ResponseLog(path, _item).peek()
        try:
            gold = {item.id: item.gold for item in self._items_of(plan.dataset).items}
        except (BenchlabError, OSError):
            gold = {}  # the items file moved: progress still shows, correctness is unknown
        return [LoggedAnswer(_item(r), (r.get("response") == gold[_item(r)]) if _item(r) in gold else None)
                for r in records]
