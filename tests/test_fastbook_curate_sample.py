"""The editor on the bundled synthetic sample: runs on a fresh clone (no ../shared/datasets needed)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from benchlab.data.fastbook import locate
from benchlab.tui.fastbook.curate_app import CurateFastbookApp, build_app
from benchlab.tui.fastbook.editor_screen import FastbookCurateScreen
from benchlab.tui.fastbook.question_list import FastbookQuestionList

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


def test_following_the_read_only_hint_opens_an_editable_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex

    from benchlab.annotations.fastbook.editor_inputs import load_editor_inputs

    reason = build_app(locate.sample_benchmark_path(), None, (), "ada").session.read_only_reason or ""
    copy_cmd, rest = reason.split("edit a copy: ", 1)[1].split(", then ", 1)
    monkeypatch.chdir(tmp_path)
    for step in copy_cmd.split(" && "):  # cp SRC ./NAME && chmod u+w ./NAME, done as the shell would
        argv = shlex.split(step)
        if argv[0] == "cp":
            shutil.copyfile(argv[1], argv[2])
        else:
            assert argv[:2] == ["chmod", "u+w"]
            Path(argv[2]).chmod(0o644)
    args = shlex.split(rest)
    assert args[0] == "--benchmark" and args[2] == "--chapters"
    session, chapters, _ = load_editor_inputs(Path(args[1]), Path(args[3]), (), "ada")
    assert session.writable and chapters


def test_a_copy_without_its_chapters_names_the_chapters_option(tmp_path: Path) -> None:
    from benchlab.annotations.fastbook.editor_inputs import load_editor_inputs
    from benchlab.data.errors import BenchlabError

    copy = tmp_path / "copytest" / "fastbook-benchmark.json"
    copy.parent.mkdir()
    data = json.loads(locate.sample_benchmark_path().read_text(encoding="utf-8"))
    data["questions"][0]["question_text"] += " (reworded)"  # a copy of no known original: no chapters to fall back on
    copy.write_text(json.dumps(data, indent=4), encoding="utf-8")
    with pytest.raises(BenchlabError, match=r"chapter 1 not found.*--chapters DIR"):
        load_editor_inputs(copy, None, (), "ada")
