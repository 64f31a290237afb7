"""The experimenter's session form: data set, participant, session and the plan; Start hands over to the
participant (kiosk mode). The same choices as ``benchlab run <task>`` on the command line."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Footer, Header, Input, Label, Static

from benchlab.annotations.session_runner import SessionRunner
from benchlab.data.errors import BenchlabError
from benchlab.tui.task_registry import SessionRequest, TaskUI

_FIELDS: list[tuple[str, str, str]] = [
    ("dataset", "Data set (test-set folder or trials file)", ""),
    ("participant", "Participant id", "e.g. P01"),
    ("session", "Session", "1"),
    ("items_per_cell", "", "2"),
    ("practice", "Practice trials (from outside the scored set)", "4"),
    ("block_size", "Trials per block (a break after each block)", "30"),
    ("min_gap", "Minimum trials between tuple mates", "1"),
    ("seed", "Seed (empty: a random seed, saved in the plan)", ""),
    ("participants", "Participant list for item assignment (optional, comma separated)", ""),
    ("out", "Output folder (empty: default below)", ""),
    ("consent_file", "Consent text file (optional, markdown)", ""),
    ("instructions_file", "Instructions file (optional, pages separated by ---)", ""),
]
_INTS = ("items_per_cell", "practice", "block_size", "min_gap")


class SessionSetupScreen(Screen[None]):
    CSS_PATH = "session_setup.tcss"
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("ctrl+s", "start", "Start session")]

    def __init__(self, task_ui: TaskUI) -> None:
        super().__init__()
        self.task_ui = task_ui

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="form"):
            yield Static(f"{self.task_ui.title} session", id="form-title")
            hidden = set(getattr(self.task_ui, "hidden_fields", ()))
            for name, label, placeholder in _FIELDS:
                if name in hidden:
                    continue
                text = self.task_ui.items_per_cell_label if name == "items_per_cell" else label
                yield Label(text, classes="field-label")
                value = str(self.task_ui.default_dataset()) if name == "dataset" else (
                    placeholder if name in (*_INTS, "session") else "")
                value = getattr(self.task_ui, "field_defaults", {}).get(name, value)
                yield Input(value=value, placeholder=placeholder, id=f"f-{name}")
            # Task-specific fields (a task's ``extra_fields``: name, label, default) end up in request.extra.
            for name, label, default in getattr(self.task_ui, "extra_fields", ()):
                yield Label(label, classes="field-label")
                yield Input(value=default, id=f"x-{name}")
            yield Checkbox("Feedback after practice trials", value=True, id="f-feedback")
            yield Checkbox("Resume a session that was interrupted", id="f-resume")
            yield Static("", id="default-out")
            yield Static("", id="error", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Start session (Ctrl+S)", id="start", variant="primary")
                yield Button("Back (Esc)", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#f-participant", Input).focus()
        self._update_default_out()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "f-dataset":
            self._update_default_out()

    def _update_default_out(self) -> None:
        dataset = self.query_one("#f-dataset", Input).value
        self.query_one("#default-out", Static).update(f"Default output folder: {self.task_ui.default_out(dataset)}")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "back":
            self.app.pop_screen()

    def request(self) -> SessionRequest:
        hidden = set(getattr(self.task_ui, "hidden_fields", ()))
        values = {name: placeholder if name in hidden else self.query_one(f"#f-{name}", Input).value.strip()
                  for name, _l, placeholder in _FIELDS}
        extra = {name: self.query_one(f"#x-{name}", Input).value.strip()
                 for name, _l, _d in getattr(self.task_ui, "extra_fields", ())}
        if not values["participant"]:
            raise BenchlabError("enter a participant id")
        ints: dict[str, int] = {}
        for name in _INTS:
            try:
                ints[name] = int(values[name])
            except ValueError:
                raise BenchlabError(f"{name.replace('_', ' ')} must be a whole number") from None
        seed = None
        if values["seed"]:
            try:
                seed = int(values["seed"])
            except ValueError:
                raise BenchlabError("the seed must be a whole number") from None
        return SessionRequest(
            dataset=values["dataset"], participant=values["participant"], session=values["session"] or "1",
            out=values["out"], seed=seed, practice=ints["practice"], block_size=ints["block_size"],
            items_per_cell=ints["items_per_cell"], min_gap=ints["min_gap"],
            participants=tuple(p.strip() for p in values["participants"].split(",") if p.strip()),
            resume=self.query_one("#f-resume", Checkbox).value,
            practice_feedback=self.query_one("#f-feedback", Checkbox).value,
            consent_file=values["consent_file"] or None, instructions_file=values["instructions_file"] or None,
            extra=extra,
        )

    def action_start(self) -> None:
        error = self.query_one("#error", Static)
        try:
            request = self.request()
        except BenchlabError as exc:
            error.update(str(exc))
            return
        error.update("Preparing the session...")
        self.query_one("#start", Button).disabled = True
        self._prepare(request)

    @work(thread=True, exclusive=True)
    def _prepare(self, request: SessionRequest) -> None:
        """Loading a full test set takes seconds; keep the form responsive meanwhile."""
        try:
            runner = self.task_ui.prepare(request)
        except BenchlabError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._ready, runner)

    def _failed(self, message: str) -> None:
        self.query_one("#error", Static).update(message)
        self.query_one("#start", Button).disabled = False

    def _ready(self, runner: SessionRunner) -> None:
        self.query_one("#error", Static).update("")
        self.query_one("#start", Button).disabled = False
        start = getattr(self.app, "start_session", None)
        if start is None:
            runner.close()
            return
        start(runner, self.task_ui)
