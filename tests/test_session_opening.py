"""One way to open a session, for every task: ``open_session`` (new, then resumed), and what a session's files say
(``session_state``: new, in progress, finished, killed before its plan was saved)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from benchlab.annotations.choice.task import ChoiceTask, make_choice_task
from benchlab.annotations.options import OptionError
from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import open_session, open_session_from_values, session_options
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import EndReason, SessionRunner, SessionText, Stage
from benchlab.annotations.session.state import SessionStage, SessionState, session_state
from benchlab.annotations.simulate import SimulatedParticipant, simulate_session
from benchlab.annotations.task import OpensSessions, Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.web.run import prepare_web_session

#: The plan each task drew for participant P1 with seed 7 (default options, bundled data) with the code before the
#: one opening function (computed with it): opening must not change which items a session gets, or their order.
PLAN_BEFORE = {"worldsense": "e9db2d0d46a24f6a", "sort": "123f311e258810f4", "mini": "0d0bf531a104a159"}


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> ChoiceTask:
    """A plug-in choice task built in the test: two strata of six three-option items."""
    items = tmp_path_factory.mktemp("mini") / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"{s}{i}", "text": f"q {s}{i}", "options": ["x", "y", "z"],
                                         "gold": "y", "stratum": s}) + "\n" for s in "ab" for i in range(6)))
    return make_choice_task(name="mini", title="Mini", description="d", items=items, items_per_stratum=3,
                            practice=2, block_size=4)


def task_named(name: str, mini: ChoiceTask) -> Task:
    return mini if name == "mini" else registry().get(name)


def fingerprint(plan: SessionPlan) -> str:
    """The items, their order and the settings (less fields added to the config since: they draw no item)."""
    config = {k: v for k, v in plan.config.items() if k not in ("min_seen_share",)}
    return hashlib.sha256(json.dumps([plan.practice, plan.blocks, config]).encode()).hexdigest()[:16]


def answer(runner: SessionRunner, scored: int | None = None) -> SessionRunner:
    """An oracle answers; with ``scored``, the experimenter stops after that many scored answers in this run."""
    def stop(r: SessionRunner) -> None:
        if scored is not None and r.recorded_this_run == scored:
            r.abort()

    return simulate_session(runner, SimulatedParticipant("oracle", seed=1), on_response=stop)


@pytest.mark.parametrize("name", ["worldsense", "sort", "mini"])
def test_every_task_opens_through_the_one_function_new_then_resumed(name: str, mini: ChoiceTask,
                                                                    tmp_path: Path) -> None:
    task = task_named(name, mini)
    session, plan = session_options(task, {"participant": "P1", "out": str(tmp_path), "seed": 7})
    first = open_session(task, session, plan)
    assert (first.resume, first.resume_note) == (False, None)
    assert fingerprint(first.plan) == PLAN_BEFORE[name]  # the same plan as before
    answer(first, scored=3)
    assert first.end_reason is EndReason.ABORTED
    state = session_state(first.files, first.task_session)
    assert (state.stage, state.answered, state.planned) == (SessionStage.IN_PROGRESS, 3, first.n_main)

    with pytest.raises(OptionError) as refused:  # a started session is never replaced by a new plan
        open_session(task, session, plan)
    assert refused.value.field == "session" and "already started" in str(refused.value)

    resumed = open_session(task, session.model_copy(update={"resume": True}), plan)
    try:
        assert resumed.resume and resumed.resume_note is None
        assert resumed.plan == first.plan and resumed.recorded_main == 3
        assert [s.item_id for s in resumed.remaining_steps()] == first.plan.main_items[3:]  # at the next trial
        answer(resumed)
    finally:
        resumed.close()
    assert resumed.end_reason is EndReason.COMPLETED and resumed.on_disk(first.files.results,
                                                                         first.plan.main_items) == first.n_main
    assert session_state(first.files, first.task_session).stage is SessionStage.FINISHED


def test_every_registered_task_and_the_kit_give_their_part_to_the_one_function(mini: ChoiceTask) -> None:
    """No task opens its runner itself (``Task.prepare`` alone): each declares its session parts, so the shared
    steps (new or resume from the files, the started-session guard) are the same for all of them."""
    tasks = [*registry(), mini]
    assert [t.name for t in tasks if not isinstance(t, OpensSessions)] == []


def test_the_old_entry_points_open_the_same_session(mini: ChoiceTask, tmp_path: Path) -> None:
    """``Task.prepare`` and the by-values form are the same opening (the notebook API and plug-ins call them)."""
    by_values = open_session_from_values(mini, participant="P1", out=str(tmp_path / "a"), seed=7)
    session, plan = session_options(mini, {"participant": "P1", "out": str(tmp_path / "b"), "seed": 7})
    prepared = mini.prepare(session, plan, SessionText())
    try:
        assert fingerprint(by_values.plan) == fingerprint(prepared.plan) == PLAN_BEFORE["mini"]
    finally:
        by_values.close()
        prepared.close()


def test_a_simulated_participant_the_task_does_not_offer_is_refused_before_anything_is_written(
        tmp_path: Path) -> None:
    with pytest.raises(OptionError) as refused:
        open_session_from_values(registry().get("sort"), participant="P1", out=str(tmp_path), simulate="clever")
    assert refused.value.field == "simulate" and "random, oracle, always-a" in str(refused.value)
    assert not any(tmp_path.iterdir())


def _killed_at_consent(task: Task, out: Path) -> None:
    """A session opened to its consent page in a child process that dies there (as ``kill -9`` would leave it)."""
    pid = os.fork()
    if pid == 0:  # the child: open, then die without closing
        try:
            session, plan = session_options(task, {"participant": "P1", "out": str(out), "seed": 7})
            runner = open_session(task, session, plan, SessionText(consent="Agree?"))
            os._exit(0 if runner.stage is Stage.CONSENT else 3)
        except BaseException:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0


def test_the_state_of_a_session_read_from_its_files(mini: ChoiceTask, tmp_path: Path) -> None:
    session, plan = session_options(mini, {"participant": "P1", "out": str(tmp_path), "seed": 7})
    at_consent = open_session(mini, session, plan, SessionText(consent="Agree?"))  # running, no plan saved yet
    files, part = at_consent.files, at_consent.task_session
    held = session_state(files, part)
    assert (held.stage, held.held_by, held.started) == (SessionStage.NEW, os.getpid(), False)
    at_consent.decline_consent()  # nothing recorded, no lock left
    assert session_state(files, part) == SessionState(SessionStage.NEW)

    _killed_at_consent(mini, tmp_path)
    killed = session_state(files, part)
    assert (killed.stage, killed.held_by, str(killed)) == (SessionStage.KILLED_BEFORE_PLAN, None,
                                                           "killed before its plan was saved")
    # a scripted resume of it starts the session from its first trial, and says so
    started = open_session(mini, session.model_copy(update={"resume": True}), plan)
    assert not started.resume and started.resume_note is not None and "nothing was recorded yet" in started.resume_note
    answer(started, scored=2)
    progress = session_state(files, part)
    assert (progress.stage, progress.answered, progress.planned, progress.held_by) == (
        SessionStage.IN_PROGRESS, 2, 6, None)
    assert str(progress) == "in progress (2 of 6 answered)"

    finished = answer(open_session(mini, session.model_copy(update={"resume": True}), plan))
    assert session_state(files, part).stage is SessionStage.FINISHED and session_state(files, part).answered == 6
    again = open_session(mini, session.model_copy(update={"resume": True}), plan)  # a finished session just ends
    assert again.stage is Stage.END and again.end_reason is EndReason.COMPLETED and again.recorded_this_run == 0
    assert finished.end_reason is EndReason.COMPLETED


def test_a_plan_that_cannot_be_read_still_means_started(mini: ChoiceTask, tmp_path: Path) -> None:
    session, plan = session_options(mini, {"participant": "P1", "out": str(tmp_path), "seed": 7})
    runner = answer(open_session(mini, session, plan), scored=1)
    runner.files.plan.write_text("{not json")
    state = session_state(runner.files, runner.task_session)
    assert (state.stage, state.planned, state.started) == (SessionStage.IN_PROGRESS, None, True)
    with pytest.raises(OptionError, match="already started"):
        open_session(mini, session, plan)
    with pytest.raises(BenchlabError, match="not valid JSON"):
        open_session(mini, session.model_copy(update={"resume": True}), plan)


@pytest.mark.parametrize("name", ["worldsense", "sort", "mini"])
def test_a_web_session_starts_then_continues_decided_from_the_files(name: str, mini: ChoiceTask,
                                                                   tmp_path: Path) -> None:
    task = task_named(name, mini)
    consent = tmp_path / "consent.md"
    consent.write_text("Do you agree?")
    session, plan = session_options(task, {"participant": "P1", "out": str(tmp_path / "out"), "seed": 7,
                                           "consent_file": str(consent), "web_session": True})
    first = prepare_web_session(task, session, plan)
    assert not first.resume and first.stage is Stage.CONSENT and first.text.consent == "Do you agree?"
    assert first.text.instructions == task.instructions(plan, session)
    answer(first, scored=2)

    back = prepare_web_session(task, session, plan)  # the same command, on a reconnect
    try:
        assert back.resume and back.stage is Stage.INSTRUCTIONS and back.text.consent is None
        assert back.plan == first.plan and len(back.text.instructions) == 1
        assert f"2 of {back.n_main} questions answered" in back.text.instructions[0]
    finally:
        back.close()
