"""Reading JSON Lines (plain or bzip2) with errors that name the file and line.

Every benchmark file format here is JSONL; one reader keeps the messages and the edge cases (truncated
archives, a torn last line after a crash, blank lines) the same everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from benchlab.data.atomic import cut_torn_tail
from benchlab.data.errors import BenchlabError
from benchlab.data.text_io import iter_lines

if TYPE_CHECKING:  # pydantic loads with the first validated line, not with every reader of plain lines
    from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound="BaseModel")


def iter_json_lines(path: str | Path, *, allow_torn_tail: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line (line numbers start at 1).

    ``allow_torn_tail`` skips an unparsable *last* line that has no newline: that is what a process killed
    mid-write leaves behind, and the lines before it are intact. Bytes that are not UTF-8 are an error naming
    the line (in a torn last line they are part of the tear).
    """
    p = Path(path)
    for lineno, raw, complete in iter_lines(p, allow_torn_tail=allow_torn_tail):
        if not raw.strip():
            continue
        if not complete and allow_torn_tail:
            try:
                yield _parse(p, lineno, raw)
            except BenchlabError:
                return
            return
        yield _parse(p, lineno, raw)


def _parse(path: Path, lineno: int, raw: str) -> tuple[int, dict[str, Any]]:
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BenchlabError(f"not valid JSON ({exc.msg}, column {exc.colno})", path, lineno) from exc
    if not isinstance(obj, dict):
        raise BenchlabError(f"expected a JSON object, found {type(obj).__name__}", path, lineno)
    return lineno, obj


def validate(model: type[M], obj: dict[str, Any], path: str | Path, line: int | None = None) -> M:
    """Validate one parsed object, turning pydantic's error into one line naming the file, line and field."""
    # deferred: pydantic loads with the first validated line (see the imports)
    from pydantic import ValidationError

    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise BenchlabError(describe_validation_error(exc), path, line) from exc


def describe_validation_error(exc: ValidationError) -> str:
    """Summarise a pydantic error as ``field 'x': message`` (first problem, plus a count of the others)."""
    errors = exc.errors()
    first = errors[0]
    loc = ".".join(str(part) for part in first["loc"]) or "(record)"
    msg = first["msg"]
    if first["type"] == "missing":
        text = f"missing field '{loc}'"
    else:
        text = f"field '{loc}': {msg}"
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return text


def read_models(model: type[M], path: str | Path, *, allow_torn_tail: bool = False) -> Iterator[tuple[int, M]]:
    """Parse and validate every line of a JSONL file as ``model``."""
    for lineno, obj in iter_json_lines(path, allow_torn_tail=allow_torn_tail):
        yield lineno, validate(model, obj, path, lineno)


def drop_torn_tail(path: str | Path) -> bool:
    """Cut a partial last line (no trailing newline) left by a killed writer; return True if one was cut.

    Called before appending to a log on resume so the next record starts on its own line (the cut itself lives
    in :func:`benchlab.data.atomic.cut_torn_tail`, which every append goes through).
    """
    return cut_torn_tail(path)


def complete_objects(path: Path) -> list[dict[str, Any]]:
    """The complete JSON-object lines of a log written by appending, for status views: a torn last line, a foreign
    line or an unreadable file is skipped, never an error (the Sessions screen and the online places must show what
    is there while a session writes)."""
    try:
        lines = path.read_bytes().split(b"\n")[:-1]
    except OSError:
        return []
    return object_lines(lines)


def object_lines(lines: Iterable[bytes]) -> list[dict[str, Any]]:
    """The lines that are JSON objects, in order; blank, torn or foreign lines are left out."""
    out = []
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


def complete_events(path: Path) -> list[dict[str, Any]]:
    """The complete lines of an events log that are events (an ``event`` name), as :func:`complete_objects`."""
    return [e for e in complete_objects(path) if isinstance(e.get("event"), str)]
