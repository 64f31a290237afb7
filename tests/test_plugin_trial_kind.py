"""A plug-in's own trial kind, end to end: the example's ``numbers-scale`` task (a 1-7 rating scale) declares
``trial_kind="rating-scale"`` and its package declares the screen in the ``benchlab.trial_screens`` entry-point
group; benchlab shows it, records key and click answers with their timing, and scores them. Also the group's rules:
the built-in kinds come from benchlab's own declaration, a kind clashing with a built-in is refused naming both
packages, and a task whose kind has no screen gets one line naming the task, the kind and the known kinds."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from textual.pilot import Pilot

from benchlab.annotations.choice.task import ChoiceTask
from benchlab.annotations.session.opening import prepare_session
from benchlab.data.errors import BenchlabError
from benchlab.tui import trial_screens
from benchlab.tui.app import BenchlabApp
from benchlab.tui.screens.end import EndScreen
from benchlab.tui.trial_screens import plugin_problems, trial_screen, trial_screen_kinds, trial_screen_report
from tests.plugin_helpers import forget_loaded_plugins, install_example
from tests.test_app_session import settle

CLI = [sys.executable, "-m", "benchlab.tui.cli"]


@pytest.fixture
def fresh_group() -> Iterator[None]:
    """The groups are loaded once per process: load them again for this test, with what is on the path now."""
    forget_loaded_plugins()
    yield
    forget_loaded_plugins()


@pytest.fixture
def site(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, fresh_group: None) -> Path:
    folder, _ = install_example(tmp_path_factory.mktemp("site"))
    monkeypatch.syspath_prepend(str(folder))
    return folder


@pytest.fixture
def scale(site: Path) -> ChoiceTask:
    task = {ep.name: ep for ep in entry_points(group="benchlab.tasks")}["numbers-scale"].load()
    assert isinstance(task, ChoiceTask) and task.trial_kind == "rating-scale"
    return task


def make_app(task: ChoiceTask, out: Path, **plan: Any) -> BenchlabApp:
    runner = prepare_session(task, participant="P01", out=str(out), seed=3, no_instructions=True, **plan)
    return BenchlabApp(session=(runner, task), guard_s=0.0, min_rt_s=0.0, repeat_window_s=0.0)


def test_the_built_in_kinds_are_declared_like_a_plugins(site: Path) -> None:
    report = trial_screen_report()
    owners = {entry.name: entry.package for entry, _ in report.loaded}
    assert owners == {"choice": "benchlab", "sort": "benchlab", "rating-scale": "benchlab-example-task"}
    assert trial_screen_kinds()[:2] == ["choice", "sort"] and not report.broken


def test_a_kind_clashing_with_a_built_in_is_refused_naming_both_packages(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_group: None) -> None:
    info = tmp_path / "odd_screens-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: odd-screens\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[benchlab.trial_screens]\nchoice = odd_screens:screen\n")
    (tmp_path / "odd_screens.py").write_text("def screen(runner, step, context):\n    raise AssertionError\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    # what `benchlab --help` warns from (plug-ins' entries only, benchlab's own screens not loaded) ...
    [light] = plugin_problems()
    assert light.entry.package == "odd-screens" and "(benchlab)" in light.reason
    assert not trial_screens._loaded.cache_info().currsize
    # ... says what the full load says
    report = trial_screen_report()
    [broken] = report.broken
    assert broken == light
    assert broken.entry.package == "odd-screens"
    assert "(benchlab)" in broken.reason and "odd-screens declares it again" in broken.reason
    assert [e.package for e, _ in report.loaded if e.name == "choice"] == ["benchlab"]


def test_a_kind_without_a_screen_is_one_line_naming_task_kind_and_known_kinds(scale: ChoiceTask,
                                                                             tmp_path: Path) -> None:
    runner = prepare_session(scale, participant="P01", out=str(tmp_path), seed=3, no_instructions=True)
    with pytest.raises(BenchlabError) as caught:
        trial_screen("slider", runner, runner.current, None)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message
    assert "numbers-scale" in message and "'slider'" in message and "choice, sort, rating-scale" in message


async def test_a_rating_session_runs_in_the_app_by_key_and_by_click(scale: ChoiceTask, tmp_path: Path) -> None:
    from benchlab_example_task.rating_screen import RatingTrialScreen

    out = tmp_path / "out"
    app = make_app(scale, out, items_per_stratum=1, practice=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, RatingTrialScreen)
        await pilot.press("8")  # not a point of the scale: counted, not an answer
        await settle(pilot)
        assert isinstance(app.screen, RatingTrialScreen) and not app.screen.answered
        await pilot.press("4")
        await settle(pilot)
        assert isinstance(app.screen, RatingTrialScreen)
        assert await pilot.click("#point-6")
        await settle(pilot)
        assert isinstance(app.screen, EndScreen)
    records = [json.loads(line) for line in (out / "results" / "P01.jsonl").read_text().splitlines()]
    assert [(r["response"], r["input"], r["ignored_keys"]) for r in records] == [("4", "key", 1), ("6", "mouse", 0)]
    for r in records:
        assert r["participant"] == "P01" and r["task"] == "numbers-scale"
        assert isinstance(r["rt_ms"], float) and r["rt_ms"] >= 0
        assert r["response_mono"] >= r["onset_mono"] and r["onset_source"]


def test_the_rating_screen(snap_compare: Any, scale: ChoiceTask, tmp_path: Path) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await pilot.pause()

    assert snap_compare(make_app(scale, tmp_path / "out", practice=0), terminal_size=(100, 24), run_before=before)


def test_run_and_score_the_rating_task_from_the_command_line(site: Path, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
    out = tmp_path / "lab"

    def benchlab(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*CLI, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)

    run = benchlab("run", "numbers-scale", "--participant", "P01", "--simulate", "oracle", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert "10 of 10 scored trials recorded" in run.stdout
    score = benchlab("score", "numbers-scale", str(out / "results"), "--format", "csv")
    assert score.returncode == 0, score.stderr
    table = pd.read_csv(io.StringIO(score.stdout), comment="#").set_index(["who", "stratum"])
    assert table.loc[("P01 (simulated oracle)", "overall"), "accuracy"] == 1.0
    assert table.loc[("first-digit", "one-digit"), "accuracy"] == 1.0  # the bundled model results
    assert table.loc[("first-digit", "more-digits"), "accuracy"] < 1.0
