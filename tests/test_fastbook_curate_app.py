"""The fastbook context editor driven through the keyboard (Pilot), checking what is shown and what is on disk.

The benchmark under test is the real one restricted to chapters 8 and 10 (the two smallest chapters, to keep
start-up fast), written to a temporary folder; the chapter texts are the real ones.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import Input, OptionList

from benchlab.annotations.fastbook.change_log import ChangeLog, log_path_for
from benchlab.annotations.fastbook.context_edits import AddContext, SetFlag, Slot
from benchlab.annotations.fastbook.curation import CurationSession
from benchlab.data.fastbook.benchmark import load_benchmark
from benchlab.tui.cli import main
from benchlab.tui.fastbook.chapter_view import ChapterView
from benchlab.tui.fastbook.context_text_edit import ContextTextEdit
from benchlab.tui.fastbook.curate_app import CurateFastbookApp, build_app
from benchlab.tui.fastbook.curate_confirm import CurateConfirm
from benchlab.tui.fastbook.diff_screen import CurateDiff
from benchlab.tui.fastbook.editor_screen import FastbookCurateScreen
from benchlab.tui.fastbook.question_detail import DetailItem
from benchlab.tui.fastbook.question_list import FastbookQuestionList
from tests.conftest import full_data

SIZE = (160, 48)
Q1 = (8, 1)  # "What problem does collaborative filtering solve?": one component, one context, one question_context


@pytest.fixture
def dataset() -> Path:
    return full_data("fastbook-benchmark")


@pytest.fixture
def bench_file(dataset: Path, tmp_path: Path) -> Path:
    data = json.loads((dataset / "fastbook-benchmark.json").read_text(encoding="utf-8"))
    data["questions"] = [q for q in data["questions"] if q["chapter"] in (8, 10)]
    path = tmp_path / "fastbook-benchmark.json"
    path.write_text(json.dumps(data, indent=4) + "\n", encoding="utf-8")
    return path


def make_app(bench_file: Path, dataset: Path, runs: tuple[Path, ...] = ()) -> CurateFastbookApp:
    app = build_app(bench_file, dataset / "chapters", runs, "ada")
    assert isinstance(app, CurateFastbookApp)
    return app


def on_disk(path: Path, qid: tuple[int, int]) -> dict[str, Any]:
    for q in json.loads(path.read_text(encoding="utf-8"))["questions"]:
        if (q["chapter"], q["question_number"]) == qid:
            return q  # type: ignore[no-any-return]
    raise AssertionError(qid)


def editor(app: CurateFastbookApp) -> FastbookCurateScreen:
    for screen in app.screen_stack:
        if isinstance(screen, FastbookCurateScreen):
            return screen
    raise AssertionError("editor screen not open")


def shown(app: CurateFastbookApp) -> str:
    """The text on the terminal now (what the curator sees)."""
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(), record=True,
                      force_terminal=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False)


def status(app: CurateFastbookApp) -> str:
    return str(editor(app).query_one("#status").render())


async def search(pilot: Any, text: str) -> None:
    """Select the next match of ``text`` in the chapter by keyboard: / text enter escape."""
    await pilot.press("slash", *text, "enter", "escape")
    await pilot.pause()


async def test_add_edit_delete_undo_redo_and_save_a_context_by_keyboard(bench_file: Path, dataset: Path) -> None:
    original = bench_file.read_text(encoding="utf-8")
    app = make_app(bench_file, dataset)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = editor(app)
        assert screen.qid == Q1
        await pilot.press("tab")  # question list -> the components and contexts of the question
        assert screen.detail.current is not None and screen.detail.current.kind == "component"

        # Add: select a span of the chapter text by keyboard (search, then extend with shift+right) and press a.
        await search(pilot, "latent factors")
        assert isinstance(app.focused, ChapterView)
        await pilot.press(*["shift+right"] * 2)  # extend past ". " -> "latent factors*."
        assert screen.chapter_view.selected_text == "latent factors*."
        await pilot.press("a")
        await pilot.pause()
        assert screen.question.answer_context[0].context[-1] == "latent factors*."
        assert "unsaved" in status(app)
        assert bench_file.read_text(encoding="utf-8") == original  # nothing written before ctrl+s

        # Save: the file has the new context, the previous version is the backup.
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert on_disk(bench_file, Q1)["answer_context"][0]["context"][-1] == "latent factors*."
        assert bench_file.with_name(bench_file.name + ".bak").read_text(encoding="utf-8") == original
        assert "no unsaved changes" in status(app)

        # Edit the new context by typing: a text not in the chapter is refused and the dialog stays open.
        await pilot.press("shift+tab", "shift+tab")  # back to the question panel; the new context is under the cursor
        item = screen.detail.current
        assert item is not None and item.kind == "context" and item.position == 1
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ContextTextEdit)
        await pilot.press("ctrl+e", *"zz", "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ContextTextEdit)
        assert "Not accepted: not found in the text of chapter 8" in str(app.screen.query_one("#error").render())
        await pilot.press("backspace", "backspace", "backspace", "backspace", "ctrl+s")  # "latent factors"
        await pilot.pause()
        assert not isinstance(app.screen, ContextTextEdit)
        assert screen.question.answer_context[0].context[1] == "latent factors"

        # Delete it, then undo twice (delete, edit) and redo once (the edit).
        await pilot.press("d")
        await pilot.pause()
        assert len(screen.question.answer_context[0].context) == 1
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert screen.question.answer_context[0].context[1] == "latent factors"
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert screen.question.answer_context[0].context[1] == "latent factors*."
        assert "no unsaved changes" in status(app)  # back at the saved state
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert screen.question.answer_context[0].context[1] == "latent factors"
        await pilot.press("ctrl+s")
        await pilot.pause()

    saved = on_disk(bench_file, Q1)
    assert saved["answer_context"][0]["context"][1] == "latent factors"
    assert saved["answer_context"][0]["explicit_context"] == "true"
    actions = [(r.action, r.undoes, r.before, r.after) for r in ChangeLog(log_path_for(bench_file)).read()]
    assert [a[0] for a in actions] == ["add_context", "save", "replace_context", "delete_context", "undo", "undo",
                                       "redo", "save"]
    assert actions[2][2:] == ("latent factors*.", "latent factors")
    assert actions[4][1:] == ("delete_context", None, "latent factors")
    record = ChangeLog(log_path_for(bench_file)).read()[0]
    assert (record.curator, record.chapter, record.question_number, record.component) == ("ada", 8, 1, 0)
    # Only the edited question changed: every other question is as it was.
    before = json.loads(original)["questions"]
    after = json.loads(bench_file.read_text(encoding="utf-8"))["questions"]
    assert [q for q in after if (q["chapter"], q["question_number"]) != Q1] == [
        q for q in before if (q["chapter"], q["question_number"]) != Q1
    ]


async def test_flags_and_question_context_by_keyboard(bench_file: Path, dataset: Path) -> None:
    app = make_app(bench_file, dataset)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = editor(app)
        await pilot.press("tab", "x", "n")
        await pilot.pause()
        component = screen.question.answer_context[0]
        assert (component.explicit_context, component.extraneous_answer) == ("false", "true")
        # A new question_context entry named by typing, with the selected chapter text as its context.
        await search(pilot, "latent factors")
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ContextTextEdit)
        await pilot.press(*"latent", "ctrl+s")
        await pilot.pause()
        entry = screen.question.question_context[-1]
        assert (entry.question_component, entry.context) == ("latent", ["latent factors"])
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = on_disk(bench_file, Q1)
    assert saved["answer_context"][0]["explicit_context"] == "false"  # still the string, not a JSON boolean
    assert saved["answer_context"][0]["extraneous_answer"] == "true"
    assert saved["question_context"][-1] == {"question_component": "latent", "context": ["latent factors"]}
    assert list(saved) == ["chapter", "question_number", "question_text", "gold_standard_answer", "answer_context",
                           "question_context"]


async def test_add_needs_a_selection_and_a_span_across_chunks_needs_confirmation(bench_file: Path,
                                                                                 dataset: Path) -> None:
    app = make_app(bench_file, dataset)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = editor(app)
        await pilot.press("tab", "a")
        await pilot.pause()
        assert "Select a span of the chapter text first" in status(app)
        assert len(screen.question.answer_context[0].context) == 1
        chapter = screen.model.chapters[8]
        first, second = chapter.chunks[0], chapter.chunks[1]
        start, end = second.start - 20, first.end + 20  # in neither chunk alone
        screen.chapter_view.select_span(start, end)
        await pilot.pause()
        # The curator is told while selecting, before pressing a.
        assert f"selection {end - start} chars, crosses chunks 0/1" in str(screen.chapter_view.border_subtitle)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, CurateConfirm)
        assert "crosses a chunk boundary" in str(app.screen.query_one("#message").render())
        await pilot.press("n")
        await pilot.pause()
        assert len(screen.question.answer_context[0].context) == 1
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert screen.question.answer_context[0].context[-1] == chapter.text[start:end]
        assert screen.model.check(8, chapter.text[start:end]).state == "crosses"
        rows = screen.query_one(FastbookQuestionList)
        assert "✗ 1" in str(rows.get_row(f"{Q1[0]}:{Q1[1]}")[2])


async def test_save_refuses_a_file_changed_on_disk_until_confirmed(bench_file: Path, dataset: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import benchlab.tui.fastbook.editor_screen as editor_module

    monkeypatch.setattr(editor_module, "DISK_CHECK_SECONDS", 0.05)
    app = make_app(bench_file, dataset)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("tab", "x")
        theirs = bench_file.read_text(encoding="utf-8").replace("collaborative filtering solve?",
                                                                 "collaborative filtering solve? (Bob)")
        bench_file.write_text(theirs, encoding="utf-8")
        await pilot.pause(0.3)
        assert "changed on disk by someone else" in status(app)  # told before trying to save
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, CurateConfirm)
        await pilot.press("n")
        await pilot.pause()
        assert bench_file.read_text(encoding="utf-8") == theirs
        assert "unsaved" in status(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert "no unsaved changes" in status(app)
    assert on_disk(bench_file, Q1)["answer_context"][0]["explicit_context"] == "false"
    assert bench_file.with_name(bench_file.name + ".bak").read_text(encoding="utf-8") == theirs


async def test_problems_filter_search_jump_and_diff(bench_file: Path, dataset: Path) -> None:
    app = make_app(bench_file, dataset)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = editor(app)
        questions = screen.query_one(FastbookQuestionList)
        total = questions.row_count
        await pilot.press("p")
        await pilot.pause()
        with_problems = [q.id for q in screen.session.benchmark if screen.model.problems(q)]
        assert questions.row_count == len(with_problems) < total
        assert questions.listed == with_problems
        await pilot.press("p")
        # Search: repeated enter walks through the matches.
        await pilot.press("slash", *"embedding", "enter")
        first = screen.chapter_view.selected_span()
        await pilot.press("enter")
        second = screen.chapter_view.selected_span()
        assert second[0] > first[0]
        assert screen.chapter_view.selected_text.lower() == "embedding"
        assert "match 2 of" in status(app)
        assert isinstance(app.focused, Input)
        # Jump: enter on a context selects it in the chapter.
        await pilot.press("escape")
        await pilot.press("shift+tab", "shift+tab", "down", "enter")
        await pilot.pause()
        context = screen.question.answer_context[0].context[0]
        assert screen.chapter_view.selected_text == context
        # Diff view of the session's edits.
        await pilot.press("shift+tab", "shift+tab", "x", "v")
        await pilot.pause()
        assert isinstance(app.screen, CurateDiff)
        assert '+                    "explicit_context": "false"' in screen.session.diff()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, FastbookCurateScreen)


async def test_runs_are_rescored_after_an_edit(bench_file: Path, dataset: Path, tmp_path: Path) -> None:
    bench = load_benchmark(bench_file)
    from benchlab.data.fastbook.chapters import load_chapters

    chapters = load_chapters(dataset / "chapters", bench.chapters)
    run = tmp_path / "first10.jsonl"
    # A run that returns the first ten chunks of the chapter for every question.
    run.write_text("".join(
        json.dumps({"chapter": q.chapter, "question_number": q.question_number,
                    "passages": [c.text for c in chapters[q.chapter].chunks[:10]]}) + "\n"
        for q in bench), encoding="utf-8")
    app = make_app(bench_file, dataset, (run,))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = editor(app)
        (row,) = screen.model.score_rows(Q1)
        assert row.q_recall == 1.0 and row.q_mrr is not None and row.q_mrr > 0  # its context is in chunk 0/1
        await pilot.press("tab", "down", "d")  # delete the only context: the question can no longer score
        await pilot.pause()
        (row,) = screen.model.score_rows(Q1)
        assert (row.q_mrr, row.q_recall) == (0.0, 0.0)
        n = len(bench.questions)
        assert row.mrr == pytest.approx(row.mrr_base - row.q_mrr_base / n)  # type: ignore[operator]
        text = shown(app)
        assert "first10" in text and f"0.0000 ({-row.q_mrr_base:+.4f})" in text  # type: ignore[operator]
        await pilot.press("ctrl+z")
        await pilot.pause()
        (row,) = screen.model.score_rows(Q1)
        assert row.mrr == row.mrr_base


async def test_quit_with_unsaved_changes_asks_first(bench_file: Path, dataset: Path) -> None:
    app = make_app(bench_file, dataset)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("tab", "x", "q")
        await pilot.pause()
        assert isinstance(app.screen, CurateConfirm)
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, FastbookCurateScreen)


def test_editor_main_screen_snapshot(bench_file: Path, dataset: Path, snap_compare: Any) -> None:
    app = make_app(bench_file, dataset)

    async def show_a_context(pilot: Any) -> None:
        await pilot.press("tab", "down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=show_a_context)



async def test_use_fix_replaces_a_context_that_crosses_chunks_with_the_part_inside_one(bench_file: Path,
                                                                                      dataset: Path) -> None:
    app = make_app(bench_file, dataset)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = editor(app)
        questions = screen.query_one(FastbookQuestionList)
        assert "✗ 1" in str(questions.get_row("8:27")[2])
        questions.select_question((8, 27))
        await pilot.pause()
        assert screen.qid == (8, 27)
        target = DetailItem("context", Slot("answer", 1), 0)
        await pilot.press("tab", *["down"] * (screen.detail.index_of(target) or 0))
        assert screen.detail.current == target
        old = screen.question.answer_context[1].context[0]
        assert screen.model.check(8, old).state == "crosses"
        await pilot.press("f")
        await pilot.pause()
        new = screen.question.answer_context[1].context[0]
        assert new != old and new in old and screen.model.check(8, new).state == "ok"
        assert "✓" in str(questions.get_row("8:27")[2])


async def test_select_a_span_with_the_mouse_and_add_it(bench_file: Path, dataset: Path) -> None:
    app = make_app(bench_file, dataset)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = editor(app)
        await pilot.press("tab")
        view = screen.chapter_view
        view.scroll_to(y=0, animate=False)
        await pilot.pause()
        gutter = view.gutter_width
        # Drag from the start of line 2 to the 9th cell of line 3 (one cell of padding after the line numbers).
        await pilot.mouse_down(view, offset=(1 + gutter, 2))
        await pilot.hover(view, offset=(1 + gutter + 9, 3))
        await pilot.mouse_up(view, offset=(1 + gutter + 9, 3))
        await pilot.pause()
        selected = view.selected_text
        assert selected == "! [ -e /content ] && pip install -Uqq fastbook\nimport f"
        await pilot.press("a")
        await pilot.pause()
        assert screen.question.answer_context[0].context[-1] == selected


async def test_default_benchmark_opens_read_only(bench_file: Path, dataset: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHLAB_FASTBOOK_BENCHMARK", str(bench_file))
    original = bench_file.read_text(encoding="utf-8")
    app = build_app(None, dataset / "chapters", (), "ada")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "read-only" in status(app)
        await pilot.press("tab", "x", "ctrl+s")
        await pilot.pause()
        assert editor(app).question.answer_context[0].explicit_context == "true"
    assert bench_file.read_text(encoding="utf-8") == original
    assert not log_path_for(bench_file).exists()
    assert not bench_file.with_name(bench_file.name + ".bak").exists()


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda text: text[:-40], "not valid JSON"),
        (lambda text: text.replace('"gold_standard_answer"', '"gold_answer"', 1),
         "chapter 8 question 1: missing field"),
    ],
)
def test_bad_benchmark_file_is_one_clear_error_and_nothing_is_written(
    bench_file: Path, dataset: Path, capsys: pytest.CaptureFixture[str], damage: Any, expected: str
) -> None:
    bad = damage(bench_file.read_text(encoding="utf-8"))
    bench_file.write_text(bad, encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["curate", "fastbook", "--benchmark", str(bench_file), "--chapters", str(dataset / "chapters")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchlab: error: {bench_file}:") and expected in err
    assert bench_file.read_text(encoding="utf-8") == bad
    assert sorted(p.name for p in bench_file.parent.iterdir()) == [bench_file.name]


def test_missing_chapter_and_unknown_run_question_are_clear_errors(
    bench_file: Path, dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "no-chapters"
    empty.mkdir()
    with pytest.raises(SystemExit):
        main(["curate", "fastbook", "--benchmark", str(bench_file), "--chapters", str(empty)])
    assert "chapter 8 not found" in capsys.readouterr().err
    run = tmp_path / "run.jsonl"
    run.write_text('{"chapter": 8, "question_number": 1, "passages": []}\n'
                   '{"chapter": 8, "question_number": 99, "passages": ["x"]}\n', encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["curate", "fastbook", "--benchmark", str(bench_file), "--chapters", str(dataset / "chapters"),
              "--runs", str(run)])
    err = capsys.readouterr().err
    assert f"{run}:2:" in err and "chapter 8 question 99" in err


async def test_unsaved_edits_of_a_crashed_editor_are_offered_back(bench_file: Path, dataset: Path) -> None:
    crashed = CurationSession.open(bench_file, curator="ada")
    crashed.apply(SetFlag(Q1, 0, "extraneous_answer", "false", "true"))
    crashed.apply(AddContext(Q1, Slot("answer", 0), 1, "latent factors"))
    app = make_app(bench_file, dataset)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CurateConfirm)
        assert "2 edits by ada" in str(app.screen.query_one("#message").render())
        await pilot.press("y")
        await pilot.pause()
        screen = editor(app)
        component = screen.question.answer_context[0]
        assert component.extraneous_answer == "true" and component.context[1] == "latent factors"
        assert "unsaved" in status(app)
        await pilot.press("ctrl+z", "ctrl+z")
        await pilot.pause()
        assert screen.question.answer_context[0].extraneous_answer == "false"


async def test_launcher_curate_opens_the_shared_file_read_only_or_a_working_copy_to_edit(
    bench_file: Path, dataset: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from benchlab.tui.app import BenchlabApp
    from benchlab.tui.fastbook.curate_open import CurateOpenScreen
    from benchlab.tui.screens.launcher import LauncherScreen

    (bench_file.parent / "chapters").symlink_to(dataset / "chapters")
    monkeypatch.setenv("BENCHLAB_FASTBOOK_BENCHMARK", str(bench_file))
    monkeypatch.setenv("BENCHLAB_DATA_DIR", str(tmp_path / "user-data"))
    shared = bench_file.read_bytes()
    app = BenchlabApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        menu = app.screen.query_one("#menu", OptionList)
        index = next(i for i in range(menu.option_count) if menu.get_option_at_index(i).id == "entry:curate-fastbook")
        menu.highlighted = index
        await pilot.press("enter")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, CurateOpenScreen)
        await pilot.press("ctrl+o")  # no file chosen: the shared one, browsed
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, FastbookCurateScreen)
        assert not app.screen.session.writable  # the default file is browsed, not edited in place
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is form
        form.query_one("#f-curator", Input).value = "ada"
        await pilot.click("#copy")  # a working copy, opened for editing
        await app.workers.wait_for_complete()
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, FastbookCurateScreen) and editor.session.writable
        copy = tmp_path / "user-data" / "fastbook-curation" / "ada" / bench_file.name
        assert editor.session.path == copy and copy.read_bytes() == shared
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LauncherScreen) and app.is_running
    assert bench_file.read_bytes() == shared  # the shared file untouched


def test_bench_command_times_the_editor_on_a_copy(bench_file: Path, dataset: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    original = bench_file.read_text(encoding="utf-8")
    main(["bench", "curate-fastbook", "--benchmark", str(bench_file), "--chapters", str(dataset / "chapters"),
          "--edits", "3", "--runs", "1", "--format", "csv"])
    out = capsys.readouterr().out
    for step in ("load benchmark", "edit: apply + fsynced log line + re-score + list row", "save (validate",
                 "keypress to idle screen: toggle a flag (headless)"):
        assert step in out
    assert bench_file.read_text(encoding="utf-8") == original
    assert sorted(p.name for p in bench_file.parent.iterdir()) == [bench_file.name]


async def test_ctrl_q_also_asks_before_dropping_unsaved_changes(bench_file: Path, dataset: Path) -> None:
    app = make_app(bench_file, dataset)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("tab", "x", "ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, CurateConfirm)
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0
    assert on_disk(bench_file, Q1)["answer_context"][0]["explicit_context"] == "true"  # quit without saving
