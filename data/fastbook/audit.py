"""Which annotated contexts the benchmark's own scoring can ever match, and why not (spec §8).

A context scores only if, after ``ftfy``, it lies inside one chunk. The audit checks every context against the
chapter text and the chunks and names the reason for each miss: it crosses a chunk boundary (or the halving
cut), it is fenced code / a cell output (chunks contain neither), it has escaped characters (``\\u2014``), or
its letter case or whitespace differs. :func:`check_context` gives the same verdict for one string, which is
what the curation editor shows next to each context and uses to refuse a context the scoring could never match.
"""

from __future__ import annotations

import enum
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

from benchlab.data.fastbook.benchmark import Benchmark, Question, QuestionId
from benchlab.data.fastbook.chapters import Chapter
from benchlab.data.fastbook.runs import Run
from benchlab.data.fastbook.scoring import Normaliser
from benchlab.data.tables import Table

SHORT_CONTEXT = 25
"""Contexts shorter than this match many chunks by accident (``inference``, ``learn.model``)."""


class Reason(enum.StrEnum):
    """Why a context can (not) be matched by the scoring."""

    OK = "ok"
    EMPTY_STRING = "empty string"
    CROSSES_CHUNKS = "crosses a chunk boundary"
    CROSSES_HALVING = "crosses the halving cut"
    FENCED_CODE = "fenced code or output (chunks contain neither)"
    ESCAPED = "escaped characters"
    LETTER_CASE = "letter case differs"
    WHITESPACE = "whitespace differs"
    NOT_IN_TEXT = "not in the chapter text"


Verdict = Literal["found", "not found", "crosses a chunk"]


@dataclass(frozen=True)
class ContextStatus:
    """The verdict on one context string in one chapter.

    ``spans`` are ``(start, end)`` offsets in the raw chapter text (for highlighting and jumping); ``chunks`` the
    indices of the chunks that contain it; ``suggestion`` the chapter's own text when the context is a
    near-miss (other case, unescaped, fences removed) or the part inside the best chunk when it straddles.
    """

    chapter: int
    text: str
    in_text: bool
    in_chunk: bool
    reason: Reason
    chunks: tuple[int, ...] = ()
    spans: tuple[tuple[int, int], ...] = ()
    occurrences: int = 0
    best_chunk_share: float | None = None
    suggestion: str | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.in_chunk

    @property
    def verdict(self) -> Verdict:
        if self.in_chunk:
            return "found"
        return "crosses a chunk" if self.in_text else "not found"

    @property
    def ambiguous(self) -> bool:
        return self.occurrences > 1

    @property
    def short(self) -> bool:
        return 0 < len(self.text) < SHORT_CONTEXT

    def describe(self) -> str:
        """One line for lists and the editor."""
        if self.ok:
            extra = f", {self.occurrences} places in the chapter" if self.ambiguous else ""
            return f"found in chunk {', '.join(map(str, self.chunks))}{extra}"
        return f"{self.reason}{': ' + self.detail if self.detail else ''}"


_FENCE = re.compile(r"```[a-zA-Z]*\n?")
_OUTPUT = re.compile(r"\n?Output:\n.*\Z", re.S)
_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}|\\[nt\"\\]")
_SPACES = re.compile(r"\s+")


class Auditor:
    """Checks contexts against chapters; chapter and chunk texts are normalised once and kept."""

    def __init__(self, chapters: Mapping[int, Chapter], normaliser: Normaliser | None = None) -> None:
        self.chapters = dict(chapters)
        self.fix = normaliser or Normaliser()
        self._fixed_text = {n: self.fix(c.text) for n, c in self.chapters.items()}
        self._fixed_chunks = {n: [self.fix(k.text) for k in c.chunks] for n, c in self.chapters.items()}
        self._cache: dict[tuple[int, str], ContextStatus] = {}

    def check_context(self, chapter: int, text: str) -> ContextStatus:
        """The verdict for ``text`` as a context of a question in ``chapter`` (cached)."""
        key = (chapter, text)
        status = self._cache.get(key)
        if status is None:
            status = self._check(chapter, text)
            self._cache[key] = status
        return status

    def clear_cache(self) -> None:
        """Forget verdicts (chapter texts and chunks stay normalised)."""
        self._cache.clear()

    # -- the checks ---------------------------------------------------------------------------------------------
    def _check(self, number: int, text: str) -> ContextStatus:
        if number not in self.chapters:
            raise KeyError(f"chapter {number} is not loaded")
        chapter = self.chapters[number]
        if not text.strip():
            return ContextStatus(number, text, False, False, Reason.EMPTY_STRING,
                                 detail="an empty context matches every passage; delete it")
        fixed = self.fix(text)
        chunks = tuple(i for i, c in enumerate(self._fixed_chunks[number]) if fixed in c)
        spans = _find_all(chapter.text, text) or _find_all(chapter.text, fixed)
        in_text = fixed in self._fixed_text[number] or bool(spans)
        occurrences = max(len(spans), self._fixed_text[number].count(fixed))
        if chunks:
            return ContextStatus(number, text, True, True, Reason.OK, chunks, spans, occurrences)
        if in_text:
            return self._straddles(chapter, text, spans, occurrences)
        return self._near_miss(chapter, text)

    def _straddles(
        self, chapter: Chapter, text: str, spans: tuple[tuple[int, int], ...], occurrences: int
    ) -> ContextStatus:
        if not spans:  # found only after ftfy of the whole chapter; no raw position to measure
            return ContextStatus(chapter.number, text, True, False, Reason.CROSSES_CHUNKS, (), spans, occurrences)
        start, end = spans[0]
        cut = chapter.halving_cut
        best_share, best_part = 0.0, None
        for chunk in chapter.chunks:
            lo, hi = max(start, chunk.start), min(end, chunk.end)
            if hi > lo and (hi - lo) / (end - start) > best_share:
                best_share, best_part = (hi - lo) / (end - start), chapter.text[lo:hi].strip()
        reason = Reason.CROSSES_HALVING if start < cut < end else Reason.CROSSES_CHUNKS
        detail = f"{end - start} chars; the best chunk holds {best_share:.0%} of it"
        if reason is Reason.CROSSES_HALVING:
            detail = f"the chapter is cut in two halves at character {cut}; " + detail
        return ContextStatus(chapter.number, text, True, False, reason, (), spans, occurrences,
                             best_share, best_part, detail)

    def _near_miss(self, chapter: Chapter, text: str) -> ContextStatus:
        raw = chapter.text
        n = chapter.number
        if "```" in text or "Output:\n" in text:
            code = _OUTPUT.sub("", _FENCE.sub("", text)).strip("\n")
            spans = _find_all(raw, code) if code.strip() else ()
            return ContextStatus(n, text, False, False, Reason.FENCED_CODE, spans=spans,
                                 suggestion=code if spans else None,
                                 detail="chapter text has no ``` fences and no cell outputs"
                                 + ("; the code alone is in the chapter" if spans else ""))
        if _ESCAPE.search(text):
            unescaped = _unescape(text)
            spans = _find_all(raw, unescaped)
            found = ", ".join(sorted(set(_ESCAPE.findall(text))))
            return ContextStatus(n, text, False, False, Reason.ESCAPED, spans=spans,
                                 suggestion=unescaped if spans else None, detail=f"contains a literal {found}")
        lowered = raw.lower().find(text.lower())
        if lowered >= 0:
            actual = raw[lowered : lowered + len(text)]
            return ContextStatus(n, text, False, False, Reason.LETTER_CASE, spans=((lowered, lowered + len(text)),),
                                 suggestion=actual, detail=f"the chapter has {_first_difference(text, actual)}")
        squeezed = _SPACES.sub(" ", text).strip()
        match = re.search(r"\s+".join(re.escape(w) for w in squeezed.split(" ")), raw) if squeezed else None
        if match:
            return ContextStatus(n, text, False, False, Reason.WHITESPACE, spans=((match.start(), match.end()),),
                                 suggestion=match.group(0), detail="same words, different spaces or line breaks")
        prefix = _longest_prefix_in(raw, text)
        return ContextStatus(n, text, False, False, Reason.NOT_IN_TEXT,
                             detail=f"the first {prefix} of {len(text)} chars are in the chapter" if prefix else "")


def _find_all(haystack: str, needle: str) -> tuple[tuple[int, int], ...]:
    if not needle:
        return ()
    out: list[tuple[int, int]] = []
    pos = haystack.find(needle)
    while pos >= 0:
        out.append((pos, pos + len(needle)))
        pos = haystack.find(needle, pos + 1)
    return tuple(out)


def _unescape(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        if s.startswith("\\u"):
            return chr(int(s[2:], 16))
        return {"\\n": "\n", "\\t": "\t", '\\"': '"', "\\\\": "\\"}[s]

    return _ESCAPE.sub(repl, text)


def _first_difference(ours: str, theirs: str) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return f"{theirs[max(0, i - 5) : i + 10]!r} where the context has {ours[max(0, i - 5) : i + 10]!r}"
    return repr(theirs[:20])


def _longest_prefix_in(haystack: str, needle: str) -> int:
    lo, hi = 0, len(needle)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if needle[:mid] in haystack:
            lo = mid
        else:
            hi = mid - 1
    return lo


# -- the whole benchmark --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ContextFinding:
    """One context string of a question, where it is (component index, or ``None`` for ``question_context``)."""

    id: QuestionId
    component: int | None
    index: int
    status: ContextStatus
    question_part: int | None = None

    @property
    def where(self) -> str:
        part = f"component {self.component}" if self.component is not None else f"question_context {self.question_part}"
        return f"{self.id.chapter}.{self.id.question_number} {part} context {self.index}"


@dataclass(frozen=True)
class ComponentFinding:
    id: QuestionId
    component: int
    n_contexts: int
    n_scorable: int

    @property
    def empty(self) -> bool:
        return self.n_contexts == 0

    @property
    def can_score(self) -> bool:
        return self.n_scorable > 0


@dataclass
class AuditReport:
    """Every context and component checked, with summaries a curator and a closing note need."""

    contexts: list[ContextFinding] = field(default_factory=list)
    components: list[ComponentFinding] = field(default_factory=list)
    question_ids: list[QuestionId] = field(default_factory=list)
    best_ranks: dict[QuestionId, int | None] = field(default_factory=dict)
    best_covers: dict[QuestionId, tuple[int, ...]] = field(default_factory=dict)
    duplicates: list[tuple[QuestionId, str]] = field(default_factory=list)
    list_components: list[tuple[QuestionId, int]] = field(default_factory=list)

    @property
    def answer_contexts(self) -> list[ContextFinding]:
        return [f for f in self.contexts if f.component is not None]

    @property
    def problems(self) -> list[ContextFinding]:
        """Answer contexts the scoring can never match."""
        return [f for f in self.answer_contexts if not f.status.ok]

    @property
    def unscorable_components(self) -> list[ComponentFinding]:
        return [c for c in self.components if not c.can_score]

    @property
    def never_scoring_questions(self) -> list[QuestionId]:
        """Questions whose Modified MRR is 0 whatever is retrieved."""
        return [qid for qid in self.question_ids if self.best_ranks.get(qid) is None]

    @property
    def max_mrr(self) -> float:
        """Modified MRR@10 of a perfect retriever (oracle: the fewest chunks covering every component first)."""
        ranks = [self.best_ranks.get(qid) for qid in self.question_ids]
        return sum(1 / r for r in ranks if r) / len(ranks) if ranks else 0.0

    @property
    def max_recall(self) -> float:
        per_q: dict[QuestionId, list[bool]] = {}
        for c in self.components:
            per_q.setdefault(c.id, []).append(c.can_score)
        vals = [sum(v) / len(v) for v in per_q.values() if v]
        return sum(vals) / len(self.question_ids) if self.question_ids else 0.0

    def problem_ids(self) -> set[QuestionId]:
        """Questions with any problem a curator should look at (bad context or unscorable component)."""
        return {f.id for f in self.problems} | {c.id for c in self.unscorable_components}

    # -- tables ---------------------------------------------------------------------------------------------------
    def summary_table(self) -> Table:
        chapters = list(dict.fromkeys(qid.chapter for qid in self.question_ids))
        rows = []
        for ch in [*chapters, None]:
            ctx = [f for f in self.answer_contexts if ch is None or f.id.chapter == ch]
            comps = [c for c in self.components if ch is None or c.id.chapter == ch]
            qids = [q for q in self.question_ids if ch is None or q.chapter == ch]
            rows.append({
                "chapter": "all" if ch is None else str(ch),
                "questions": len(qids),
                "contexts": len(ctx),
                "in text": sum(f.status.in_text for f in ctx),
                "in a chunk": sum(f.status.in_chunk for f in ctx),
                "not in text": sum(not f.status.in_text for f in ctx),
                "text, no chunk": sum(f.status.in_text and not f.status.in_chunk for f in ctx),
                "empty components": sum(c.empty for c in comps),
                "unscorable non-empty": sum(not c.empty and not c.can_score for c in comps),
                "questions never > 0": sum(self.best_ranks.get(q) is None for q in qids),
            })
        frame = pd.DataFrame(rows).set_index("chapter").astype(object)
        return Table("fastbook-benchmark audit: answer contexts per chapter", frame)

    def reasons_table(self) -> Table:
        counts: dict[str, int] = {}
        for f in self.problems:
            counts[str(f.status.reason)] = counts.get(str(f.status.reason), 0) + 1
        frame = pd.DataFrame({"contexts": list(counts.values())}, index=pd.Index(list(counts), name="reason"))
        return Table("Why contexts can never be matched", frame)

    def problems_table(self) -> Table:
        """One row per context the scoring can never match (answer or question context) and per empty component.

        ``component scores`` says whether the component still has another context that can be matched.
        """
        scorable = {(c.id, c.component): c.can_score for c in self.components}
        order = {qid: i for i, qid in enumerate(self.question_ids)}
        keyed: list[tuple[tuple[int, int, int], dict[str, object]]] = []
        for f in self.contexts:
            if f.status.ok:
                continue
            part = f"answer {f.component}" if f.component is not None else f"question_context {f.question_part}"
            can = scorable.get((f.id, f.component)) if f.component is not None else None
            sort_key = (order.get(f.id, 0), f.component if f.component is not None else 1000, f.index)
            keyed.append((sort_key, {
                "question": f"{f.id.chapter}.{f.id.question_number}", "part": part, "context": f.index,
                "status": f.status.verdict, "reason": str(f.status.reason),
                "component scores": "" if can is None else ("yes" if can else "no"),
                "detail": f.status.detail, "text": _preview(f.status.text),
            }))
        for c in self.components:
            if c.empty:
                keyed.append(((order.get(c.id, 0), c.component, -1), {
                    "question": f"{c.id.chapter}.{c.id.question_number}", "part": f"answer {c.component}",
                    "context": "", "status": "empty", "reason": "component has no context",
                    "component scores": "no", "detail": "the question's MRR is always 0", "text": ""}))
        rows = [row for _, row in sorted(keyed, key=lambda item: item[0])]
        columns = ["question", "part", "context", "status", "reason", "component scores", "detail", "text"]
        frame = pd.DataFrame(rows, columns=columns).astype(object)
        return Table("Contexts the scoring can never match, and empty components", frame.set_index("question"))

    def ceilings_table(self) -> Table:
        frame = pd.DataFrame(
            {"value": pd.array([round(self.max_mrr, 4), round(self.max_recall, 4), len(self.never_scoring_questions),
                       len(self.unscorable_components), sum(f.status.ambiguous for f in self.answer_contexts),
                       sum(len(f.status.chunks) > 1 for f in self.answer_contexts),
                       sum(f.status.short for f in self.answer_contexts), len(self.duplicates),
                       len(self.list_components)], dtype=object)},
            index=pd.Index(["max Modified MRR@10 (oracle)", "max Modified Recall@10 (oracle)",
                            "questions that can never score MRR > 0", "components that can never score",
                            "contexts occurring more than once in the chapter", "contexts inside more than one chunk",
                            f"contexts shorter than {SHORT_CONTEXT} chars", "duplicate contexts within a question",
                            "list-typed answer_component"], name="measure"),
        )
        return Table("Ceilings and other flags", frame.astype(object))


def _preview(text: str, width: int = 60) -> str:
    flat = text.replace("\n", "⏎")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def best_cover(component_chunks: Sequence[set[int]]) -> tuple[int, ...]:
    """Fewest chunks that together contain every component that can be found at all (empty sets are skipped)."""
    needed = [s for s in component_chunks if s]
    if not needed:
        return ()
    universe = sorted(set().union(*needed))
    for r in range(1, len(needed) + 1):
        for combo in itertools.combinations(universe, r):
            chosen = set(combo)
            if all(s & chosen for s in needed):
                return combo
    return tuple(sorted({min(s) for s in needed}))  # pragma: no cover - one chunk per component always covers


def best_rank(component_chunks: Sequence[set[int]]) -> int | None:
    """The oracle's MRR rank: size of the best cover, ``None`` when some component can never be found."""
    if not component_chunks or any(not s for s in component_chunks):
        return None
    return len(best_cover(component_chunks))


def audit_question(auditor: Auditor, question: Question, report: AuditReport) -> None:
    """Add one question's findings to ``report``."""
    qid = question.id
    report.question_ids.append(qid)
    comp_chunks: list[set[int]] = []
    seen: set[str] = set()
    for ci, comp in enumerate(question.answer_context):
        chunks: set[int] = set()
        scorable = 0
        if isinstance(comp.answer_component, list):
            report.list_components.append((qid, ci))
        for xi, text in enumerate(comp.context):
            status = auditor.check_context(question.chapter, text)
            report.contexts.append(ContextFinding(qid, ci, xi, status))
            if status.ok:
                scorable += 1
                chunks.update(status.chunks)
            if text in seen:
                report.duplicates.append((qid, text))
            seen.add(text)
        report.components.append(ComponentFinding(qid, ci, len(comp.context), scorable))
        comp_chunks.append(chunks)
    for qi, qc in enumerate(question.question_context):
        for xi, text in enumerate(qc.context):
            status = auditor.check_context(question.chapter, text)
            report.contexts.append(ContextFinding(qid, None, xi, status, question_part=qi))
    report.best_ranks[qid] = best_rank(comp_chunks)
    report.best_covers[qid] = best_cover(comp_chunks)


def audit_benchmark(benchmark: Benchmark, chapters: Mapping[int, Chapter],
                    auditor: Auditor | None = None) -> AuditReport:
    """Audit every question of ``benchmark`` (chapters must include every chapter it uses)."""
    auditor = auditor or Auditor(chapters)
    report = AuditReport()
    for q in benchmark:
        audit_question(auditor, q, report)
    return report


def oracle_run(report: AuditReport, chapters: Mapping[int, Chapter], name: str = "oracle") -> Run:
    """The best run any retriever could return with these chunks: per question, the fewest chunks covering every
    component that can be found. Scoring it gives the audit's ceilings (max MRR@10 and Recall@10)."""
    run = Run(name)
    for qid in report.question_ids:
        run.results[qid] = [chapters[qid.chapter].chunks[i].text for i in report.best_covers.get(qid, ())]
    return run


def check_context(chapter: Chapter, text: str) -> ContextStatus:
    """Verdict for one context string in ``chapter`` (use an :class:`Auditor` to check many)."""
    return Auditor({chapter.number: chapter}).check_context(chapter.number, text)
