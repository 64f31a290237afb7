"""Retrieval-run files: one JSON line per question, ``{"chapter", "question_number", "passages": [best first]}``.

The reference notebooks pair results with questions by list position, which silently breaks when a question is
added or reordered; a run file names its question on every line instead, and reading it against a benchmark
rejects questions the benchmark does not have (naming file, line and question) rather than scoring garbage.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import Benchmark, QuestionId
from benchlab.data.jsonl import read_models


class RunLine(BaseModel):
    """One question's ranked passages (extra keys such as scores or a query are kept, not used)."""

    model_config = ConfigDict(extra="allow")

    chapter: int
    question_number: int
    passages: list[str]

    @property
    def id(self) -> QuestionId:
        return QuestionId(self.chapter, self.question_number)


@dataclass
class Run:
    """A named retrieval run: ranked passages per question."""

    name: str
    results: dict[QuestionId, list[str]] = field(default_factory=dict)
    path: Path | None = None

    def passages(self, qid: QuestionId | tuple[int, int]) -> list[str]:
        """The question's passages, or ``[]`` when the run has none for it (scores 0, as in the reference)."""
        return self.results.get(QuestionId(*qid), [])

    def missing(self, benchmark: Benchmark) -> list[QuestionId]:
        """Benchmark questions the run has no line for."""
        return [q.id for q in benchmark if q.id not in self.results]


def run_name(path: str | Path) -> str:
    """A short column name for a run: the file name without ``.jsonl``."""
    name = Path(path).name
    for suffix in (".bz2", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name


def read_run(path: str | Path, benchmark: Benchmark | None = None, name: str | None = None) -> Run:
    """Read a run file; with ``benchmark``, lines naming a question it does not have are an error."""
    p = Path(path)
    known = set(benchmark.ids()) if benchmark is not None else None
    run = Run(name or run_name(p), path=p)
    first_line: dict[QuestionId, int] = {}
    for lineno, line in read_models(RunLine, p):
        qid = line.id
        if known is not None and qid not in known:
            raise BenchlabError(f"{qid} is not in the benchmark (is this run for another version of it?)", p, lineno)
        if qid in first_line:
            raise BenchlabError(f"{qid} appears twice (first on line {first_line[qid]})", p, lineno)
        first_line[qid] = lineno
        run.results[qid] = line.passages
    if not run.results:
        raise BenchlabError("the run file has no results", p)
    return run


def write_run(path: str | Path, run: Run, order: Iterable[QuestionId] | None = None) -> None:
    """Write a run atomically, one line per question (benchmark order when ``order`` is given)."""
    ids = list(order) if order is not None else list(run.results)
    lines = [
        json.dumps({"chapter": qid.chapter, "question_number": qid.question_number, "passages": run.passages(qid)},
                   ensure_ascii=False)
        for qid in ids
    ]
    atomic_write_text(path, "".join(line + "\n" for line in lines))
