"""Fastbook review, merge and agreement match components by identity (issue 23 item 3), and ``curate fastbook
--review A B --out A`` is refused at start (item 9)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchlab.annotations.fastbook.review import Review
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.agreement import compare_files
from tests.test_compare_sort import run_cli
from tests.test_fastbook_review import copies  # noqa: F401  (fixture)

NEW = {"answer_component": "A new point.", "scoring_type": "simple", "context": [], "explicit_context": "false",
       "extraneous_answer": "false"}


def _with_insert(b: Path) -> dict[str, Any]:
    """B gets a new component inserted in the middle of a question that has two (the editor's ``o``)."""
    data = json.loads(b.read_text(encoding="utf-8"))
    question = next(q for q in data["questions"][3:] if len(q["answer_context"]) >= 2)  # not one B changed
    question["answer_context"].insert(1, NEW)
    b.write_text(json.dumps(data, indent=4) + "\n", encoding="utf-8")
    return question


def test_a_component_inserted_in_the_middle_is_merged_once_whatever_the_order_of_decisions(
        copies: tuple[Path, Path, Path], tmp_path: Path) -> None:  # noqa: F811
    a, b, _ = copies
    question = _with_insert(b)
    qid = (question["chapter"], question["question_number"])
    review = Review.open(a, b, "rita")
    mine = [n for n, item in enumerate(review.items) if item.qid == qid]
    assert len(mine) == 1 and review.items[mine[0]].a is None  # only the new one differs: nothing shifted
    for n in reversed(range(len(review.items))):  # take B everywhere, last first
        review.decide(n, "B")
    out = review.save(tmp_path / "merged.json")
    merged = {(q["chapter"], q["question_number"]): q for q in json.loads(out.read_text())["questions"]}
    assert merged[qid]["answer_context"] == question["answer_context"]  # B's question, nothing duplicated or lost
    for n in range(len(review.items)):  # now A again, first to last: A's question back exactly
        review.decide(n, "A")
    merged = {(q["chapter"], q["question_number"]): q
              for q in json.loads(review.save(tmp_path / "m2.json").read_text())["questions"]}
    original = {(q["chapter"], q["question_number"]): q for q in json.loads(a.read_text())["questions"]}
    assert merged[qid]["answer_context"] == original[qid]["answer_context"]


def test_agreement_matches_components_by_identity(copies: tuple[Path, Path, Path]) -> None:  # noqa: F811
    a, b, chapters = copies
    question = _with_insert(b)
    agreement = compare_files(a, b, chapters)
    qid = f"chapter {question['chapter']} question {question['question_number']}"
    assert [x for x in agreement.only_in_b if x.startswith(qid)] == [f"{qid} component 1"]
    assert not any(x.startswith(qid) for x in agreement.only_in_a)
    assert all(c.identical for c in agreement.components if str(c.qid) == qid)


def test_review_out_onto_a_curator_s_copy_is_refused_at_start(copies: tuple[Path, Path, Path],  # noqa: F811
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    a, b, _ = copies
    with pytest.raises(BenchlabError, match="must not overwrite"):
        Review.open(a, b, "rita", output=a)
    code = run_cli(["curate", "fastbook", "--review", str(a), str(b), "--out", str(a)])
    assert code == 2 and "must not overwrite" in capsys.readouterr().err
