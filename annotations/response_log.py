"""An append-only response log: one JSON line per response, on disk (fsync) before the next trial shows.

On resume the log is read back, a torn last line left by a killed process is cut off, and the ids already
answered are skipped, so a session killed at any point continues with no duplicate and no lost response.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchlab.data.atomic import append_line
from benchlab.data.jsonl import iter_json_lines
from benchlab.data.record_log import KeyedRecordLog


def _default_id(record: dict[str, Any]) -> str:
    return str(record["Key"])


class ResponseLog(KeyedRecordLog):
    """A JSONL file of response records, keyed by item id (``id_of`` maps a record to its item id)."""

    def __init__(self, path: str | Path, id_of: Callable[[dict[str, Any]], str] = _default_id) -> None:
        super().__init__(path, id_of)

    def _read_rows(self) -> Iterator[tuple[int, dict[str, Any]]]:
        if self.path.exists():
            yield from iter_json_lines(self.path, allow_torn_tail=True)

    def _write(self, record: dict[str, Any]) -> dict[str, Any]:
        append_line(self.path, json.dumps(record, ensure_ascii=False, separators=(", ", ": ")))
        return record
