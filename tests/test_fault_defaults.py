"""Defaults that broke (issue 23 item 11) and the smaller list (item 13): each a one-command check."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_compare_sort import run_cli
from tests.test_export_trials import benchlab


def test_export_trials_worldsense_reads_the_data_set_from_the_plans(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lab"
    benchlab("run", "worldsense", "--participant", "s1", "--simulate", "oracle", "--seed", "3", "--no-instructions",
             "--out", str(out))
    capsys.readouterr()
    assert run_cli(["export", "trials", "worldsense", str(out / "results"), "--out", str(tmp_path / "t.csv")]) == 0
    lines = (tmp_path / "t.csv").read_text().splitlines()
    assert len(lines) > 84 and lines[0].startswith("benchmark,")


def test_export_trials_sort_without_an_answer_column_is_an_error(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lab"
    benchlab("run", "sort", "--participant", "P01", "--simulate", "random", "--trials", "4", "--practice", "0",
             "--seed", "5", "--out", str(out))
    [results] = list((out / "results").glob("*_results.csv"))
    text = results.read_text().splitlines()
    header = text[0].split(",")
    keep = [i for i, name in enumerate(header) if name != "answer"]
    import csv
    import io

    rows = list(csv.reader(io.StringIO(results.read_text())))
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([[r[i] for i in keep] for r in rows])
    results.write_text(buf.getvalue())
    capsys.readouterr()
    assert run_cli(["export", "trials", "sort", str(out / "results")]) == 2
    err = capsys.readouterr().err
    assert "answer" in err and str(results) in err


def test_fastbook_baseline_on_a_copy_finds_chapters_and_keywords_beside_the_original(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from benchlab.data.fastbook import locate

    original = locate.default_benchmark_path()
    copy = tmp_path / "mine" / "copy.json"
    copy.parent.mkdir()
    copy.write_bytes(original.read_bytes())  # the README's copy recipe: the chapters stay beside the original
    run = tmp_path / "run.jsonl"
    assert run_cli(["fastbook", "baseline", "--benchmark", str(copy), "--out", str(run)]) == 0, \
        capsys.readouterr().err
    capsys.readouterr()
    chapters = locate.chapters_dir_for(original)
    assert run_cli(["score", "fastbook", str(run), "--benchmark", str(copy), "--chapters", str(chapters)]) == 0
    assert "MRR" in capsys.readouterr().out


async def test_the_preview_names_the_data_set(tmp_path: Path) -> None:
    from session_helpers import write_testset

    from benchlab.tui.app import BenchlabApp
    from benchlab.tui.screens.session_preview import SessionPreviewScreen
    from tests.test_session_preview import FAST, fill_and_start, open_form, screen_text

    testset = write_testset(tmp_path / "ws", tuples_per_cell=4, sizes=(3,),
                            problems=("Infer.trivial", "Consist.trivial"))
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_form(app, pilot)
        await fill_and_start(app, pilot, {"participant": "P01", "dataset": str(testset), "practice": "2",
                                          "out": str(tmp_path / "out"), "block_size": "4", "tuples_per_cell": "2"})
        assert isinstance(app.screen, SessionPreviewScreen)
        assert ("Data set", str(testset)) in app.screen.rows and str(testset) in screen_text(app)


async def test_the_results_screen_labels_its_two_path_fields() -> None:
    from textual.widgets import Input

    from benchlab.tui.screens.results import ResultsScreen
    from tests.test_session_status import Host

    screen = ResultsScreen()
    async with Host(screen).run_test(size=(150, 42)) as pilot:  # type: ignore[arg-type]
        await pilot.pause()
        assert screen.query_one("#testset", Input).border_title == "Test set"
        assert screen.query_one("#results", Input).border_title == "Results folder"
