"""The curation editor at 80x24 and 120x40: every panel has room and content, the panes take turns in a small
window, the keys overlay keeps the chapter where it was, and selection goes by word, sentence or paragraph."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from benchlab.annotations.fastbook.text_units import extended, unit_span
from benchlab.tui.fastbook.chapter_view import ChapterView
from benchlab.tui.fastbook.curate_app import CurateFastbookApp, build_app
from benchlab.tui.fastbook.editor_screen import FastbookCurateScreen
from benchlab.tui.fastbook.keys_screen import CurateKeysScreen
from tests.conftest import full_data

TEXT = ("# Title\n\nOne common problem. There is a *general* solution, called \"filtering.\" Next one!\n\n"
        "New paragraph here.")


@pytest.fixture
def app(tmp_path: Path) -> CurateFastbookApp:
    dataset = full_data("fastbook-benchmark")
    data = json.loads((dataset / "fastbook-benchmark.json").read_text(encoding="utf-8"))
    data["questions"] = [q for q in data["questions"] if q["chapter"] in (8, 10)]
    path = tmp_path / "fastbook-benchmark.json"
    path.write_text(json.dumps(data, indent=4) + "\n", encoding="utf-8")
    built = build_app(path, dataset / "chapters", (), "ada")
    assert isinstance(built, CurateFastbookApp)
    return built


def visible(widget: Any) -> bool:
    return bool(widget.display) and widget.region.height > 0 and widget.region.width > 0


async def test_at_80x24_every_panel_has_room_and_the_panes_take_turns(app: CurateFastbookApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FastbookCurateScreen) and screen.compact
        for selector in ("#questions", "#question-head", "#items", "#runs"):
            assert visible(screen.query_one(selector)), selector
        assert screen.query_one("#items").region.height >= 5  # the component panel was zero rows high
        assert screen.query_one("#questions").region.height >= 5
        assert not visible(screen.chapter_view)
        await pilot.press("w")
        await pilot.pause()
        assert visible(screen.chapter_view) and screen.chapter_view.region.width >= 70  # was ~20 columns
        assert screen.chapter_view.has_focus and not visible(screen.query_one("#items"))
        await pilot.press("w")
        await pilot.pause()
        assert visible(screen.query_one("#items")) and not visible(screen.chapter_view)


async def test_at_120x40_the_panes_sit_side_by_side_and_the_keys_overlay_keeps_the_chapter_still(
        app: CurateFastbookApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FastbookCurateScreen) and not screen.compact
        assert visible(screen.chapter_view) and visible(screen.query_one("#items"))
        view = screen.chapter_view
        view.scroll_to(y=40, animate=False)
        await pilot.pause()
        before = view.scroll_offset
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, CurateKeysScreen)
        keys = "\n".join(" ".join(row) for row in app.screen.rows)
        for word in ("explicit_context", "extraneous_answer", "Select the word", "Search the chapter"):
            assert word in keys, word  # also the keys the footer has no room for
        assert visible(app.screen.query_one("#keys-table", Static))
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is screen and view.scroll_offset == before  # no reflow, same place in the chapter


async def test_word_sentence_and_paragraph_selection_by_key_and_by_clicks(app: CurateFastbookApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FastbookCurateScreen)
        view: ChapterView = screen.chapter_view
        text = view.text
        at = text.index("collaborative filtering")
        view.select_span(at, at)
        view.focus()
        await pilot.press("W")
        assert view.selected_text == "collaborative"
        await pilot.press("W")
        assert view.selected_text == "collaborative filtering"  # again: the next word added
        view.select_span(at, at)
        await pilot.press("S")
        sentence = view.selected_text
        assert "collaborative filtering" in sentence and sentence[-1] in ".:?!*"
        assert "\n\n" not in sentence and len(sentence) > len("collaborative filtering")
        await pilot.press("P")
        assert sentence in view.selected_text
        # a double click on a word selects it
        view.select_span(at, at)
        await pilot.pause()
        row, column = view.location_of(at + 3)
        offset = view.wrapped_document.location_to_offset((row, column))
        region = view.content_region
        gutter = view.gutter_width
        await pilot.click(ChapterView, offset=(offset.x + gutter + (view.region.width - region.width) // 2,
                                               offset.y - view.scroll_offset.y + 1), times=2)
        await pilot.pause()
        assert view.selected_text == "collaborative"


def test_text_units_trim_and_extend() -> None:
    i = TEXT.index("general")
    assert TEXT[slice(*unit_span(TEXT, i, "word"))] == "general"  # markdown emphasis stays outside
    sentence = unit_span(TEXT, i, "sentence")
    assert TEXT[slice(*sentence)] == 'There is a *general* solution, called "filtering."'
    assert TEXT[slice(*extended(TEXT, *sentence, "sentence"))].endswith("Next one!")
    assert TEXT[slice(*unit_span(TEXT, i, "paragraph"))].startswith("One common problem.")
    assert TEXT[slice(*unit_span(TEXT, TEXT.index("New"), "sentence"))] == "New paragraph here."
    assert unit_span("", 0, "word") == (0, 0)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_editor_snapshot_at_small_and_laptop_sizes(app: CurateFastbookApp, size: tuple[int, int],
                                                   snap_compare: Any) -> None:
    """Every panel with content: questions, the question, its components and contexts, the scores line."""

    async def show_a_context(pilot: Any) -> None:
        await pilot.press("tab", "down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=show_a_context)


async def test_components_are_rewritten_added_and_deleted_with_undo_redo_log_and_save(app: CurateFastbookApp) -> None:
    """A component's answer text is edited, a new component added and one deleted: undoable, logged, saved."""
    from textual.widgets import TextArea

    from benchlab.annotations.fastbook.change_log import ChangeLog, log_path_for
    from benchlab.tui.fastbook.context_text_edit import ContextTextEdit
    from benchlab.tui.fastbook.curate_confirm import CurateConfirm

    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FastbookCurateScreen)
        path = screen.session.path
        qid = screen.qid
        before = screen.question.answer_context[0].answer_component
        n = len(screen.question.answer_context)
        await pilot.press("tab")  # the question panel: component 0 under the cursor
        await pilot.pause()
        item = screen.detail.current
        assert item is not None and item.kind == "component"
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ContextTextEdit)
        app.screen.query_one(TextArea).text = "   "
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ContextTextEdit)  # an empty answer text is refused
        app.screen.query_one(TextArea).text = "It predicts what users will like."
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen.question.answer_context[0].answer_component == "It predicts what users will like."
        await pilot.press("o")  # a new component after component 0
        await pilot.pause()
        app.screen.query_one(TextArea).text = "It uses other users' behaviour."
        await pilot.press("ctrl+s")
        await pilot.pause()
        components = screen.question.answer_context
        assert len(components) == n + 1 and components[1].answer_component == "It uses other users' behaviour."
        assert components[1].context == [] and components[1].explicit_context == "false"
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert len(screen.question.answer_context) == n
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert len(screen.question.answer_context) == n + 1
        screen.detail.query_one("#items").focus()
        await pilot.pause()
        item = screen.detail.current
        assert item is not None and item.kind == "component" and item.slot.index == 1  # the new one
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, CurateConfirm)
        await pilot.press("y")
        await pilot.pause()
        assert len(screen.question.answer_context) == n
        await pilot.press("ctrl+z")  # undo the delete: the new component is back
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = next(q for q in json.loads(path.read_text(encoding="utf-8"))["questions"]
                 if (q["chapter"], q["question_number"]) == qid)
    assert saved["answer_context"][0]["answer_component"] == "It predicts what users will like."
    assert saved["answer_context"][1] == {"answer_component": "It uses other users' behaviour.",
                                          "scoring_type": "simple", "context": [], "explicit_context": "false",
                                          "extraneous_answer": "false"}
    fields = [e.field for e in ChangeLog(log_path_for(path)).read() if e.field]
    assert "answer_context[0].answer_component" in fields and "answer_context[1]" in fields
    assert before != "It predicts what users will like."


def test_component_edits_replay_from_their_change_log_lines() -> None:
    """A crashed session's component edits are re-applied from the log like any other edit."""
    from benchlab.annotations.fastbook.component_edits import (
        AddComponent,
        DeleteComponent,
        SetComponentText,
        add_component,
    )
    from benchlab.annotations.fastbook.edit_replay import edit_from_change
    from benchlab.data.fastbook.benchmark import Question

    question = Question.model_validate({
        "chapter": 1, "question_number": 2, "question_text": "Q?", "gold_standard_answer": "A.",
        "answer_context": [{"answer_component": "A", "scoring_type": "simple", "context": ["x"],
                            "explicit_context": "true", "extraneous_answer": "false"}],
        "question_context": []})
    for edit in (SetComponentText((1, 2), 0, "A", "A2"), add_component((1, 2), 1, "B")):
        change = edit.change()
        replayed = edit_from_change((1, 2), change["field"], change["before"], change["after"], question)
        assert type(replayed) is type(edit)
        replayed.apply(question)
    assert [c.answer_component for c in question.answer_context] == ["A2", "B"]
    delete = DeleteComponent((1, 2), 1, question.answer_context[1].model_dump(mode="json"))
    change = delete.change()
    replayed = edit_from_change((1, 2), change["field"], change["before"], change["after"], question)
    assert isinstance(replayed, DeleteComponent) and not isinstance(replayed, AddComponent)
    replayed.apply(question)
    assert [c.answer_component for c in question.answer_context] == ["A2"]
