"""What the curation editor shows, computed without Textual: audit marks, list rows, chapter spans, scores.

The editor asks this model, never the data layer directly, so the rules (what counts as a problem, when a new
context is refused, how scores move after an edit) are in one place and testable without a terminal.
Verdicts come from the audit (``benchlab.data.fastbook.audit.check_context``) and scores from the shared
scorer: the editor shows exactly what ``benchlab fastbook audit`` and ``benchlab score fastbook`` report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from benchlab.annotations.fastbook.context_edits import QuestionId, Slot
from benchlab.data.fastbook.audit import Auditor, ContextStatus
from benchlab.data.fastbook.benchmark import Benchmark, Question
from benchlab.data.fastbook.chapters import Chapter
from benchlab.data.fastbook.runs import Run
from benchlab.data.fastbook.scoring import Scorer

MarkState = Literal["ok", "crosses", "missing"]
MAX_OCCURRENCES = 50


@dataclass(frozen=True)
class ContextMark:
    """The audit's verdict on one context string, as the editor shows it.

    ``spans`` are where it (or, for a near miss, the chapter's version of it) is in the raw chapter text;
    ``suggestion`` is the audit's fix (the chapter's own spelling, the code without fences, the part inside the
    best chunk), offered by the editor's "use suggestion" action.
    """

    state: MarkState
    reason: str = ""
    spans: tuple[tuple[int, int], ...] = ()
    suggestion: str | None = None


@dataclass(frozen=True)
class QuestionRow:
    """A row of the question list; ``problems`` = contexts that cannot score plus components without context."""

    qid: QuestionId
    text: str
    problems: int
    edited: bool = False


@dataclass(frozen=True)
class RunScoreRow:
    """One run's scores now; ``*_base`` are the values when the editor opened."""

    name: str
    mrr: float
    mrr_base: float
    recall: float
    recall_base: float
    q_mrr: float | None
    q_mrr_base: float | None
    q_recall: float | None
    q_recall_base: float | None


def mark_from_status(status: ContextStatus) -> ContextMark:
    state: MarkState = "ok" if status.in_chunk else "crosses" if status.in_text else "missing"
    reason = status.describe() if state != "ok" or status.ambiguous else ""
    return ContextMark(state, reason, tuple(status.spans), status.suggestion)


class CurateModel:
    """Derived views of a benchmark being edited; call :meth:`invalidate` after every change to a question."""

    def __init__(self, benchmark: Benchmark, chapters: dict[int, Chapter], runs: Sequence[Run], *, k: int = 10):
        self.benchmark = benchmark
        self.chapters = chapters
        self.runs = list(runs)
        self.k = k
        self.auditor = Auditor(chapters)
        self._marks: dict[tuple[int, str], ContextMark] = {}
        self.scorer = Scorer(benchmark, chapters, k=k) if self.runs else None
        self._base: dict[str, dict[QuestionId, tuple[float, float]]] = {}
        self._now: dict[str, dict[QuestionId, tuple[float, float]]] = {}
        if self.scorer is not None:
            for run in self.runs:
                score = self.scorer.score(run)
                per: dict[QuestionId, tuple[float, float]] = {q.id: (q.mrr, q.recall) for q in score.questions}
                self._base[run.name] = per
                self._now[run.name] = dict(per)

    # -- audit marks ------------------------------------------------------------------------------------------
    def check(self, chapter: int, text: str) -> ContextMark:
        key = (chapter, text)
        mark = self._marks.get(key)
        if mark is None:
            if chapter not in self.chapters:
                mark = ContextMark("missing", f"chapter {chapter} text is not loaded")
            else:
                mark = mark_from_status(self.auditor.check_context(chapter, text))
            self._marks[key] = mark
        return mark

    def refusal(self, chapter: int, text: str) -> str | None:
        """Why ``text`` cannot be accepted as a context of a chapter-``chapter`` question (None = acceptable)."""
        if not text.strip():
            return "the context is empty"
        if chapter not in self.chapters:
            return f"chapter {chapter} text is not loaded, so the context cannot be checked"
        mark = self.check(chapter, text)
        if mark.state == "missing":
            return f"not found in the text of chapter {chapter}" + (f" ({mark.reason})" if mark.reason else "")
        return None

    def contexts_with_marks(self, question: Question) -> list[tuple[tuple[Slot, int], ContextMark, str]]:
        out: list[tuple[tuple[Slot, int], ContextMark, str]] = []
        for i, component in enumerate(question.answer_context):
            for j, text in enumerate(component.context):
                out.append(((Slot("answer", i), j), self.check(question.chapter, text), text))
        for i, entry in enumerate(question.question_context):
            for j, text in enumerate(entry.context):
                out.append(((Slot("question", i), j), self.check(question.chapter, text), text))
        return out

    def marks(self, question: Question) -> dict[tuple[Slot, int], ContextMark]:
        return {where: mark for where, mark, _ in self.contexts_with_marks(question)}

    def problems(self, question: Question) -> int:
        """Answer contexts that can never be matched, plus components with no context at all."""
        bad = sum(
            self.check(question.chapter, text).state != "ok"
            for component in question.answer_context
            for text in component.context
        )
        return bad + sum(not component.context for component in question.answer_context)

    def row(self, question: Question) -> QuestionRow:
        return QuestionRow(question.id, question.display_text, self.problems(question),
                           self.benchmark.is_edited(question))

    def rows(self) -> list[QuestionRow]:
        return [self.row(q) for q in self.benchmark]

    # -- chapter text -----------------------------------------------------------------------------------------
    def occurrences(self, chapter: int, text: str) -> list[tuple[int, int]]:
        """Where ``text`` occurs in the chapter (for a near miss: where the chapter's version is)."""
        if chapter not in self.chapters or not text.strip():
            return []
        return list(self.check(chapter, text).spans[:MAX_OCCURRENCES])

    def chunk_starts(self, chapter: int) -> list[int]:
        source = self.chapters.get(chapter)
        return [chunk.start for chunk in source.chunks] if source is not None else []

    def halving_cut(self, chapter: int) -> int | None:
        source = self.chapters.get(chapter)
        return source.halving_cut if source is not None else None

    def span_feedback(self, chapter: int, start: int, end: int) -> str:
        """What a curator needs to know about a selection before adding it: length and whether it fits a chunk."""
        source = self.chapters.get(chapter)
        if source is None or end <= start:
            return ""
        inside = [c.index for c in source.chunks if c.start <= start and end <= c.end]
        if inside:
            where = f"inside chunk {', '.join(map(str, inside))}"
        else:
            touched = [c.index for c in source.chunks if c.start < end and start < c.end]
            cut = " and the halving cut" if start < source.halving_cut < end else ""
            where = f"crosses chunks {'/'.join(map(str, touched))}{cut}: the scoring can never match it"
        return f"selection {end - start:,} chars, {where}"

    def search(self, chapter: int, needle: str) -> list[int]:
        """Case-insensitive positions of ``needle`` in the chapter text."""
        source = self.chapters.get(chapter)
        if source is None or not needle:
            return []
        hay, low = source.text.lower(), needle.lower()
        hits: list[int] = []
        pos = hay.find(low)
        while pos != -1:
            hits.append(pos)
            pos = hay.find(low, pos + 1)
        return hits

    # -- scores -----------------------------------------------------------------------------------------------
    def invalidate(self, qid: QuestionId) -> None:
        """Re-score ``qid`` in every run (only that question can have changed)."""
        if self.scorer is None:
            return
        question = self.benchmark.question(qid)
        for run in self.runs:
            score = self.scorer.score_question(question, run.passages(qid))
            self._now[run.name][question.id] = (score.mrr, score.recall)

    def score_rows(self, qid: QuestionId | None = None) -> list[RunScoreRow]:
        rows = []
        for run in self.runs:
            base, now = self._base[run.name], self._now[run.name]
            n = len(now) or 1
            q_now = now.get(qid) if qid is not None else None
            q_base = base.get(qid) if qid is not None else None
            rows.append(RunScoreRow(
                run.name,
                sum(v[0] for v in now.values()) / n, sum(v[0] for v in base.values()) / n,
                sum(v[1] for v in now.values()) / n, sum(v[1] for v in base.values()) / n,
                q_now[0] if q_now else None, q_base[0] if q_base else None,
                q_now[1] if q_now else None, q_base[1] if q_base else None,
            ))
        return rows
