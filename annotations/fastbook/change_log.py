"""The curation change log: one JSON line per edit, undo, redo and save, beside the benchmark file.

A curator's edits are human work: each one is appended and fsynced the moment it is made (not at save time),
so the log answers "who changed what, when, from what to what" even for a session that crashed before saving.
Undo and redo are logged as changes of their own (with ``undoes``), so replaying the log gives the same file.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from benchlab.data.atomic import append_line
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import drop_torn_tail, read_models

LOG_SUFFIX = ".changes.jsonl"


class ChangeRecord(BaseModel):
    """One line of the change log. ``before``/``after`` are the values at ``field`` (null = absent)."""

    model_config = ConfigDict(extra="forbid")

    time: str
    """UTC, ISO 8601 with milliseconds."""
    curator: str
    session: str
    """Random id of one editor session, to group its lines."""
    action: str
    """add_context, replace_context, delete_context, set_flag, add_question_context, delete_question_context,
    set_question_component, undo, redo, or save."""
    file: str
    chapter: int | None = None
    question_number: int | None = None
    component: int | None = None
    field: str | None = None
    before: Any = None
    after: Any = None
    undoes: str | None = None
    """For undo/redo: the action that was undone or redone."""
    sha256: str | None = None
    """For save: sha256 of the file as written."""
    base_sha256: str | None = None
    """For edits, undo and redo: sha256 of the file the session's edits apply to (as loaded or last saved),
    so unsaved edits of a crashed session can be re-applied only onto that same file."""
    backup: str | None = None
    """For save: where the previous version was kept."""


def log_path_for(benchmark_path: str | Path) -> Path:
    """``fastbook-benchmark.json`` -> ``fastbook-benchmark.json.changes.jsonl`` in the same folder."""
    p = Path(benchmark_path)
    return p.with_name(p.name + LOG_SUFFIX)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ChangeLog:
    """Appends records durably; a torn last line left by a killed editor is cut before the first append."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._checked_tail = False

    def append(self, record: ChangeRecord) -> None:
        if not self._checked_tail:
            try:
                drop_torn_tail(self.path)
            except OSError as exc:
                raise BenchlabError(f"cannot write the change log ({exc.strerror or exc})", self.path) from exc
            self._checked_tail = True
        data = {
            key: value
            for key, value in record.model_dump().items()
            if value is not None or (key in ("before", "after") and record.field is not None)
        }
        append_line(self.path, json.dumps(data, ensure_ascii=False))

    def read(self) -> list[ChangeRecord]:
        """Every record in the log (a torn last line is ignored)."""
        if not self.path.exists():
            return []
        return [record for _, record in read_models(ChangeRecord, self.path, allow_torn_tail=True)]
