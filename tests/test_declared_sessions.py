"""Sessions are declared once (``annotations/<bench>/task.py``): the ``run`` command's flags, its errors, its
resume warnings and the trial screen all come from the task declaration, with no per-task CLI or app code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from session_helpers import write_testset
from textual.pilot import Pilot

from benchlab.annotations.options import OptionError, option
from benchlab.annotations.session.opening import prepare_session
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.sort.session import SortPlanOptions
from benchlab.annotations.task import SessionOptions
from benchlab.annotations.worldsense.plan import WorldSensePlanOptions
from benchlab.annotations.worldsense.task import WorldSenseTask
from benchlab.tui.app import BenchlabApp
from benchlab.tui.cli import main
from benchlab.tui.commands.run import run_command
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen


class WarmupPlanOptions(WorldSensePlanOptions):
    """A plan model with one more field, declared the one way fields are declared."""

    warmup: int = option(0, label="Warm-up trials", ge=0, problem="cannot be negative",
                         help="Unscored warm-up trials before the practice.")


class WarmupTask(WorldSenseTask):
    """A task built on WorldSense's session whose plan declares ``warmup`` (a plug-in needs no app or CLI code)."""

    name = "warmup-ws"
    title = "Warm-up WorldSense"
    plan_options = WarmupPlanOptions

    def planned_values(self, plan: SessionPlan) -> dict[str, Any]:
        return {**super().planned_values(plan), "warmup": 5}


@pytest.fixture(scope="module")
def testset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_testset(tmp_path_factory.mktemp("ws"), tuples_per_cell=4, sizes=(3,))


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(["run", *args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_field_added_to_a_plan_model_is_a_flag_with_its_help_and_default() -> None:
    command = run_command(WarmupTask())
    result = CliRunner().invoke(command, ["--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "--warmup INTEGER" in result.output and "Unscored warm-up trials before the practice." in result.output
    assert "[default: 0" in result.output
    # the data-set flag is the task's (-t/--testset), and the other session options are there too
    assert "-t, --testset PATH" in result.output and "--participant TEXT" in result.output
    assert "--simulate [random|oracle|biased]" in result.output
    bad = CliRunner().invoke(command, ["--participant", "P1", "--warmup", "-2", "--simulate", "oracle"])
    assert "--warmup cannot be negative" in str(bad.exception)


def test_the_builtin_run_commands_keep_their_flags(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "sort", "--help")
    assert code == 0
    for flag in ("--data", "-e, --excerpt-length", "-s, --segment-length", "--condition [stm|ltm]", "--delay",
                 "--min-reading", "--max-reading", "--trials", "--simulate [random|oracle|always-a]"):
        assert flag in out
    assert "--no-feedback" not in out  # SORT always gives practice feedback, as before


def test_an_option_error_names_the_field_in_the_library_and_the_flag_on_the_command_line(
        testset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(OptionError) as caught:
        WorldSensePlanOptions(tuples_per_cell=1)
    assert caught.value.field == "tuples_per_cell" and "--" not in str(caught.value)
    assert str(caught.value).startswith("Tuples per (problem, size) cell must be at least 2: with one tuple")
    code, _, err = run_cli(capsys, "worldsense", "-t", str(testset), "--participant", "P1", "--out", str(tmp_path),
                           "--tuples-per-cell", "1", "--simulate", "oracle")
    assert code == 2 and err.startswith("benchlab: error: --tuples-per-cell must be at least 2: with one tuple")
    with pytest.raises(OptionError) as caught:
        SortPlanOptions(delay_s=-1)
    assert caught.value.field == "delay_s" and "--delay" not in str(caught.value)
    code, _, err = run_cli(capsys, "sort", "--participant", "P1", "--out", str(tmp_path), "--delay", "-1",
                           "--simulate", "oracle")
    assert code == 2 and "benchlab: error: --delay cannot be negative" in err
    # a form (or any caller) gets the same error from plain values, naming the field to highlight
    with pytest.raises(OptionError) as caught:
        prepare_session(WarmupTask(), participant="P1", dataset=str(testset), warmup="many")
    assert caught.value.field == "warmup" and "whole number" in str(caught.value)


def test_resume_warnings_come_from_the_declaration(testset: Path, tmp_path: Path) -> None:
    """The warned options are the task's ``planned_values`` fields, named by their declared flags."""
    command = run_command(WarmupTask())
    base = ["-t", str(testset), "--participant", "P01", "--out", str(tmp_path / "out"), "--simulate", "oracle"]
    first = CliRunner().invoke(command, [*base, "--seed", "4"])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(command, [*base, "--resume", "--warmup", "3", "--seed", "4"])
    assert again.exit_code == 0, again.output
    (line,) = [x for x in again.stderr.splitlines() if x.startswith("benchlab: warning:")]
    assert "--warmup 3 (plan: 5)" in line and "--seed" not in line
    assert "human-P01_session-1.plan.json" in line


async def test_a_choice_task_needs_no_app_code(testset: Path, tmp_path: Path) -> None:
    """The app shows a ``choice`` task's trial from its session's ``prompt`` alone (no per-task screen code)."""
    task = WarmupTask()
    runner = prepare_session(task, dataset=str(testset), participant="P01", out=str(tmp_path / "out"), seed=2,
                             practice=0, no_instructions=True)
    prompt = runner.task_session.prompt(runner.current.item_id)  # type: ignore[attr-defined]
    app = BenchlabApp(session=(runner, task), guard_s=0.0, min_rt_s=0.0, repeat_window_s=0.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChoiceTrialScreen)
        assert screen.text == prompt.text and screen.options == prompt.options
        await pilot.press("1")
        await settle(pilot)
    assert runner.recorded_main == 1


def test_session_options_are_shared_and_checked_before_anything_runs() -> None:
    assert issubclass(WarmupTask.session_options, SessionOptions)
    with pytest.raises(OptionError) as caught:
        prepare_session(WarmupTask(), participant="P1", sim_delay=-1)
    assert caught.value.field == "sim_delay" and str(caught.value).endswith("cannot be negative")


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


def test_the_command_line_starts_without_loading_the_data_stack() -> None:
    """Declaring every task (to build ``benchlab run NAME``) must not import pandas: every CLI call would pay."""
    import subprocess
    import sys

    probe = "import sys; import benchlab.tui.cli; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_an_error_about_other_fields_names_them_in_the_library_and_by_flag_on_the_cli() -> None:
    from benchlab.annotations.sort.session import one_configuration
    from benchlab.annotations.sort.task import TASK as SORT
    from benchlab.tui.commands.declared import reworded

    error = one_configuration("e250/s20, e1000/s20")
    assert error.field == "excerpt_length"  # the form highlights the excerpt length
    assert "(pass excerpt length and segment length)" in str(error) and "--" not in str(error)
    cli = str(reworded(error, SORT.session_options, SORT.plan_options))
    assert cli == ("a SORT session uses one configuration; the selection has e250/s20, e1000/s20 (pass "
                   "--excerpt-length and --segment-length)")
