"""The plug-in kit checks its inputs, the example ships its data, and ``compare --format csv`` reads into pandas.

* An items file is refused when it loads, naming file and line, for an item with more than 9 options (the keys 1..9
  answer; before, such an item scored and simulated and then crashed a real session) and for a stratum named like a
  row or column of the tables (``overall`` was shown twice by ``score`` and dropped by ``compare``).
* Model answers outside the item's options and repeated answers are read (as before) but warned about: one stderr
  line per kind and file, with the count and the first line.
* Practice items come from outside the scored ones: when the defaults do not fit the file, one line says which
  number of items per stratum does.
* The example installs non-editably (its items are package data) and ``benchlab score numbers`` runs on that copy.
* Several tables as ``--format csv`` are one CSV with a ``table`` column; one table stays ``# title`` + the table.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from benchlab.annotations.choice.task import make_choice_task
from benchlab.annotations.options import OptionError
from benchlab.annotations.session.opening import prepare_session
from benchlab.annotations.simulate import SimulatedParticipant, simulate_session
from benchlab.data.choice.items import RESERVED_STRATA, load_choice_items
from benchlab.data.errors import BenchlabError
from benchlab.data.tables import TABLE_COLUMN
from tests.plugin_helpers import EXAMPLE, PACKAGE, example_env, run_benchlab

ITEMS = EXAMPLE / PACKAGE / "items.jsonl"


def write_items(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def item(i: int, stratum: str = "s", options: int = 2) -> dict[str, object]:
    return {"id": f"{stratum}-{i}", "text": "t", "options": [str(k) for k in range(1, options + 1)], "gold": "1",
            "stratum": stratum}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return example_env(tmp_path_factory.mktemp("site"))


benchlab = run_benchlab


def test_an_item_with_ten_options_is_refused_naming_file_and_line(env: dict[str, str], tmp_path: Path) -> None:
    bad = write_items(tmp_path / "bad.jsonl", [item(1), item(2), item(3, options=10)])
    with pytest.raises(BenchlabError) as caught:
        load_choice_items(bad)
    assert (caught.value.path, caught.value.line) == (bad, 3) and "at most 9 options" in str(caught.value)
    score = benchlab(env, tmp_path, "score", "numbers", str(ITEMS.parent / "model_results.jsonl"), "--items",
                     str(bad))
    assert score.returncode == 2 and score.stdout == ""
    assert score.stderr.strip().splitlines() == [f"benchlab: error: {bad}:3: field 'options': Value error, an item "
                                                 "has at most 9 options (answered with the keys 1..9); this one has 10"]


@pytest.mark.parametrize("name", [*RESERVED_STRATA, "Overall"])
def test_a_stratum_named_like_a_table_row_is_refused_naming_file_and_line(name: str, tmp_path: Path) -> None:
    bad = write_items(tmp_path / "bad.jsonl", [item(1), item(2, stratum=name)])
    with pytest.raises(BenchlabError, match="name the stratum otherwise") as caught:
        load_choice_items(bad)
    assert (caught.value.path, caught.value.line) == (bad, 2)


def test_reserved_strata_cover_the_overall_row_of_the_comparison() -> None:
    from benchlab.data.analysis.pipeline import OVERALL

    assert OVERALL in RESERVED_STRATA and TABLE_COLUMN in RESERVED_STRATA


def test_model_answers_outside_the_options_and_repeats_are_warned_once_per_kind(env: dict[str, str],
                                                                                  tmp_path: Path) -> None:
    models = tmp_path / "models.jsonl"
    lines = [{"item": "int-01", "response": "71", "model": "m"}, {"item": "int-02", "response": "305.", "model": "m"},
             {"item": "int-03", "response": "B", "model": "m"}, {"item": "int-01", "response": "17", "model": "m"},
             {"item": "int-04", "response": "", "model": "m"}]
    models.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    score = benchlab(env, tmp_path, "score", "numbers", str(models), "--no-models", "--format", "csv")
    assert score.returncode == 0, score.stderr
    assert score.stderr.strip().splitlines() == [
        f"benchlab: warning: {models}: 2 model answers are not one of their item's options (they count as wrong) "
        "(first on line 2)",
        f"benchlab: warning: {models}: 1 answers repeat an item the same participant or model already answered "
        "(only the first counts) (first on line 4)"]
    table = pd.read_csv(io.StringIO(score.stdout), comment="#").set_index(["who", "stratum"])
    assert table.loc[("m", "overall"), "n"] == 4 and table.loc[("m", "overall"), "correct"] == 1  # first answer kept


def test_practice_that_does_not_fit_says_which_items_per_stratum_does(tmp_path: Path) -> None:
    items = write_items(tmp_path / "eight.jsonl", [item(i, s) for s in ("x", "y") for i in range(8)])
    task = make_choice_task(name="eight", title="Eight", description="d", items=items, items_per_stratum=8,
                            practice=2)
    with pytest.raises(OptionError) as caught:
        prepare_session(task, participant="P1", out=str(tmp_path / "a"), simulate="oracle")
    assert caught.value.field == "practice"
    assert str(caught.value) == ("practice trials must be at most 0: 16 items (8 in each of 2 strata) are scored and "
                                 "only 0 are left for practice; items per stratum 7 leaves room for 2")
    runner = prepare_session(task, participant="P1", out=str(tmp_path / "b"), simulate="oracle", items_per_stratum=7)
    simulate_session(runner, SimulatedParticipant("oracle"))
    assert len((tmp_path / "b" / "results" / "P1.jsonl").read_text().splitlines()) == 14
    assert len((tmp_path / "b" / "practice" / "P1.jsonl").read_text().splitlines()) == 2


def test_the_example_installed_non_editably_ships_its_items(tmp_path: Path) -> None:
    target = tmp_path / "site"
    # built from a copy: pip writes build/ and .egg-info beside the sources, and the checkout must stay as it is
    # (benchlab's help and replay caches stamp every .py file under it, so other tests running meanwhile would see
    # benchlab's code change)
    source = shutil.copytree(EXAMPLE, tmp_path / "source", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--no-index", "--target", str(target), str(source)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert pip.returncode == 0, pip.stderr
    assert (target / PACKAGE / "items.jsonl").is_file() and (target / PACKAGE / "scale_items.jsonl").is_file()
    env = dict(os.environ, PYTHONPATH=str(target))
    for task in ("numbers", "numbers-scale"):
        score = benchlab(env, tmp_path, "score", task, "--format", "csv")
        assert score.returncode == 0, score.stderr
        assert str(target) in subprocess.run(
            [sys.executable, "-c", f"import {PACKAGE}; print({PACKAGE}.__file__)"], env=env, capture_output=True,
            text=True, cwd=tmp_path).stdout  # the installed copy, not the checkout
        frame = pd.read_csv(io.StringIO(score.stdout), comment="#")
        assert len(frame) > 0 and set(frame["kind"]) == {"model"}


def test_compare_csv_of_several_tables_reads_into_one_frame(env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "lab"
    run = benchlab(env, tmp_path, "run", "numbers", "--participant", "P01", "--simulate", "oracle", "--out", str(out))
    assert run.returncode == 0, run.stderr
    compare = benchlab(env, tmp_path, "compare", "numbers", str(out / "results"), "--include-simulated", "--boot",
                       "200", "--format", "csv")
    assert compare.returncode == 0, compare.stderr
    frame = pd.read_csv(io.StringIO(compare.stdout))
    assert frame.columns[0] == "table"
    tables = {title: rows.dropna(axis=1, how="all") for title, rows in frame.groupby("table", sort=False)}
    assert len(tables) >= 5
    accuracy = next(rows for title, rows in tables.items() if "accuracy per row" in title)
    cells = accuracy.set_index(["who", "condition"])
    assert cells.loc[("P01", "overall"), "accuracy"] == 1.0 and cells.loc[("P01", "overall"), "simulated"] == "oracle"
    assert cells.loc[("more-digits", "decimals"), "accuracy"] == 0.0
    # the model answered all 12 decimals items; scored on the 8 the person answered (same items, issue 20)
    assert cells.loc[("more-digits", "decimals"), "items"] == 8
    only = benchlab(env, tmp_path, "compare", "numbers", str(out / "results"), "--boot", "200", "--format", "csv",
                    "--only", "accuracy")
    assert only.stdout.startswith("# Which number is larger: accuracy per row")  # one table: as it always was


def test_score_cuts_each_model_to_the_items_people_answered_unless_all_items(env: dict[str, str],
                                                                           tmp_path: Path) -> None:
    out = tmp_path / "lab"
    run = benchlab(env, tmp_path, "run", "numbers", "--participant", "P01", "--simulate", "oracle", "--out", str(out))
    assert run.returncode == 0, run.stderr
    answered = {json.loads(line)["item"] for line in (out / "results" / "P01.jsonl").read_text().splitlines()
                if not json.loads(line).get("practice")}

    def model_n(*extra: str) -> tuple[int, str]:
        score = benchlab(env, tmp_path, "score", "numbers", str(out / "results"), "--format", "csv", *extra)
        assert score.returncode == 0, score.stderr
        rows = pd.read_csv(io.StringIO(score.stdout), comment="#").set_index(["who", "stratum"])
        return int(rows.loc[("more-digits", "overall"), "n"]), score.stderr

    shared, warned = model_n()
    assert shared == len(answered) < 24  # the bundled model answered all 24 items; scored on the person's
    assert "more-digits" in warned and "left out" in warned
    assert model_n("--all-items")[0] == 24


def test_compare_worldsense_csv_reads_into_one_frame(capsys: pytest.CaptureFixture[str]) -> None:
    from benchlab.tui.cli import main

    try:
        main(["compare", "worldsense", "--boot", "200", "--format", "csv"])
    except SystemExit as exc:
        assert not exc.code
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    titles = list(dict.fromkeys(frame["table"]))
    assert len(titles) >= 5 and all(title.startswith("WorldSense") for title in titles)
    accuracy = frame[frame["table"] == titles[0]].dropna(axis=1, how="all")
    assert {"who", "condition", "accuracy"} <= set(accuracy.columns) and accuracy["accuracy"].between(0, 1).all()
