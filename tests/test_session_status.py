"""Where every participant of a results folder is, read from its files only (``read_statuses``), and the launcher's
Sessions screen showing it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from session_helpers import write_testset
from textual.app import App
from textual.widgets import DataTable

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import ResponseTiming, SessionRunner, Stage
from benchlab.annotations.session.status import SessionStatus, StatusCache, read_statuses
from benchlab.tui.screens.sessions import SessionsScreen


def timing() -> ResponseTiming:
    return ResponseTiming(onset_mono=1.0, response_mono=2.0)


def worldsense(testset: Path, out: Path, participant: str, **kw: Any) -> SessionRunner:
    values: dict[str, Any] = {"practice": 0, "block_size": 4, "no_instructions": True, "seed": 5, **kw}
    return prepare_session(registry().get("worldsense"), dataset=str(testset), participant=participant,
                           out=str(out), **values)


def answer(runner: SessionRunner, n: int) -> None:
    for _ in range(n):
        runner.respond(runner.options()[0], timing())


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """One results folder with a session in every state (terminal sessions, plus a web session's traces)."""
    testset = write_testset(tmp_path / "set", tuples_per_cell=3, sizes=(3,))
    out = tmp_path / "out"
    consent = tmp_path / "consent.md"
    consent.write_text("Do you agree?")
    open_runners = []

    practising = worldsense(testset, out, "PRAC", practice=2)
    answer(practising, 1)
    trial = worldsense(testset, out, "TRIAL")
    answer(trial, 1)
    on_break = worldsense(testset, out, "BREAK")
    answer(on_break, 4)
    assert on_break.stage is Stage.BREAK
    finished = worldsense(testset, out, "DONE")
    while finished.stage is not Stage.END:
        if finished.stage is Stage.BREAK:
            finished.continue_after_break()
        else:
            answer(finished, 1)
    gone = worldsense(testset, out, "GONE")  # a browser closed mid-session: the app logged it and let go
    answer(gone, 2)
    gone.log_event("disconnected", reason="stdin closed", task="worldsense")
    gone.close()
    stopped = worldsense(testset, out, "STOP")  # the experimenter ended a terminal session early
    answer(stopped, 1)
    stopped.abort()
    at_consent = worldsense(testset, out, "CONS", consent_file=str(consent))  # a terminal session at consent
    assert at_consent.stage is Stage.CONSENT
    declined = worldsense(testset, out, "DECL", consent_file=str(consent))  # a web participant who declined
    declined.log_event("connected", user_agent="Probe", reconnect=False, task="worldsense")
    declined.decline_consent()
    declined.log_event("declined", task="worldsense")
    sort = prepare_session(registry().get("sort"), participant="SORT", out=str(out), seed=7, practice=2,
                           block_size=10, trials=4, no_instructions=True, excerpt_length=250, segment_length=20)
    gold = sort.task.gold(sort.current.item_id)
    sort.respond(str(gold), timing())  # practice: one right, one wrong
    sort.respond("B" if sort.task.gold(sort.current.item_id) == "A" else "A", timing())
    open_runners += [practising, trial, on_break, at_consent, sort]
    yield out
    for runner in open_runners:
        runner.close()


def by_participant(statuses: list[SessionStatus]) -> dict[str, SessionStatus]:
    rows = {s.participant: s for s in statuses}
    assert len(rows) == len(statuses)
    return rows


def test_every_state_is_read_from_the_folder(folder: Path) -> None:
    rows = by_participant(read_statuses(folder, expected=("NONE", "TRIAL")))
    states = {p: s.state for p, s in rows.items()}
    assert states == {"PRAC": "practice", "TRIAL": "trial", "BREAK": "break", "DONE": "finished",
                      "GONE": "disconnected", "STOP": "disconnected", "CONS": "consent", "DECL": "declined",
                      "SORT": "break", "NONE": "not started"}
    n = rows["TRIAL"].n_trials
    assert n is not None and n > 4
    assert (rows["TRIAL"].trial, rows["GONE"].trial, rows["BREAK"].trial, rows["DONE"].trial) == (2, 2, 4, n)
    assert rows["PRAC"].trial == 0 and rows["CONS"].trial is None and rows["NONE"].n_trials is None
    assert rows["SORT"].practice_accuracy == 0.5 and rows["SORT"].condition == "stm" and rows["SORT"].task == "sort"
    assert rows["TRIAL"].task == "worldsense" and rows["TRIAL"].session == "1"
    assert rows["DECL"].task == "worldsense"
    assert rows["TRIAL"].last_activity is not None and rows["NONE"].last_activity is None


def test_a_sessions_folder_one_level_down_and_an_empty_folder(folder: Path, tmp_path: Path) -> None:
    parent = folder.parent
    assert {s.participant for s in read_statuses(parent)} == {s.participant for s in read_statuses(folder)}
    empty = tmp_path / "empty"
    empty.mkdir()
    assert read_statuses(empty) == []
    assert [s.state for s in read_statuses(empty, ["A", "B", "A"])] == ["not started", "not started"]


class Host(App[None]):
    def __init__(self, screen: SessionsScreen) -> None:
        super().__init__()
        self.sessions = screen

    def on_mount(self) -> None:
        self.push_screen(self.sessions)


async def test_the_sessions_screen_shows_every_participant_and_refreshes(folder: Path) -> None:
    screen = SessionsScreen(folder, expected=("NONE",))
    async with Host(screen).run_test(size=(140, 40)) as pilot:
        while screen.loads < 1:
            await pilot.pause(0.05)
        table = screen.query_one(DataTable)
        rows = {str(table.get_row_at(i)[0]): [str(c) for c in table.get_row_at(i)] for i in range(table.row_count)}
        assert rows["TRIAL"][5].startswith("trial 2 of ") and rows["NONE"][5] == "not started"
        assert rows["SORT"][7] == "50%" and rows["DONE"][5].startswith("finished")
        assert rows["GONE"][5].startswith("disconnected (2 of") and rows["CONS"][5] == "consent"
        assert "s ago" in rows["TRIAL"][6]
        # a participant goes on: the next poll shows it without any key
        (folder / "sessions" / ".human-NEW.lock").write_text("1\n")
        loads = screen.loads
        while screen.loads == loads:
            await pilot.pause(0.1)
        assert any(str(table.get_row_at(i)[0]) == "NEW" for i in range(table.row_count))
        # another folder typed in
        await pilot.click("#folder")
        screen.query_one("#folder").value = str(folder / "nowhere")  # type: ignore[attr-defined]
        await pilot.press("enter")
        while "No such folder" not in str(screen.query_one("#status").render()):
            await pilot.pause(0.05)
        assert table.row_count == 0


def test_a_plug_in_choice_task_session_is_read_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import entry_points

    from benchlab.annotations.session.runner import SessionText
    from benchlab.annotations.task import SessionOptions
    from tests.plugin_helpers import install_example

    folder, _ = install_example(tmp_path / "site")
    monkeypatch.syspath_prepend(str(folder))
    task = {ep.name: ep for ep in entry_points(group="benchlab.tasks")}["numbers"].load()
    out = tmp_path / "out"
    options = task.plan_options()
    runner = task.prepare(SessionOptions(participant="PLUG", out=out, seed=3), options, SessionText())
    try:
        while runner.current.practice:
            answer(runner, 1)
            if runner.stage is Stage.BREAK:
                runner.continue_after_break()
        answer(runner, 1)
        (status,) = read_statuses(out)
        assert (status.task, status.state, status.trial, status.n_trials) == ("numbers", "trial", 2,
                                                                              len(runner.plan.main_items))
    finally:
        runner.close()
    (status,) = read_statuses(out)
    assert status.state == "disconnected"  # closed without an end: resumable


def test_a_reader_that_keeps_a_cache_rereads_only_changed_sessions(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``benchlab serve`` reads every session every 2 s: an unchanged session is not read again, a changed one
    (an answer, a dead lock holder) is."""
    testset = write_testset(tmp_path / "set", tuples_per_cell=3, sizes=(3,))
    out = tmp_path / "out"
    still, moving = worldsense(testset, out, "STILL"), worldsense(testset, out, "MOVING")
    answer(still, 1)
    answer(moving, 1)
    cache: StatusCache = {}
    assert read_statuses(out, cache=cache) == read_statuses(out)
    loads: list[Path] = []
    real = SessionPlan.load
    monkeypatch.setattr(SessionPlan, "load", lambda path: loads.append(Path(path)) or real(path))
    answer(moving, 1)
    rows = by_participant(read_statuses(out, cache=cache))
    assert [p.name for p in loads] == [moving.files.plan.name]  # only the session that changed was read
    assert (rows["STILL"].trial, rows["MOVING"].trial) == (2, 3)
    still.files.lock.write_text("999999999")  # its owner died (killed): the lock names a process that is gone
    assert by_participant(read_statuses(out, cache=cache))["STILL"].state == "crashed"
    still.close()
    moving.close()
