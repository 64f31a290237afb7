"""The append-only, one-record-per-item log that every human results file is (JSONL or CSV, as the task's format).

One place holds the guarantees the session engine relies on: a torn last record left by a killed process is cut on
recovery, an item recorded twice is an error naming the line (it would silently break scoring), and ``append``
refuses an item already recorded and returns only after the record is fsynced. Scoring reads the same files more
leniently, with the same two rules worded once here: a torn last record is ignored with a warning naming its line
(:func:`torn_record_warning`) and an item recorded again is warned and its first record kept
(:func:`first_records`). Subclasses only say how records are
read (``_read_rows``) and written (``_write``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import drop_torn_tail


def first_records(ids: Sequence[str], lines: Sequence[int], path: str | Path,
                  warn: Callable[[str], None] | None = None, unit: str = "trial",
                  labels: Sequence[str] | None = None) -> list[bool]:
    """Which records scoring keeps when an item is recorded more than once: the first of each, with one warning.

    A session never writes an item twice (``append`` refuses it), but a file copied into itself or rows pasted
    again do; every benchmark's scoring reader keeps each item's first answer through here and says so, so n
    counts items, not rows. ``labels`` name the items in the warning
    (default: the ids).
    """
    seen: set[str] = set()
    keep: list[bool] = []
    repeats: list[tuple[str, int]] = []
    for i, (item, line) in enumerate(zip(ids, lines, strict=True)):
        if item in seen:
            keep.append(False)
            repeats.append((labels[i] if labels is not None else item, line))
        else:
            seen.add(item)
            keep.append(True)
    if repeats and warn is not None:
        item, line = repeats[0]
        warn(f"{path}: {len(repeats)} repeated answer(s) to the same {unit} (e.g. {item} again on line {line}); "
             "the first answer of each is scored")
    return keep


def torn_record_warning(path: str | Path, line: int, unit: str = "row") -> str:
    """The one warning for a last record cut mid-write (a killed writer, a power cut, a full disk)."""
    return f"{path}:{line}: the last {unit} is incomplete (the writer was stopped mid-{unit}?); ignored"


class KeyedRecordLog(ABC):
    """Records in file order, keyed by item id (``id_of`` maps a record to its item id)."""

    def __init__(self, path: str | Path, id_of: Callable[[dict[str, Any]], str]) -> None:
        self.path = Path(path)
        self._id_of = id_of
        self._records: list[dict[str, Any]] = []
        self._ids: set[str] = set()
        self._loaded = False

    @abstractmethod
    def _read_rows(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """Yield ``(line_number, record)`` for every complete record (nothing if the file does not exist)."""

    @abstractmethod
    def _write(self, record: dict[str, Any]) -> dict[str, Any]:
        """Append one record durably (fsync) and return it as a later read would give it back."""

    def recover(self) -> list[dict[str, Any]]:
        """Cut a torn last record (only the session holding the participant's lock calls this), then read."""
        drop_torn_tail(self.path)
        self._records = self.peek()
        self._ids = {self._id_of(r) for r in self._records}
        self._loaded = True
        return list(self._records)

    def peek(self) -> list[dict[str, Any]]:
        """Read the complete records without changing the file (for planning before the lock is taken)."""
        records: list[dict[str, Any]] = []
        ids: set[str] = set()
        for lineno, record in self._read_rows():
            try:
                item = self._id_of(record)
            except (KeyError, TypeError, ValueError) as exc:
                raise BenchlabError(f"not a response record (no item id: {exc})", self.path, lineno) from exc
            if item in ids:
                raise BenchlabError(f"item {item} is recorded twice; fix the file before resuming", self.path, lineno)
            ids.add(item)
            records.append(record)
        return records

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self.recover()

    @property
    def records(self) -> list[dict[str, Any]]:
        self._ensure_loaded()
        return list(self._records)

    def answered(self) -> set[str]:
        self._ensure_loaded()
        return set(self._ids)

    def __len__(self) -> int:
        return len(self.answered())

    def append(self, record: BaseModel | Mapping[str, Any]) -> None:
        """Write one record and fsync; refuses an item that is already recorded (no duplicates, ever)."""
        self._ensure_loaded()
        obj = record.model_dump(mode="python") if isinstance(record, BaseModel) else dict(record)
        item = self._id_of(obj)
        if item in self._ids:
            raise BenchlabError(f"item {item} is already recorded; not writing it twice", self.path)
        stored = self._write(obj)
        self._ids.add(item)
        self._records.append(stored)
