"""What the editor shows, computed without a terminal, on the bundled sample (no full data needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchlab.annotations.fastbook.context_edits import AddContext, DeleteContext, Slot
from benchlab.annotations.fastbook.curation import CurationSession
from benchlab.annotations.fastbook.editor_model import CurateModel
from benchlab.data.fastbook import locate
from benchlab.data.fastbook.chapters import load_chapters
from benchlab.data.fastbook.runs import Run


@pytest.fixture
def session(tmp_path: Path) -> CurationSession:
    source = locate.sample_benchmark_path()
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    return CurationSession.open(path, curator="ada")


@pytest.fixture
def model(session: CurationSession) -> CurateModel:
    chapters = load_chapters(locate.sample_benchmark_path().parent, session.benchmark.chapters)
    run = Run("first-two")
    for q in session.benchmark:
        run.results[q.id] = [c.text for c in chapters[q.chapter].chunks[:2]]
    return CurateModel(session.benchmark, chapters, [run])


def test_marks_follow_the_audit(model: CurateModel, session: CurationSession) -> None:
    marks = model.marks(session.benchmark.question((1, 4)))
    fenced = marks[(Slot("answer", 0), 0)]
    assert fenced.state == "missing" and "fenced code" in fenced.reason
    assert fenced.suggestion == 'cut("abcdefgh", 3)'  # the code alone, which is in the chapter
    halving = model.marks(session.benchmark.question((2, 2)))[(Slot("answer", 1), 1)]
    assert halving.state == "crosses" and "halving cut" in halving.reason
    assert model.marks(session.benchmark.question((1, 1)))[(Slot("answer", 0), 0)].state == "ok"


def test_refusal_accepts_only_text_found_in_the_chapter(model: CurateModel) -> None:
    text = model.chapters[1].text
    assert model.refusal(1, text[100:160]) is None
    assert model.refusal(1, "   ") == "the context is empty"
    assert "not found in the text of chapter 1" in (model.refusal(1, "words that are nowhere in it") or "")
    assert "letter case" in (model.refusal(1, text[100:160].upper()) or "")
    assert "not loaded" in (model.refusal(9, "x") or "")


def test_span_feedback_tells_whether_a_selection_fits_one_chunk(model: CurateModel) -> None:
    chunks = model.chapters[1].chunks
    assert model.span_feedback(1, 10, 60) == "selection 50 chars, inside chunk 0"
    start, end = chunks[1].start - 5, chunks[0].end + 5
    assert "crosses chunks 0/1: the scoring can never match it" in model.span_feedback(1, start, end)
    cut = model.chapters[1].halving_cut
    assert "halving cut" in model.span_feedback(1, cut - 50, cut + 50)
    assert model.span_feedback(1, 5, 5) == ""


def test_problems_count_unmatchable_contexts_and_empty_components(model: CurateModel,
                                                                   session: CurationSession) -> None:
    rows = {row.qid: row for row in model.rows()}
    assert rows[(1, 1)].problems == 0
    assert rows[(1, 4)].problems == 1
    q = session.benchmark.question((1, 1))
    session.apply(DeleteContext(q.id, Slot("answer", 0), 0, q.answer_context[0].context[0]))
    row = model.row(q)
    assert row.problems == 1 and row.edited  # an empty component can never score


def test_scores_move_with_edits_and_back_with_undo(model: CurateModel, session: CurationSession) -> None:
    qid = (1, 4)  # component 0: a fenced-code context (never matches) and a good one in chunk 1
    (before,) = model.score_rows(qid)
    assert before.mrr == before.mrr_base and before.q_recall == 1.0
    good = session.benchmark.question(qid).answer_context[0].context[1]
    session.apply(DeleteContext(qid, Slot("answer", 0), 1, good))
    model.invalidate(qid)
    (after,) = model.score_rows(qid)
    assert (after.q_mrr, after.q_recall) == (0.0, 0.5)  # only the unmatchable context is left
    n = len(session.benchmark)
    assert after.recall == pytest.approx(before.recall - 0.5 / n)
    assert after.mrr == pytest.approx(before.mrr - (before.q_mrr or 0) / n)
    session.apply(AddContext(qid, Slot("answer", 0), 1, model.chapters[1].chunks[0].text[50:120]))
    model.invalidate(qid)
    assert model.score_rows(qid)[0].q_recall == 1.0  # a context inside the first passage is found again
    session.undo()
    session.undo()
    model.invalidate(qid)
    assert model.score_rows(qid) == [before]
