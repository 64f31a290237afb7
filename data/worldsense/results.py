"""Results files ``<prompting>___<modelname>___results.jsonl``: finding, naming, reading and writing them.

The same format holds model answers and human answers, so one scorer serves both. Lines are written in the
compact published style (``{"Key":1,"resp":"1"}``) plus any extra fields (response times, participant id);
each appended line is fsynced before the call returns, so a response is on disk before the next trial shows.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.data.atomic import append_line, atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import iter_json_lines
from benchlab.data.text_io import find_named_files
from benchlab.data.worldsense.rules import INT64_MAX, INT64_MIN

if TYPE_CHECKING:  # pydantic loads with the first validated line, not with the scorer's fast readers
    from benchlab.data.worldsense.records import ResultLine

RESULTS_SUFFIX = "___results.jsonl"
_SEP = "___"


@dataclass(frozen=True)
class ResultsFile:
    """A results file and the two names its file name carries."""

    path: Path
    prompting: str
    modelname: str

    @property
    def label(self) -> str:
        return f"{self.prompting}/{self.modelname}"


def _check_name_part(kind: str, value: str) -> None:
    if not value:
        raise BenchlabError(f"the {kind} name must not be empty")
    if _SEP in value or "/" in value or "\\" in value or "\n" in value or value.strip() != value:
        raise BenchlabError(
            f"the {kind} name {value!r} cannot be used in a results file name "
            "(no '___', no slashes, no leading/trailing spaces)"
        )


def results_filename(prompting: str, modelname: str) -> str:
    """``<prompting>___<modelname>___results.jsonl``, after checking both names can be read back."""
    _check_name_part("prompting", prompting)
    _check_name_part("model", modelname)
    return f"{prompting}{_SEP}{modelname}{RESULTS_SUFFIX}"


def parse_results_filename(path: str | Path) -> ResultsFile:
    """Split a results file name into (prompting, modelname); anything but exactly three parts is an error."""
    p = Path(path)
    if not p.name.endswith(RESULTS_SUFFIX):
        raise BenchlabError(f"not a results file name (must end in '{RESULTS_SUFFIX}')", p)
    parts = p.name.split(_SEP)
    if len(parts) != 3 or not parts[0] or not parts[1]:
        raise BenchlabError(
            "a results file name must be <prompting>___<modelname>___results.jsonl with no other '___'", p
        )
    return ResultsFile(path=p, prompting=parts[0], modelname=parts[1])


def find_results(results_dir: str | Path) -> list[ResultsFile]:
    """All results files under ``results_dir``, searched recursively like the original, sorted by path."""
    root = Path(results_dir)
    if not root.exists():
        raise BenchlabError("no such results folder", root)
    if not root.is_dir():
        raise BenchlabError("not a folder (expected the results/ folder of a test set)", root)
    if not os.access(root, os.R_OK | os.X_OK):
        raise BenchlabError("permission denied: cannot list this folder", root)
    found = find_named_files(root, lambda name: name.endswith(RESULTS_SUFFIX))  # FIFOs, folders, loops: errors
    return [parse_results_filename(p) for p in found]


def read_results(path: str | Path, *, allow_torn_tail: bool = False) -> list[ResultLine]:
    """Every line of a results file, validated (``resp`` strictly a string, Key an exact 64-bit int)."""
    # deferred: pydantic loads with the first validated line, not with the scorer's fast readers
    from benchlab.data.jsonl import read_models
    from benchlab.data.worldsense.records import ResultLine

    return [line for _lineno, line in read_models(ResultLine, path, allow_torn_tail=allow_torn_tail)]


def result_answers(path: str | Path, *, allow_torn_tail: bool = False) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """Key, resp and the other fields (in file order) of every line, checked as :func:`read_results` checks them.

    A line whose Key is an exact 64-bit int and whose resp is a string is what the validating model would return,
    so it is taken as it is; any other line goes through the model, which names the file, line and field. So a
    participant's file read for a comparison loads no pydantic (its import and the model's build, ~0.05 s of CPU)
    unless a line is wrong.
    """
    for lineno, obj in iter_json_lines(path, allow_torn_tail=allow_torn_tail):
        key, resp = obj.get("Key"), obj.get("resp")
        if type(key) is int and INT64_MIN <= key <= INT64_MAX and type(resp) is str:
            yield key, resp, {name: value for name, value in obj.items() if name not in ("Key", "resp")}
            continue
        # deferred: pydantic loads only for a line the plain check declines (it raises there, naming the field)
        from benchlab.data.jsonl import validate
        from benchlab.data.worldsense.records import ResultLine

        line = validate(ResultLine, obj, path, lineno)
        yield line.Key, line.resp, line.extras


def format_result_line(key: int, resp: str, extra: Mapping[str, Any] | None = None) -> str:
    """One line in the compact published style, extras after Key and resp."""
    # deferred: pydantic loads with the first validated line, not with the scorer's fast readers
    from benchlab.data.worldsense.records import ResultLine

    record = ResultLine.model_validate({**(extra or {}), "Key": key, "resp": resp})
    payload: dict[str, Any] = {"Key": record.Key, "resp": record.resp}
    for name, value in (extra or {}).items():
        if name not in ("Key", "resp"):
            payload[name] = value
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def append_result(path: str | Path, key: int, resp: str, extra: Mapping[str, Any] | None = None) -> None:
    """Append one answer and fsync before returning (use it after every trial)."""
    append_line(path, format_result_line(key, resp, extra))


def write_results(path: str | Path, lines: Iterable[ResultLine | Mapping[str, Any]]) -> int:
    """Write a whole results file atomically; returns the number of lines. Refuses duplicate Keys."""
    # deferred: pydantic loads with the first validated line, not with the scorer's fast readers
    from benchlab.data.worldsense.records import ResultLine

    out: list[str] = []
    seen: set[int] = set()
    for item in lines:
        record = item if isinstance(item, ResultLine) else ResultLine.model_validate(dict(item))
        if record.Key in seen:
            raise BenchlabError(f"duplicate Key {record.Key}: each trial may have one answer per file", path)
        seen.add(record.Key)
        out.append(format_result_line(record.Key, record.resp, record.extras))
    atomic_write_text(path, "".join(line + "\n" for line in out))
    return len(out)


def answered_keys(path: str | Path) -> set[int]:
    """Keys already answered in a results file (empty set when it does not exist); for resuming sessions."""
    p = Path(path)
    if not p.exists():
        return set()
    return {line.Key for line in read_results(p, allow_torn_tail=True)}
