"""Sessions: where every participant of a results folder is, refreshed while they work (experimenter only).

One row per session: participant, task, session, study arm, condition, state (not started / consent / practice /
trial k of n / break / disconnected / crashed (its process died) / finished / declined), last activity and the
practice accuracy so far. Read from the
folder's files by :func:`~benchlab.annotations.session.status.read_statuses`, the reader ``benchlab serve``'s
live table uses, so it shows browser participants and terminal sessions of several lab seats writing to one
shared folder alike. The folder is polled every ``POLL_SECONDS``; reading runs in a worker thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Input, Static

from benchlab.annotations.session.status import SessionStatus, read_statuses

COLUMNS = ("Participant", "Task", "Session", "Arm", "Condition", "State", "Last activity", "Practice accuracy")
#: How the summary line counts sessions in each state ("2 at a trial", not "2 trial"; "1 trial" read as one trial).
SUMMARY = {"trial": "at a trial", "practice": "in practice", "break": "on a break", "consent": "at consent"}


def default_folder() -> Path:
    """Where sessions write by default (``./benchlab-results``; the reader looks two levels down)."""
    return Path("benchlab-results")


def state_text(status: SessionStatus) -> str:
    """``trial 3 of 20``, ``break (5 of 20 done)``, ``disconnected (5 of 20 done)``, or the state alone."""
    if status.state == "trial" and status.trial is not None and status.n_trials is not None:
        return f"trial {status.trial} of {status.n_trials}"
    if status.state in ("break", "disconnected", "crashed", "practice") and status.n_trials \
            and status.trial is not None:
        return f"{status.state} ({status.trial} of {status.n_trials} done)"
    if status.state == "finished" and status.n_trials is not None:
        return f"finished ({status.trial} of {status.n_trials})"
    return status.state


def activity_text(when: datetime | None, now: float) -> str:
    if when is None:
        return ""
    ago = max(0, int(now - when.timestamp()))
    clock = when.astimezone().strftime("%H:%M:%S")
    if ago < 60:
        return f"{clock} ({ago} s ago)"
    if ago < 3600:
        return f"{clock} ({ago // 60} min ago)"
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


def row_of(status: SessionStatus, now: float) -> tuple[str, ...]:
    accuracy = "" if status.practice_accuracy is None else f"{status.practice_accuracy:.0%}"
    return (status.participant, status.task, status.session, status.arm, status.condition, state_text(status),
            activity_text(status.last_activity, now), accuracy)


class SessionsScreen(Screen[None]):
    """Every participant's state in one results folder, refreshed periodically."""

    CSS_PATH = "sessions.tcss"
    BINDINGS = [
        Binding("escape", "close", "Back"),
        Binding("ctrl+r", "reload", "Reload"),
    ]
    POLL_SECONDS = 2.0

    def __init__(self, folder: str | Path | None = None, *, expected: tuple[str, ...] = (),
                 clock: Callable[[], float] | None = None) -> None:
        """``expected``: participant ids listed even before they start; ``clock``: "now" (tests)."""
        super().__init__()
        self.initial_folder = str(folder if folder is not None else default_folder())
        self.expected = expected
        self.clock = clock or time.time
        self.statuses: list[SessionStatus] = []
        self.loads = 0  # completed reads, for tests
        self._reading = False

    def compose(self) -> ComposeResult:
        yield Static("Sessions: every participant of a results folder", id="title")
        with Horizontal(id="pickers"):
            yield Input(self.initial_folder, placeholder="results folder (the sessions' --out)", id="folder")
            yield Button("Show", id="show", variant="primary")
        yield Static("", id="status", markup=False)
        yield DataTable(id="sessions", zebra_stripes=True, cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.set_interval(self.POLL_SECONDS, self.action_reload, name="sessions-poll")
        self.action_reload()

    @property
    def folder(self) -> Path:
        return Path(self.query_one("#folder", Input).value.strip() or ".").expanduser()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "show":
            self.action_reload()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        if not self._reading:
            self._reading = True
            self._read(self.folder)

    @work(thread=True, exclusive=True, group="sessions-read")
    def _read(self, folder: Path) -> None:
        try:
            statuses = read_statuses(folder, self.expected) if folder.is_dir() else None
        finally:
            self._reading = False
        self.app.call_from_thread(self._show, folder, statuses)

    def _show(self, folder: Path, statuses: list[SessionStatus] | None) -> None:
        status = self.query_one("#status", Static)
        table = self.query_one(DataTable)
        self.loads += 1
        if statuses is None:
            self.statuses = []
            table.clear()
            status.update(f"No such folder: {folder}")
            status.add_class("error")
            return
        status.remove_class("error")
        self.statuses = statuses
        row = table.cursor_row
        table.clear()
        now = self.clock()
        for item in statuses:
            table.add_row(*row_of(item, now))
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1))
        counts: dict[str, int] = {}
        for item in statuses:
            counts[item.state] = counts.get(item.state, 0) + 1
        summary = ", ".join(f"{n} {SUMMARY.get(state, state)}" for state, n in counts.items()) or "no sessions yet"
        status.update(f"{folder}: {summary} (refreshes every {self.POLL_SECONDS:g} s)")

    def action_close(self) -> None:
        self.dismiss(None)
