"""The audit finds exactly the problem contexts of spec §8, with the right reason, and judges single contexts."""

from __future__ import annotations

import pytest

from benchlab.data.fastbook.audit import (
    Auditor,
    AuditReport,
    Reason,
    audit_benchmark,
    best_cover,
    best_rank,
    check_context,
    oracle_run,
)
from benchlab.data.fastbook.benchmark import QuestionId, load_benchmark
from benchlab.data.fastbook.chapters import Chapter, Chunk, load_chapters
from benchlab.data.fastbook.scoring import Scorer
from tests.conftest import full_data


@pytest.fixture(scope="module")
def report() -> AuditReport:
    root = full_data("fastbook-benchmark")
    bench = load_benchmark(root / "fastbook-benchmark.json")
    return audit_benchmark(bench, load_chapters(root, bench.chapters))


def test_counts_per_chapter_match_the_spec(report: AuditReport) -> None:
    contexts = report.answer_contexts
    assert len(contexts) == 389
    assert sum(f.status.in_text for f in contexts) == 381
    assert sum(f.status.in_chunk for f in contexts) == 365
    per_chapter = {}
    for ch in (1, 2, 4, 8, 9, 10, 13):
        mine = [f for f in report.problems if f.id.chapter == ch]
        per_chapter[ch] = (sum(not f.status.in_text for f in mine), sum(f.status.in_text for f in mine))
    assert per_chapter == {1: (1, 3), 2: (0, 3), 4: (5, 1), 8: (0, 2), 9: (0, 5), 10: (0, 1), 13: (2, 1)}


def test_each_problem_has_the_spec_reason(report: AuditReport) -> None:
    by_reason: dict[Reason, list[tuple[int, int]]] = {}
    for f in report.problems:
        by_reason.setdefault(f.status.reason, []).append((f.id.chapter, f.id.question_number))
    assert sorted(by_reason[Reason.FENCED_CODE]) == [(1, 7), (4, 2), (4, 6), (4, 6), (13, 4), (13, 15)]
    assert by_reason[Reason.ESCAPED] == [(4, 16)]
    assert by_reason[Reason.LETTER_CASE] == [(4, 20)]
    assert by_reason[Reason.CROSSES_HALVING] == [(2, 15)]
    assert len(by_reason[Reason.CROSSES_CHUNKS]) == 15
    assert (1, 4) in by_reason[Reason.CROSSES_CHUNKS]  # the manual-vs-auto disagreement of spec §6
    assert set(by_reason) == {Reason.FENCED_CODE, Reason.ESCAPED, Reason.LETTER_CASE, Reason.CROSSES_HALVING,
                              Reason.CROSSES_CHUNKS}
    case = next(f for f in report.problems if f.status.reason is Reason.LETTER_CASE)
    assert case.status.suggestion is not None and case.status.suggestion.startswith("This means")
    escaped = next(f for f in report.problems if f.status.reason is Reason.ESCAPED)
    assert escaped.status.suggestion is not None and "—" in escaped.status.suggestion


def test_components_questions_and_ceilings(report: AuditReport) -> None:
    assert sum(c.empty for c in report.components) == 25
    assert sum(not c.empty and not c.can_score for c in report.unscorable_components) == 19
    assert sum(c.can_score and c.n_scorable < c.n_contexts for c in report.components) == 5
    assert len(report.never_scoring_questions) == 35
    assert round(report.max_mrr, 4) == 0.7487 and round(report.max_recall, 4) == 0.9111
    qc = [f for f in report.contexts if f.component is None]
    assert len(qc) == 38 and all(f.status.ok for f in qc)
    assert sum(f.status.ambiguous for f in report.answer_contexts) == 6
    assert sum(len(f.status.chunks) > 1 for f in report.answer_contexts) == 24
    assert len(report.duplicates) == 3 and len(report.list_components) == 6
    assert QuestionId(1, 4) in report.problem_ids()
    summary = report.summary_table().frame
    assert summary.loc["all", "not in text"] == 8 and summary.loc["all", "text, no chunk"] == 16


def _chapter() -> Chapter:
    text = "First part about Cats.\nSecond part with the Dog — here.\n" + "x = 1\nprint(x)\n"
    chunks = [Chunk(1, 0, 0, 30, text[0:30]), Chunk(1, 1, 23, len(text), text[23:])]
    return Chapter(1, text, None, chunks)


def test_check_context_verdicts_for_the_editor() -> None:
    ch = _chapter()
    ok = check_context(ch, "part about Cats")
    assert ok.verdict == "found" and ok.chunks == (0,) and ok.spans == ((6, 21),)
    both = check_context(ch, "part")
    assert both.ambiguous and both.chunks == (0, 1)
    crossing = check_context(ch, "Cats.\nSecond part")
    assert crossing.verdict == "crosses a chunk" and crossing.reason is Reason.CROSSES_CHUNKS
    assert crossing.best_chunk_share is not None and 0.5 < crossing.best_chunk_share < 1
    case = check_context(ch, "part about cats")
    assert case.verdict == "not found" and case.reason is Reason.LETTER_CASE and case.suggestion == "part about Cats"
    escaped = check_context(ch, "Dog \\u2014 here")
    assert escaped.reason is Reason.ESCAPED and escaped.suggestion == "Dog — here"
    fenced = check_context(ch, "```python\nx = 1\nprint(x)\n```\nOutput:\n1")
    assert fenced.reason is Reason.FENCED_CODE and fenced.suggestion == "x = 1\nprint(x)"
    spaced = check_context(ch, "part  about\nCats")
    assert spaced.reason is Reason.WHITESPACE and spaced.suggestion == "part about Cats"
    assert check_context(ch, "   ").reason is Reason.EMPTY_STRING
    missing = check_context(ch, "part about mice")
    assert missing.reason is Reason.NOT_IN_TEXT and "first 11" in missing.detail


def test_auditor_caches_and_rejects_unknown_chapters() -> None:
    auditor = Auditor({1: _chapter()})
    assert auditor.check_context(1, "Cats") is auditor.check_context(1, "Cats")
    with pytest.raises(KeyError):
        auditor.check_context(2, "Cats")


def test_the_oracle_run_scores_exactly_the_audit_ceilings(report: AuditReport) -> None:
    root = full_data("fastbook-benchmark")
    bench = load_benchmark(root / "fastbook-benchmark.json")
    chapters = load_chapters(root, bench.chapters)
    score = Scorer(bench, chapters).score(oracle_run(report, chapters))
    assert score.mrr == pytest.approx(report.max_mrr) and score.recall == pytest.approx(report.max_recall)
    assert sum(q.mrr == 0 for q in score.questions) == 35
    assert max(len(p) for p in oracle_run(report, chapters).results.values()) <= 10


def test_best_rank_is_the_fewest_chunks_covering_all_components() -> None:
    assert best_rank([{1, 2}, {2}, {3}]) == 2
    assert best_rank([{4}]) == 1
    assert best_rank([{1}, set()]) is None
    assert best_rank([]) is None
    assert best_cover([{1}, set(), {1, 5}]) == (1,)
