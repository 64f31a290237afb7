"""Study files: a lab day written once (benchmark, options, arms, assignment rule), checked with file and line,
participants assigned by the rule and looked up again on resume, a changed study file flagged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from benchlab.annotations.registry import registry
from benchlab.annotations.study import load_study
from benchlab.data.errors import BenchlabError
from benchlab.tui.app import BenchlabApp
from benchlab.tui.cli import main
from benchlab.tui.experimenter_keys import DEFAULT_KEYS

STUDY = """\
title = "Memory for order"
benchmark = "sort"

[options]
trials = 4
practice = 0

[[arms]]
name = "stm"
options = { condition = "stm" }

[[arms]]
name = "ltm"
options = { condition = "ltm" }

[assignment]
rule = "{rule}"
"""


def write_study(folder: Path, text: str | None = None, rule: str = "balanced") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "study.toml").write_text(text if text is not None else STUDY.replace("{rule}", rule))
    return folder


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run ``benchlab`` in-process as a user would: exit code, and stdout with stderr."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def start(folder: Path, participant: str, session: str = "1") -> str:
    """Assign and record as a started session does (no session run needed to test the rule)."""
    study = load_study(folder, registry())
    assignment = study.assign(participant, session)
    study.record(assignment)
    return assignment.arm


def test_init_writes_a_commented_study_file_and_a_schema_that_knows_the_options(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(capsys, "study", "init", str(tmp_path / "s"), "--benchmark", "sort")
    assert code == 0 and "benchlab run --study" in out
    text = (tmp_path / "s" / "study.toml").read_text()
    assert text.count("#") > 10 and 'benchmark = "sort"' in text and "[[arms]]" in text
    schema = json.loads((tmp_path / "s" / "study.schema.json").read_text())
    options = schema["properties"]["options"]
    assert "condition" in options["properties"] and options["additionalProperties"] is False
    assert "participant" not in options["properties"]  # chosen per session, never in the file
    study = load_study(tmp_path / "s", registry())  # the template itself is a valid study
    assert [a.name for a in study.spec.arms] == ["stm", "ltm"]
    code, out = cli(capsys, "study", "init", str(tmp_path / "s"))
    assert code == 2 and "already here" in out  # never overwritten


def test_balanced_assignment_by_arrival_and_the_same_arm_again_on_resume(tmp_path: Path) -> None:
    folder = write_study(tmp_path / "s")
    assert [start(folder, p) for p in ("P01", "P02", "P03", "P04")] == ["stm", "ltm", "stm", "ltm"]
    study = load_study(folder, registry())
    again = study.assign("P02", "1", resume=True)
    assert again.arm == "ltm" and not again.new and again.plan_options.condition == "ltm"
    study.record(again)
    assert len(study.assignments()) == 4  # looked up, not recorded twice
    assert start(folder, "P02", "2") == "ltm"  # a between-participant arm: later sessions stay in it


def test_latin_square_rotates_the_arms_over_sessions_and_participants(tmp_path: Path) -> None:
    folder = write_study(tmp_path / "s", rule="latin-square")
    assert [start(folder, "P01", s) for s in ("1", "2")] == ["stm", "ltm"]
    assert [start(folder, "P02", s) for s in ("1", "2")] == ["ltm", "stm"]


def test_a_participants_file_decides_the_arms_and_its_mistakes_are_named(tmp_path: Path) -> None:
    text = STUDY.replace("{rule}", "participants-file") + 'participants_file = "people.csv"\n'
    folder = write_study(tmp_path / "s", text)
    (folder / "people.csv").write_text("participant,arm\nP01,ltm\nP02,stm\n")
    assert start(folder, "P01") == "ltm" and start(folder, "P02") == "stm"
    with pytest.raises(BenchlabError, match="'P09'.*not in the participants file"):
        start(folder, "P09")
    (folder / "people.csv").write_text("participant,arm\nP01,ltm\nP01,stm\n")
    with pytest.raises(BenchlabError, match="listed twice") as exc:
        load_study(folder, registry())
    assert exc.value.line == 3
    (folder / "people.csv").write_text("participant,arm\nP01,xyz\n")
    with pytest.raises(BenchlabError, match="'xyz' is not an arm") as exc:
        load_study(folder, registry())
    assert exc.value.line == 2


@pytest.mark.parametrize(("change", "message", "line"), [
    (("trials = 4", "trails = 4"), "trails is not an option of sort", 5),
    (("trials = 4", "trials = -4"), "arm stm: Scored trials", 5),
    (('options = { condition = "ltm" }', 'options = { condition = "mid" }'), "arm ltm: Condition", 14),
    (('title = "Memory for order"', 'title = "Memory for order"\ncolour = "red"'), "colour: unknown key", 2),
    (("practice = 0", "participant = \"P01\""), "participant is chosen when a session starts", 6),
    (("[options]", "[options"), "not valid TOML", 4),
    (('benchmark = "sort"', 'benchmark = "sorting"'), "benchmark 'sorting' is not one of", 2),
])
def test_a_wrong_study_file_is_refused_naming_file_and_line(tmp_path: Path, change: tuple[str, str], message: str,
                                                           line: int, capsys: pytest.CaptureFixture[str]) -> None:
    text = STUDY.replace("{rule}", "balanced").replace(*change)
    folder = write_study(tmp_path / "s", text)
    code, out = cli(capsys, "study", "show", str(folder))
    assert code == 2 and message in out and f"study.toml:{line}:" in out and "Traceback" not in out


def test_run_study_pilots_sessions_without_taking_people_s_places_and_flags_a_changed_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    code, out = cli(capsys, "run", "--study", str(folder), "--participant", "X1", "--simulate", "oracle")
    assert code == 0, out
    assert "arm stm" in out and "4 of 4 scored trials recorded" in out
    assert (folder / "results" / "250-s20-human_X1_results.csv").exists()  # the study folder's own output
    [record] = load_study(folder, registry()).assignments()
    assert record["simulated"] == "oracle" and len(record["study_sha256"]) == 64 and record["plan"]
    assert start(folder, "P01") == "stm"  # the pilot took no place in the balance
    (folder / "study.toml").write_text(STUDY.replace("{rule}", "balanced").replace("trials = 4", "trials = 6"))
    code, out = cli(capsys, "study", "show", str(folder))
    assert code == 0 and "changed after sessions started (2 sessions" in out
    assert "1 simulated pilot session (not counted)" in out
    code, out = cli(capsys, "run", "--study", str(folder))
    assert code == 2 and "--participant is needed with --study" in out


# -- a lab day from the launcher ----------------------------------------------------------------------------------

LAB_DAY = """\
title = "Order memory, lab day"
benchmark = "sort"

[options]
trials = 4
practice = 0
no_instructions = true

[[arms]]
name = "stm"
options = { condition = "stm" }

[[arms]]
name = "ltm"
options = { condition = "ltm" }
"""


async def _participant_from_launcher(app: BenchlabApp, pilot: Pilot[Any], folder: Path, participant: str, *,
                                     resume: bool = False, answer: int = 4) -> str:
    """Open study -> folder and id -> preview -> the participant answers ``answer`` trials; the preview's arm."""
    from textual.widgets import Checkbox, Input, OptionList, Static

    from benchlab.tui.screens.launcher import LauncherScreen
    from benchlab.tui.screens.session_preview import SessionPreviewScreen
    from benchlab.tui.screens.study_open import StudyOpenScreen
    from benchlab.tui.sort.trial_screen import SortTrialScreen

    assert isinstance(app.screen, LauncherScreen)
    menu = app.screen.query_one(OptionList)
    menu.highlighted = menu.get_option_index("entry:open-study")
    await pilot.press("enter")
    await pilot.pause()
    form = app.screen
    assert isinstance(form, StudyOpenScreen)
    form.query_one("#f-study", Input).value = str(folder)
    form.query_one("#f-participant", Input).value = participant
    form.query_one("#f-resume", Checkbox).value = False
    await pilot.press("ctrl+s")
    await app.workers.wait_for_complete()
    await pilot.pause()
    if resume:  # the session exists: the form offers to resume it (or start the next) as buttons
        assert app.screen is form and form.query_one("#existing").display
        await pilot.click("#resume-existing")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "resuming: 1 of 4 answered" in "\n".join(str(w.render()) for w in app.screen.query(Static))
    assert isinstance(app.screen, SessionPreviewScreen)
    text = "\n".join(str(w.render()) for w in app.screen.query(Static))
    arm = text.split("Arm\n", 1)[1].split(" ", 1)[0] if "Arm\n" in text else ""
    await pilot.press("enter")
    await pilot.pause()
    for _ in range(answer):
        screen = app.screen
        assert isinstance(screen, SortTrialScreen)
        if screen.phase == "reading":
            await pilot.press("enter")
            await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        await pilot.pause()
    return arm


async def _back_to_launcher(app: BenchlabApp, pilot: Pilot[Any], *, abort: bool = False) -> None:
    """The experimenter takes the terminal back (ending the session first when ``abort``)."""
    from benchlab.tui.screens.end import EndScreen

    if abort:
        await pilot.press(*DEFAULT_KEYS.keys)
        await pilot.pause()
        await pilot.press("e", "y")
    elif isinstance(app.screen, EndScreen):
        await pilot.press("enter")
    await pilot.pause()
    await pilot.press(*DEFAULT_KEYS.keys)  # the hand-back screen
    await pilot.pause()
    await pilot.press("enter")  # the session summary
    await pilot.pause()


async def test_a_lab_day_from_a_study_file_runs_from_the_launcher_without_a_flag(tmp_path: Path) -> None:
    """Three participants in two arms and one resume, all from the launcher: only a folder and ids are typed."""
    import pandas as pd

    folder = write_study(tmp_path / "study", LAB_DAY)
    app = BenchlabApp(guard_s=0.0, min_rt_s=0.0, repeat_window_s=0.0)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.pause()
        assert await _participant_from_launcher(app, pilot, folder, "P01") == "stm"
        await _back_to_launcher(app, pilot)
        assert await _participant_from_launcher(app, pilot, folder, "P02", answer=1) == "ltm"
        await _back_to_launcher(app, pilot, abort=True)  # P02 has to stop after one trial
        assert await _participant_from_launcher(app, pilot, folder, "P03") == "stm"
        await _back_to_launcher(app, pilot)
        # P02 comes back: the same arm, the remaining three trials only
        assert await _participant_from_launcher(app, pilot, folder, "P02", resume=True, answer=3) == "ltm"
        await _back_to_launcher(app, pilot)
    results = folder / "results"
    counts = {p: len(pd.read_csv(results / f"250-s20-human_{p}_results.csv")) for p in ("P01", "P02", "P03")}
    # (4 trials: one per distance bin at least, issue 12) P02: one before the break-off, three after, no duplicate
    assert counts == {"P01": 4, "P02": 4, "P03": 4}
    study = load_study(folder, registry())
    assert [(r["participant"], r["arm"]) for r in study.assignments()] == [("P01", "stm"), ("P02", "ltm"),
                                                                           ("P03", "stm")]
    assert {r["study_sha256"] for r in study.assignments()} == {study.sha256}


def test_show_plans_each_arm_against_its_data_and_names_an_arm_that_does_not_fit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    code, out = cli(capsys, "study", "show", str(folder))
    assert code == 0 and out.count("plans 4 scored + 0 practice trials") == 2
    misfit = STUDY.replace("{rule}", "balanced").replace('options = { condition = "ltm" }',
                                                         'options = { condition = "ltm", excerpt_length = 5000 }')
    write_study(tmp_path / "s", misfit)
    code, out = cli(capsys, "study", "show", str(folder))
    assert code == 2 and "arm ltm does not fit its data" in out and "study.toml:13:" in out
