"""The editor on the bundled synthetic sample: runs on a fresh clone (no ../shared/datasets needed)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from benchlab.data.fastbook import locate
from benchlab.tui.commands.curate import build_app
from benchlab.tui.curate_app import CurateFastbookApp
from benchlab.tui.screens.fastbook_curate import FastbookCurateScreen
from benchlab.tui.widgets.fastbook_question_list import FastbookQuestionList

SIZE = (160, 48)


@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    source = locate.sample_benchmark_path()
    shutil.copyfile(source, tmp_path / source.name)
    shutil.copytree(source.parent / "chapters", tmp_path / "chapters")
    return tmp_path / source.name


def make_app(path: Path) -> CurateFastbookApp:
    return build_app(path, None, (), "ada")


async def test_sample_problems_are_listed_and_an_added_context_is_saved(sample_copy: Path) -> None:
    app = make_app(sample_copy)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FastbookCurateScreen)
        await pilot.press("p")
        listed = screen.query_one(FastbookQuestionList).listed
        assert (1, 3) in listed and (1, 1) not in listed  # the sample's planted problems, not its clean questions
        assert screen.qid == (1, 3)  # the filter moved the cursor to the first question with a problem
        await pilot.press("p", "tab", "slash", *"weakest link", "enter", "escape", "a", "ctrl+s")
        await pilot.pause()
    questions = json.loads(sample_copy.read_text(encoding="utf-8"))["questions"]
    (saved,) = [q for q in questions if (q["chapter"], q["question_number"]) == (1, 3)]
    assert saved["answer_context"][0]["context"][-1] == "weakest link"
    assert sample_copy.with_name(sample_copy.name + ".bak").exists()


def test_the_bundled_sample_itself_opens_read_only() -> None:
    app = build_app(locate.sample_benchmark_path(), None, (), "ada")
    assert not app.session.writable


def test_editor_on_the_sample_snapshot(sample_copy: Path, snap_compare: Any) -> None:
    async def show_a_problem(pilot: Any) -> None:
        await pilot.press("down", "down", "tab", "down")  # chapter 1 question 3: a context crossing chunks
        await pilot.pause()

    assert snap_compare(make_app(sample_copy), terminal_size=SIZE, run_before=show_a_problem)
