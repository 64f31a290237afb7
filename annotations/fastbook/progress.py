"""A curator's queue and progress: which of their questions they marked done, kept beside the benchmark file.

Progress lives in ``<file>.progress.json`` (keyed by curator, so curators sharing a file never clobber each other's
marks), rewritten atomically on every mark, so it survives a crash or a restart. "Done" is explicit (the curator
says so); "touched" (edited at least once) is recorded on the first edit, because an edit alone does not mean the
question is finished.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlab.annotations.fastbook.assignment import AssignmentPlan, read_plan
from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError, read_error
from benchlab.data.fastbook.benchmark import Benchmark, QuestionId
from benchlab.data.key_lines import json_line

VERSION = 1


def progress_path_for(benchmark_path: Path) -> Path:
    return benchmark_path.with_name(benchmark_path.name + ".progress.json")


def _ids(value: Any, path: Path, what: str, curator: str) -> list[QuestionId]:
    if not isinstance(value, list) or not all(
        isinstance(item, list) and len(item) == 2 and all(isinstance(x, int) for x in item) for item in value
    ):
        raise BenchlabError(f"curator {curator!r}: {what} must be a list of [chapter, question_number] pairs", path,
                            _line(path, ("curators", curator, what)))
    return [QuestionId(*item) for item in value]


def _line(path: Path, loc: tuple[str, ...]) -> int | None:
    """The line of ``loc`` in the progress file (for an error only: the file is read again)."""
    try:
        return json_line(path.read_text(encoding="utf-8"), loc)
    except (OSError, UnicodeDecodeError):
        return None


def _read_all(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {"version": VERSION, "curators": {}}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise read_error(exc, path, "a progress file") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchlabError(f"not valid JSON ({exc.msg})", path, exc.lineno) from None
    if not isinstance(data, dict) or not isinstance(data.get("curators"), dict):
        raise BenchlabError('not a progress file (expected {"version": 1, "curators": {...}})', path,
                            json_line(text, ("curators",)))
    return data


@dataclass
class CuratorQueue:
    """One curator's questions (from the plan) and their done / touched marks (from the progress file)."""

    curator: str
    plan_path: Path
    path: Path
    questions: list[QuestionId]
    done: set[QuestionId] = field(default_factory=set)
    touched: set[QuestionId] = field(default_factory=set)

    @classmethod
    def open(cls, plan_path: Path, benchmark_path: Path, benchmark: Benchmark, curator: str) -> CuratorQueue:
        """Read the plan (checked against the benchmark) and this curator's saved progress."""
        plan: AssignmentPlan = read_plan(plan_path, benchmark)
        if curator not in plan.curators:
            raise BenchlabError(f"curator {curator!r} is not in the plan (its curators: {', '.join(plan.curators)});"
                                " give one of them as the curator", plan_path)
        path = progress_path_for(benchmark_path)
        entry = _read_all(path)["curators"].get(curator, {})
        if not isinstance(entry, dict):
            raise BenchlabError(f"curator {curator!r}: expected an object with done and touched", path,
                                _line(path, ("curators", curator)))
        return cls(curator, plan_path, path, plan.queue(curator),
                   set(_ids(entry.get("done", []), path, "done", curator)),
                   set(_ids(entry.get("touched", []), path, "touched", curator)))

    @property
    def done_count(self) -> int:
        return sum(1 for qid in self.questions if qid in self.done)

    def progress_text(self) -> str:
        return f"{self.done_count} of {len(self.questions)} done"

    def toggle_done(self, key: tuple[int, int]) -> bool:
        """Mark ``key`` done (or not done any more); saved at once. Returns whether it is now done."""
        qid = QuestionId(*key)
        now = qid not in self.done
        (self.done.add if now else self.done.discard)(qid)
        self.save()
        return now

    def touch(self, key: tuple[int, int]) -> None:
        qid = QuestionId(*key)
        if qid not in self.touched:
            self.touched.add(qid)
            self.save()

    def save(self) -> None:
        """Rewrite the progress file with this curator's marks, keeping the other curators' as they are on disk."""
        data = _read_all(self.path)
        data["version"] = VERSION
        data["curators"][self.curator] = {"done": sorted([list(q) for q in self.done]),
                                          "touched": sorted([list(q) for q in self.touched])}
        try:
            atomic_write_text(self.path, json.dumps(data, indent=1) + "\n")
        except OSError as exc:
            raise BenchlabError(f"cannot save the progress ({exc.strerror or exc})", self.path) from exc
