"""Two curators' copies reviewed and merged: every disagreement listed, A / B / your own taken, the merged file and
its change log on disk; different benchmark versions and files changed during the review are refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, TextArea

from benchlab.annotations.fastbook.change_log import ChangeLog, log_path_for
from benchlab.annotations.fastbook.review import Review
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.agreement import compare_files
from benchlab.tui.fastbook.context_text_edit import ContextTextEdit
from benchlab.tui.fastbook.curate_confirm import CurateConfirm
from benchlab.tui.fastbook.review_app import build_review_app
from benchlab.tui.fastbook.review_screen import CurateReviewScreen
from tests.conftest import full_data


def _questions(path: Path) -> dict[tuple[int, int], dict[str, Any]]:
    return {(q["chapter"], q["question_number"]): q for q in json.loads(path.read_text(encoding="utf-8"))["questions"]}


@pytest.fixture
def copies(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A and B: chapter 8 questions; B differs in three components (contexts, a flag, one more component)."""
    dataset = full_data("fastbook-benchmark")
    data = json.loads((dataset / "fastbook-benchmark.json").read_text(encoding="utf-8"))
    data["questions"] = [q for q in data["questions"] if q["chapter"] == 8][:6]
    a, b = tmp_path / "ada.json", tmp_path / "bob.json"
    a.write_text(json.dumps(data, indent=4) + "\n", encoding="utf-8")
    q0, q1, q2 = data["questions"][:3]
    q0["answer_context"][0]["context"] = ["look at what products the current user has used or liked"]
    flag = q1["answer_context"][0]["explicit_context"]
    q1["answer_context"][0]["explicit_context"] = "false" if flag == "true" else "true"
    q2["answer_context"].append({"answer_component": "An extra point.", "scoring_type": "simple", "context": [],
                                 "explicit_context": "false", "extraneous_answer": "false"})
    b.write_text(json.dumps(data, indent=4) + "\n", encoding="utf-8")
    return a, b, dataset / "chapters"


async def test_a_review_takes_a_b_and_an_edited_version_and_saves_a_merged_file(
        copies: tuple[Path, Path, Path]) -> None:
    a, b, chapters = copies
    before_a, before_b = a.read_bytes(), b.read_bytes()
    app = build_review_app(a, b, chapters, (), "rita")
    ids = [(item.qid, item.index) for item in app.review.items]
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CurateReviewScreen)
        assert screen.query_one(OptionList).option_count == 3
        shown = str(screen.query_one("#version-b").render()) + str(screen.query_one("#chapter-text").render())
        assert "bob.json" in str(screen.query_one("#version-b").render()) or shown
        await pilot.press("b")  # the first: take B's contexts (then the cursor moves to the next open one)
        await pilot.pause()
        await pilot.press("a")  # the second: keep A's flag
        await pilot.pause()
        await pilot.press("e")  # the third: the reviewer's own version of the extra component
        await pilot.pause()
        assert isinstance(app.screen, ContextTextEdit)
        app.screen.query_one(TextArea).text = "not in the chapter at all, surely"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ContextTextEdit)  # refused: not in the chapter text
        app.screen.query_one(TextArea).text = "collaborative filtering"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen and not app.review.pending
        await pilot.press("ctrl+s")
        await pilot.pause()
    merged = a.with_name("ada.merged.json")
    got, in_a, in_b = _questions(merged), _questions(a), _questions(b)
    (q0, c0), (q1, c1), (q2, c2) = ids
    assert got[q0]["answer_context"][c0] == in_b[q0]["answer_context"][c0]
    assert got[q1]["answer_context"][c1] == in_a[q1]["answer_context"][c1]
    assert got[q2]["answer_context"][c2]["context"] == ["collaborative filtering"]
    assert got[q2]["answer_context"][c2]["answer_component"] == "An extra point."
    log = ChangeLog(log_path_for(merged)).read()
    assert [r.action for r in log] == ["review_take_b", "review_take_a", "review_take_edited", "save"]
    assert all(r.curator == "rita" for r in log)
    assert a.read_bytes() == before_a and b.read_bytes() == before_b  # the curators' files untouched


async def test_undecided_disagreements_are_confirmed_and_a_file_changed_meanwhile_is_not_overwritten(
        copies: tuple[Path, Path, Path]) -> None:
    a, b, chapters = copies
    app = build_review_app(a, b, chapters, (), "rita")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("b")
        b.write_text(b.read_text(encoding="utf-8").replace("An extra point.", "Changed by Bob meanwhile."))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, CurateConfirm)  # two are still open
        await pilot.press("y")
        await pilot.pause()
        assert "changed on disk since the review began" in str(app.screen.query_one("#review-status").render())
    assert not a.with_name("ada.merged.json").exists()


def test_files_of_different_benchmark_versions_are_refused(copies: tuple[Path, Path, Path], tmp_path: Path) -> None:
    a, b, _ = copies
    data = json.loads(b.read_text(encoding="utf-8"))
    data["questions"][0]["question_text"] = "Another question?"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BenchlabError, match="not a version of the same benchmark") as exc:
        Review.open(a, other, "rita")
    assert exc.value.path == other
    with pytest.raises(BenchlabError, match="same file"):
        Review.open(a, a, "rita")


def test_agreement_has_no_nan_for_the_components_that_changed(copies: tuple[Path, Path, Path]) -> None:
    a, b, chapters = copies
    agreement = compare_files(a, b, chapters)
    for table in agreement.tables():
        text = table.frame.astype(str).to_string()
        assert "nan" not in text.lower(), table.title
    differences = agreement.differences_table().frame
    assert differences["span F1"].map(lambda v: v != "n/a").any()  # computed where the chapter text is there
