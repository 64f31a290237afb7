"""An append-only response log: one JSON line per response, on disk (fsync) before the next trial shows.

On resume the log is read back, a torn last line left by a killed process is cut off, and the ids already
answered are skipped, so a session killed at any point continues with no duplicate and no lost response.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from benchlab.data.atomic import append_line
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import drop_torn_tail, iter_json_lines


def _default_id(record: dict[str, Any]) -> str:
    return str(record["Key"])


class ResponseLog:
    """A JSONL file of response records, keyed by item id (``id_of`` maps a record to its item id)."""

    def __init__(self, path: str | Path, id_of: Callable[[dict[str, Any]], str] = _default_id) -> None:
        self.path = Path(path)
        self._id_of = id_of
        self._records: list[dict[str, Any]] = []
        self._ids: set[str] = set()
        self._loaded = False

    def recover(self) -> list[dict[str, Any]]:
        """Read what is recorded (cutting a torn last line first) and return the records in file order.

        A duplicate id in the file is an error naming the line: it would silently break a WorldSense tuple.
        """
        drop_torn_tail(self.path)
        self._records, self._ids = [], set()
        if self.path.exists():
            for lineno, obj in iter_json_lines(self.path, allow_torn_tail=True):
                try:
                    item = self._id_of(obj)
                except (KeyError, TypeError, ValueError) as exc:
                    raise BenchlabError(f"not a response record (no item id: {exc})", self.path, lineno) from exc
                if item in self._ids:
                    raise BenchlabError(f"item {item} is recorded twice; fix the file before resuming", self.path,
                                        lineno)
                self._ids.add(item)
                self._records.append(obj)
        self._loaded = True
        return list(self._records)

    @property
    def records(self) -> list[dict[str, Any]]:
        if not self._loaded:
            self.recover()
        return list(self._records)

    def answered(self) -> set[str]:
        if not self._loaded:
            self.recover()
        return set(self._ids)

    def __len__(self) -> int:
        return len(self.answered())

    def append(self, record: BaseModel | dict[str, Any]) -> None:
        """Write one record and fsync; refuses an id that is already recorded (no duplicates, ever)."""
        if not self._loaded:
            self.recover()
        obj = record.model_dump(mode="python") if isinstance(record, BaseModel) else dict(record)
        item = self._id_of(obj)
        if item in self._ids:
            raise BenchlabError(f"item {item} is already recorded; not writing it twice", self.path)
        append_line(self.path, json.dumps(obj, ensure_ascii=False, separators=(", ", ": ")))
        self._ids.add(item)
        self._records.append(obj)
