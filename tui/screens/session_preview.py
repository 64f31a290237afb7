"""What the experimenter checks before handing the terminal to a participant: who, which session, the plan's size
and design, how long it will take and where the answers go. Start is only here.

A mistyped session number ("session 10"), a wrong condition or a plan of 84 questions first seen after practice
were all caught too late when Start handed over at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Static

from benchlab.annotations.options import Options, option_infos
from benchlab.annotations.session.estimate import estimate_duration
from benchlab.annotations.session.runner import SessionRunner
from benchlab.data.tables import counted


def _shown(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "-"
    return f"{value:g}" if isinstance(value, float) else str(value)


def preview_lines(runner: SessionRunner, title: str, plan: Options,
                  extra: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """(label, value) rows of the preview, in reading order; ``extra`` (e.g. a study's arm) after the benchmark."""
    p = runner.plan
    done = runner.recorded_main
    state = f"resuming: {done} of {runner.n_main} answered" if done else "new"
    rows = [("Participant", p.participant), ("Session", f"{p.session} ({state})"), ("Benchmark", title), *extra]
    if "dataset" not in type(plan).model_fields:  # the data set is a session option: the preview names it too
        rows.append(("Data set", str(p.dataset)))
    rows += [(info.label, _shown(getattr(plan, info.name))) for info in option_infos(type(plan)) if info.form]
    rows.append(("Trials", f"{counted(runner.n_practice, 'practice trial')}, {counted(runner.n_main, 'scored trial')}"
                           f" in {counted(runner.n_blocks, 'block')}"))
    rows.append(("Estimated duration", estimate_duration(runner).describe()))
    if runner.simulated:
        rows.append(("Simulated", f"{runner.simulated} (a pilot, not a person)"))
    rows.append(("Answers go to", str(runner.files.results)))
    return rows


class SessionPreviewScreen(Screen[bool]):
    """Dismissed with ``True`` (start: hand over) or ``False`` (back to the form)."""

    CSS_PATH = "session_preview.tcss"
    BINDINGS = [Binding("escape", "back", "Back"), Binding("ctrl+s", "start", "Start session")]

    def __init__(self, runner: SessionRunner, title: str, plan: Options, *,
                 extra: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__()
        self.runner = runner
        self.rows = preview_lines(runner, title, plan, extra)

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="preview"):
            yield Static("Check before handing over", id="preview-title")
            for label, value in self.rows:
                with Horizontal(classes="preview-row"):
                    yield Static(label, classes="preview-label", markup=False)
                    yield Static(value, classes="preview-value", markup=False)
        with Horizontal(id="preview-buttons"):
            yield Button("Hand over and start (Enter)", id="start", variant="primary")
            yield Button("Back (Esc)", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#start", Button).focus()

    def on_key(self, event: events.Key) -> None:
        if event.key == "enter" and self.focused is not self.query_one("#back", Button):
            event.stop()
            self.action_start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self.action_start()
        else:
            self.action_back()

    def action_start(self) -> None:
        self.dismiss(True)

    def action_back(self) -> None:
        self.dismiss(False)
