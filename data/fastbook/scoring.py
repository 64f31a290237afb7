"""Modified MRR@k and Modified Recall@k, exactly as the fastbook-benchmark defines them (spec §5).

A component is retrieved by a passage when ``ftfy.fix_text(context)`` is a substring of ``ftfy.fix_text(passage)``
for any of its contexts; only the first ``k`` passages count. Modified MRR is 1 / (rank at which *every*
component has been retrieved), 0 if one never is (so an empty ``context`` forces 0); Modified Recall is the
share of components retrieved. ``explicit_context`` and ``extraneous_answer`` are ignored, like the reference.

The reference loop calls ``fix_text`` on every (context, passage) pair (~0.4 s a run); here each distinct string
is normalised once and cached, so re-scoring after an edit in the curation editor is instant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import ftfy
import pandas as pd

from benchlab.data.fastbook.benchmark import Benchmark, Question, QuestionId
from benchlab.data.fastbook.chapters import Chapter
from benchlab.data.fastbook.runs import Run
from benchlab.data.tables import Table

DEFAULT_K = 10


_MAY_CHANGE = re.compile(r"[^\x20-\x7e\n\t]|&")
"""Characters ftfy's default fixes can act on: non-ASCII, control characters, ``\r`` and HTML entities.
A segment without any of them is returned unchanged by ftfy, so it skips the (slow) call."""


def fix_text(text: str) -> str:
    """Exactly ``ftfy.fix_text(text)`` (default settings), about twice as fast on book chapters.

    It walks the same line segments as ftfy (including the rule that HTML entities stay escaped once a line with
    ``<`` has been seen) and only hands segments ftfy could change to ``ftfy.fix_and_explain``.
    """
    if not _MAY_CHANGE.search(text):
        return text
    config = ftfy.TextFixerConfig(explain=False)
    out: list[str] = []
    pos = 0
    while pos < len(text):
        textbreak = text.find("\n", pos) + 1
        if textbreak == 0:
            textbreak = len(text)
        if textbreak - pos > config.max_decode_length:
            textbreak = pos + config.max_decode_length
        segment = text[pos:textbreak]
        if config.unescape_html == "auto" and "<" in segment:
            config = config._replace(unescape_html=False)
        out.append(ftfy.fix_and_explain(segment, config)[0] if _MAY_CHANGE.search(segment) else segment)
        pos = textbreak
    return "".join(out)


class Normaliser:
    """``ftfy.fix_text`` with a cache: chunks and contexts repeat across questions, runs and edits."""

    def __init__(self) -> None:
        self._cache: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        fixed = self._cache.get(text)
        if fixed is None:
            fixed = fix_text(text)
            self._cache[text] = fixed
        return fixed

    def warm(self, texts: Iterable[str]) -> None:
        for text in texts:
            self(text)


@dataclass(frozen=True)
class QuestionScore:
    """One question's scores; ``first_hits[i]`` is the rank (1-based) that first retrieves component ``i``."""

    id: QuestionId
    mrr: float
    recall: float
    first_hits: tuple[int | None, ...]
    n_passages: int


@dataclass(frozen=True)
class RunScore:
    """A run's per-question scores in benchmark order, with the plain means the benchmark reports."""

    name: str
    k: int
    questions: tuple[QuestionScore, ...]

    @property
    def mrr(self) -> float:
        return _mean([q.mrr for q in self.questions])

    @property
    def recall(self) -> float:
        return _mean([q.recall for q in self.questions])

    @property
    def mrr_sum(self) -> float:
        return sum(q.mrr for q in self.questions)

    @property
    def recall_sum(self) -> float:
        return sum(q.recall for q in self.questions)

    def by_chapter(self) -> dict[int, tuple[float, float, int]]:
        """``{chapter: (mean MRR, mean Recall, questions)}`` in benchmark order."""
        groups: dict[int, list[QuestionScore]] = {}
        for q in self.questions:
            groups.setdefault(q.id.chapter, []).append(q)
        return {ch: (_mean([q.mrr for q in qs]), _mean([q.recall for q in qs]), len(qs)) for ch, qs in groups.items()}

    def question(self, qid: QuestionId | tuple[int, int]) -> QuestionScore:
        for q in self.questions:
            if q.id == tuple(qid):
                return q
        raise KeyError(f"no {QuestionId(*qid)} in this score")


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


class Scorer:
    """Scores runs against a benchmark; keeps normalised strings so repeated scoring costs only substring tests.

    Pass ``chapters`` to normalise every chunk up front (then a run made of chunks needs no ftfy call at all).
    The scorer reads the benchmark live, so an edit is reflected on the next :meth:`score`.
    """

    def __init__(
        self, benchmark: Benchmark, chapters: Mapping[int, Chapter] | None = None, *, k: int = DEFAULT_K
    ) -> None:
        if k < 1:
            raise ValueError("k must be at least 1")
        self.benchmark = benchmark
        self.k = k
        self.fix = Normaliser()
        if chapters is not None:
            self.fix.warm(chunk.text for chapter in chapters.values() for chunk in chapter.chunks)
        self.fix.warm(ctx for q in benchmark for comp in q.answer_context for ctx in comp.context)

    def first_hits(self, question: Question, passages: Sequence[str]) -> tuple[int | None, ...]:
        """For each component, the rank of the first of the top-k passages containing one of its contexts."""
        fixed = [self.fix(p) for p in passages[: self.k]]
        hits: list[int | None] = []
        for comp in question.answer_context:
            contexts = [self.fix(c) for c in comp.context]
            hit = None
            for rank, passage in enumerate(fixed, start=1):
                if any(c in passage for c in contexts):
                    hit = rank
                    break
            hits.append(hit)
        return tuple(hits)

    def score_question(self, question: Question, passages: Sequence[str]) -> QuestionScore:
        hits = self.first_hits(question, passages)
        return QuestionScore(question.id, modified_mrr(hits), modified_recall(hits), hits, len(passages))

    def score(self, run: Run) -> RunScore:
        return RunScore(run.name, self.k, tuple(self.score_question(q, run.passages(q.id)) for q in self.benchmark))


def modified_mrr(first_hits: Sequence[int | None]) -> float:
    """1 / (largest first-hit rank) when every component is retrieved, else 0 (also 0 with no components)."""
    if not first_hits or any(hit is None for hit in first_hits):
        return 0.0
    return 1.0 / max(hit for hit in first_hits if hit is not None)


def modified_recall(first_hits: Sequence[int | None]) -> float:
    """Share of components retrieved (0 for a question without components instead of a division by zero)."""
    if not first_hits:
        return 0.0
    return sum(hit is not None for hit in first_hits) / len(first_hits)


def score_run(benchmark: Benchmark, run: Run, k: int = DEFAULT_K) -> RunScore:
    """One-off scoring (use a :class:`Scorer` to score several runs or to re-score after edits)."""
    return Scorer(benchmark, k=k).score(run)


def score_tables(scores: Sequence[RunScore], *, digits: int = 5) -> list[Table]:
    """Overall and per-chapter tables with one column pair per run (runs side by side)."""
    if not scores:
        return []
    k = scores[0].k
    overall = pd.DataFrame(
        {
            f"MRR@{k}": [round(s.mrr, digits) for s in scores],
            f"Recall@{k}": [round(s.recall, digits) for s in scores],
            "MRR sum": [round(s.mrr_sum, digits) for s in scores],
            "Recall sum": [round(s.recall_sum, digits) for s in scores],
            "questions": [len(s.questions) for s in scores],
            "MRR 0": [sum(q.mrr == 0 for q in s.questions) for s in scores],
        },
        index=pd.Index([s.name for s in scores], name="run"),
    )
    chapters = list(scores[0].by_chapter())
    columns: dict[tuple[str, str], list[float | int]] = {("", "questions"): [scores[0].by_chapter()[ch][2]
                                                                             for ch in chapters]}
    for s in scores:
        per = s.by_chapter()
        columns[(s.name, f"MRR@{k}")] = [round(per[ch][0], digits) for ch in chapters]
        columns[(s.name, f"Recall@{k}")] = [round(per[ch][1], digits) for ch in chapters]
    per_chapter = pd.DataFrame(list(zip(*columns.values(), strict=True)), index=pd.Index(chapters, name="chapter"),
                               columns=pd.MultiIndex.from_tuples(list(columns)))
    return [
        # object dtype: rendering row by row must not turn the integer counts into floats
        Table(f"fastbook-benchmark: Modified MRR@{k} and Modified Recall@{k} (mean over questions)",
              overall.astype(object)),
        Table(f"fastbook-benchmark by chapter (k={k})", per_chapter.astype(object)),
    ]


def question_table(scores: Sequence[RunScore], *, digits: int = 4) -> Table:
    """Per-question MRR / Recall for each run (for ``--per-question``)."""
    k = scores[0].k
    ids = [q.id for q in scores[0].questions]
    columns: dict[str, list[float]] = {}
    for s in scores:
        columns[f"{s.name} MRR@{k}"] = [round(q.mrr, digits) for q in s.questions]
        columns[f"{s.name} Recall@{k}"] = [round(q.recall, digits) for q in s.questions]
    frame = pd.DataFrame(columns, index=pd.MultiIndex.from_tuples(ids, names=["chapter", "question"]))
    return Table(f"fastbook-benchmark per question (k={k})", frame)


def uncertainty_tables(scores: Sequence[RunScore], *, n_boot: int | None = None, seed: int | None = None,
                       digits: int = 4) -> list[Table]:
    """Bootstrap 95% CIs of each run's MRR@k and Recall@k (questions resampled), and paired tests of every other run
    against the first one on the same questions: p from a sign-flip permutation test, which stays valid when two
    runs differ on only a handful of questions (a re-centred bootstrap would call that significant)."""
    # deferred: scipy loads only when `uncertainty_tables` runs (annotations.fastbook.editor_bench loads this module
    # without it)
    from benchlab.data.analysis import stats

    boots = n_boot if n_boot is not None else stats.DEFAULT_BOOT
    rng_seed = seed if seed is not None else stats.DEFAULT_SEED
    k = scores[0].k
    rows = []
    for s in scores:
        mrr = [q.mrr for q in s.questions]
        rec = [q.recall for q in s.questions]
        m_lo, m_hi = stats.bootstrap_ci(mrr, n_boot=boots, seed=rng_seed)
        r_lo, r_hi = stats.bootstrap_ci(rec, n_boot=boots, seed=rng_seed)
        rows.append({"run": s.name, f"MRR@{k}": round(s.mrr, digits),
                     "MRR 95% CI": f"[{m_lo:.{digits}f}, {m_hi:.{digits}f}]", f"Recall@{k}": round(s.recall, digits),
                     "Recall 95% CI": f"[{r_lo:.{digits}f}, {r_hi:.{digits}f}]"})
    tables = [Table(f"Bootstrap 95% CIs over questions (k={k})", pd.DataFrame(rows).set_index("run").astype(object))]
    if len(scores) > 1:
        base = scores[0]
        order = [q.id for q in base.questions]
        diffs = []
        for s in scores[1:]:
            by_id = {q.id: q for q in s.questions}
            if [q.id for q in s.questions] != order:
                raise ValueError("runs must be scored on the same benchmark")
            for metric in ("mrr", "recall"):
                first = [getattr(by_id[qid], metric) for qid in order]
                second = [getattr(q, metric) for q in base.questions]
                test = stats.paired_permutation_test(first, second, n_boot=boots, seed=rng_seed)
                ci = ("n/a" if test.ci_low != test.ci_low
                      else f"[{test.ci_low:.{digits}f}, {test.ci_high:.{digits}f}]")
                diffs.append({"run": s.name, "metric": f"{'MRR' if metric == 'mrr' else 'Recall'}@{k}",
                              f"minus {base.name}": round(test.estimate, digits), "95% CI": ci,
                              "p": stats.format_p(test.p_value), "questions": test.n,
                              "test": f"{test.method}; {test.note}"})
        frame = pd.DataFrame(diffs).set_index(["run", "metric"]).astype(object)
        tables.append(Table(f"Paired differences against {base.name} (same questions)", frame))
    return tables
