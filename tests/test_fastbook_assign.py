"""Curation by a team: ``benchlab fastbook assign`` plans, and each curator's queue and progress in the editor.

Plans are made from the bundled synthetic sample (fast); the editor runs on the real benchmark restricted to
chapters 8 and 10 (the smallest), as in test_fastbook_curate_app.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchlab.annotations.fastbook.assignment import read_plan
from benchlab.annotations.fastbook.progress import progress_path_for
from benchlab.data.fastbook.benchmark import QuestionId, load_benchmark
from benchlab.data.fastbook.locate import sample_benchmark_path
from benchlab.tui.fastbook.curate_app import build_app
from benchlab.tui.fastbook.question_list import FastbookQuestionList
from tests.conftest import full_data
from tests.test_fastbook_cli import run_cli
from tests.test_fastbook_curate_app import editor, status

SAMPLE = sample_benchmark_path()


def assign(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str, bench: Path = SAMPLE,
           name: str = "plan.csv") -> tuple[int, str, Path]:
    out = tmp_path / name
    code, _, err = run_cli(["fastbook", "assign", "--benchmark", str(bench), "--out", str(out), *extra], capsys)
    return code, err, out


def test_plan_is_balanced_covers_every_question_and_shares_the_overlap(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark(SAMPLE)
    code, err, out = assign(tmp_path, capsys, "--curators", "ada,bob,cy", "--overlap", "0.3", "--seed", "7")
    assert code == 0, err
    plan = read_plan(out, bench)
    assert plan.curators == ["ada", "bob", "cy"]
    assert {qid for _, qid in plan.rows} == set(bench.ids())  # nobody's question is left out
    per_question = Counter(qid for _, qid in plan.rows)
    assert set(per_question.values()) <= {1, 2}
    assert sum(1 for n in per_question.values() if n == 2) == round(0.3 * len(bench))
    sizes = [len(plan.queue(name)) for name in plan.curators]
    assert max(sizes) - min(sizes) <= 2, sizes  # a tiny sample: a shared question never goes to its owner
    for name in plan.curators:  # a shared question goes to two different curators
        assert len(set(plan.queue(name))) == len(plan.queue(name))


def test_two_curators_get_the_same_load_with_overlap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark(SAMPLE)
    code, err, out = assign(tmp_path, capsys, "--curators", "ada,bob", "--overlap", "0.5", "--seed", "11")
    assert code == 0, err
    plan = read_plan(out, bench)
    ada, bob = (len(plan.queue(name)) for name in ("ada", "bob"))
    assert abs(ada - bob) <= 1 and ada + bob == len(bench) + round(0.5 * len(bench))


def test_same_seed_same_plan_other_seed_other_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--curators", "ada,bob", "--overlap", "0.2")
    first = assign(tmp_path, capsys, *args, "--seed", "1", name="a.csv")[2].read_text(encoding="utf-8")
    again = assign(tmp_path, capsys, *args, "--seed", "1", name="b.csv")[2].read_text(encoding="utf-8")
    other = [assign(tmp_path, capsys, *args, "--seed", str(seed), name=f"c{seed}.csv")[2].read_text(encoding="utf-8")
             for seed in (2, 3, 4)]
    assert first == again
    assert any(text != first for text in other)


@pytest.mark.parametrize(("curators", "overlap"), [("ada,bob,cy", "0.2"), ("ada,bob,cy,dee", "0.3")])
def test_on_the_real_benchmark_every_load_is_within_one(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        curators: str, overlap: str) -> None:
    bench_path = full_data("fastbook-benchmark", "fastbook-benchmark.json")
    code, err, out = assign(tmp_path, capsys, "--curators", curators, "--overlap", overlap, "--seed", "1",
                            bench=bench_path)
    assert code == 0, err
    plan = read_plan(out)
    sizes = [len(plan.queue(name)) for name in plan.curators]
    assert max(sizes) - min(sizes) <= 1, sizes


def test_whole_chapters_stay_with_one_curator_without_overlap(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, err, out = assign(tmp_path, capsys, "--curators", "ada,bob", "--seed", "3")
    assert code == 0, err
    plan = read_plan(out)
    owners: dict[int, set[str]] = {}
    for name, qid in plan.rows:
        owners.setdefault(qid.chapter, set()).add(name)
    assert sum(1 for names in owners.values() if len(names) > 1) <= 1  # only the chapter at the one cut is split


def test_an_existing_plan_is_never_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plan.csv"
    out.write_text("handed out\n", encoding="utf-8")
    code, err, _ = assign(tmp_path, capsys, "--curators", "ada,bob")
    assert code == 2
    assert err.strip() == f"benchlab: error: {out}: already exists; the plan may be in use: choose another --out " \
                          "or delete it first"
    assert out.read_text(encoding="utf-8") == "handed out\n"


def test_bad_curators_and_overlap_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, out = assign(tmp_path, capsys, "--curators", "ada,ada")
    assert code == 2 and "ada given twice" in err and not out.exists()
    code, err, out = assign(tmp_path, capsys, "--curators", "ada", "--overlap", "0.2")
    assert code == 2 and "needs at least two curators" in err and not out.exists()
    code, err, _ = assign(tmp_path, capsys, "--curators", "ada,bob", "--overlap", "1.5")
    assert code == 2 and "--overlap must be at most 1" in err


@pytest.mark.parametrize(("text", "line", "message"), [
    ("who,chapter,question_number\nada,1,1\n", 1, "the first line must be the header"),
    ("curator,chapter,question_number\nada,1,1\nbob,1\n", 3, "expected 3 columns"),
    ("curator,chapter,question_number\nada,1,1\nada,one,2\n", 3, "must be whole numbers"),
    ("curator,chapter,question_number\nada,1,1\n\nada,99,1\n", 4, "no question 99.1 in the benchmark"),
    ("curator,chapter,question_number\nada,1,1\nada,1,1\n", 3, "given to ada twice"),
    ("curator,chapter,question_number\n,1,1\n", 2, "empty curator name"),
])
def test_a_malformed_plan_is_one_error_naming_file_and_line(tmp_path: Path, text: str, line: int,
                                                            message: str) -> None:
    from benchlab.data.errors import BenchlabError

    path = tmp_path / "plan.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BenchlabError) as info:
        read_plan(path, load_benchmark(SAMPLE))
    assert str(info.value).startswith(f"{path}:{line}: ") and message in str(info.value)


# -- the editor with a plan ----------------------------------------------------------------------------------------
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


ADA = [(8, 3), (8, 6), (10, 1)]


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "plan.csv"
    rows = [f"ada,{c},{n}" for c, n in ADA] + ["bob,8,1", "bob,10,1"]
    path.write_text("curator,chapter,question_number\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


async def test_the_editor_shows_the_queue_marks_done_and_keeps_progress_across_restarts(
        bench_file: Path, dataset: Path, plan_file: Path) -> None:
    app = build_app(bench_file, dataset / "chapters", (), "ada", plan=plan_file)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = editor(app)
        questions = screen.query_one(FastbookQuestionList)
        assert questions.listed == ADA  # only ada's queue
        assert screen.qid == ADA[0]
        assert "ada: 0 of 3 done" in status(app)

        await pilot.press("t")  # all questions
        await pilot.pause()
        assert len(questions.listed) == len(screen.session.benchmark) > len(ADA)
        await pilot.press("t")  # back to the queue
        await pilot.pause()
        assert questions.listed == ADA

        await pilot.press("m")
        await pilot.pause()
        assert "ada: 1 of 3 done" in status(app)
        await pilot.press("down", "m")
        await pilot.pause()
        assert screen.qid == ADA[1]
        assert "ada: 2 of 3 done" in status(app)
        await pilot.press("m")  # un-mark
        await pilot.pause()
        assert "ada: 1 of 3 done" in status(app)
        await pilot.press("q")
        await pilot.pause()

    saved = json.loads(progress_path_for(bench_file).read_text(encoding="utf-8"))
    assert saved["curators"]["ada"]["done"] == [list(ADA[0])]

    again = build_app(bench_file, dataset / "chapters", (), "ada", plan=plan_file)
    async with again.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        assert "ada: 1 of 3 done" in status(again)
        assert editor(again).queue is not None and editor(again).queue.done == {QuestionId(*ADA[0])}


def test_a_curator_not_in_the_plan_is_a_clear_error(bench_file: Path, dataset: Path, plan_file: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["curate", "fastbook", "--benchmark", str(bench_file), "--chapters",
                              str(dataset / "chapters"), "--plan", str(plan_file), "--curator", "zed"], capsys)
    assert code == 2 and out == ""
    assert err.strip() == f"benchlab: error: {plan_file}: curator 'zed' is not in the plan (its curators: ada, bob);" \
                          " give one of them as the curator"


async def test_the_launchers_curate_form_opens_the_queue_of_a_plan(
        bench_file: Path, dataset: Path, plan_file: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from textual.widgets import Input

    from benchlab.tui.app import BenchlabApp
    from benchlab.tui.fastbook.curate_open import CurateOpenScreen
    from benchlab.tui.fastbook.editor_screen import FastbookCurateScreen

    monkeypatch.setenv("BENCHLAB_DATA_DIR", str(tmp_path / "user-data"))
    app = BenchlabApp()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        form = CurateOpenScreen()
        await app.push_screen(form)
        await pilot.pause()
        for name, value in (("benchmark", bench_file), ("chapters", dataset / "chapters"), ("curator", "zed"),
                            ("plan", plan_file)):
            form.query_one(f"#f-{name}", Input).value = str(value)
        await pilot.press("ctrl+o")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is form  # zed has no queue in the plan: said beside the field, nothing opened
        assert "curator 'zed' is not in the plan" in str(form.query_one("#note").render())
        form.query_one("#f-curator", Input).value = "ada"
        await pilot.press("ctrl+o")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FastbookCurateScreen) and screen.queue is not None
        assert screen.query_one(FastbookQuestionList).listed == ADA
        assert "ada: 0 of 3 done" in str(screen.query_one("#status").render())


async def test_an_edit_counts_as_touched_not_done(bench_file: Path, dataset: Path, plan_file: Path) -> None:
    app = build_app(bench_file, dataset / "chapters", (), "ada", plan=plan_file)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("tab", "x")  # toggle explicit_context of the first component of ada's first question
        await pilot.pause()
        assert editor(app).session.dirty
        assert "ada: 0 of 3 done" in status(app)
    saved = json.loads(progress_path_for(bench_file).read_text(encoding="utf-8"))
    assert saved["curators"]["ada"] == {"done": [], "touched": [list(ADA[0])]}
