"""The experimenter's session form: data set, participant, session and the plan; Start hands over to the
participant (kiosk mode). The same choices as ``benchlab run <task>`` on the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Footer, Header, Input, Label, Static

from benchlab.annotations.options import OptionError, OptionInfo, option_infos
from benchlab.annotations.session_runner import SessionRunner
from benchlab.annotations.session_start import session_options
from benchlab.annotations.session_texts import session_text
from benchlab.annotations.task import SessionOptions, Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.commands.declared import reworded

# Transitional: the form is generated from the task's declarations, with the field ids the form had before
# (engineer B's generated form replaces this screen). Plan fields keep ``f-`` ids where every task had one.
_LEGACY_IDS = {"tuples_per_cell": "f-items_per_cell", "trials": "f-items_per_cell", "practice": "f-practice",
               "block_size": "f-block_size", "min_gap": "f-min_gap", "participants": "f-participants",
               "delay_s": "x-delay", "min_reading_s": "x-min_reading", "max_reading_s": "x-max_reading"}
_PLACEHOLDERS = {"participant": "e.g. P01"}
#: Which field an error that names no field is about, by words in its message (first match wins).
_FIELD_HINTS: list[tuple[str, str]] = [
    ("already started", "f-session"), ("already has recorded responses", "f-resume"),
    ("practice trials", "f-practice"), ("consent", "f-consent_file"), ("instructions", "f-instructions_file"),
]


def _field_id(info: OptionInfo, plan: bool) -> str:
    if info.kind == "bool":
        return f"f-{info.name}"
    return _LEGACY_IDS.get(info.name, f"x-{info.name}") if plan else f"f-{info.name}"


def _shown_default(info: OptionInfo) -> str:
    if info.default is None:
        return ""
    if isinstance(info.default, tuple | list):
        return ", ".join(str(v) for v in info.default)
    return str(info.default)


class FieldError(BenchlabError):
    """A form value that is wrong, with the id of the field to focus."""

    def __init__(self, message: str, field_id: str) -> None:
        super().__init__(message)
        self.field_id = field_id


class SessionSetupScreen(Screen[None]):
    CSS_PATH = "session_setup.tcss"
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("ctrl+s", "start", "Start session")]

    def __init__(self, task: Task) -> None:
        super().__init__()
        self.session_task = task
        self._fields = [(i, _field_id(i, False)) for i in option_infos(task.session_options) if i.form]
        self._fields += [(i, _field_id(i, True)) for i in option_infos(task.plan_options) if i.form]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="form"):
            yield Static(f"{self.session_task.title} session", id="form-title")
            for info, field_id in self._fields:
                if info.kind == "bool":
                    continue
                yield Label(info.label, classes="field-label")
                value = str(self.session_task.default_dataset()) if info.name == "dataset" else _shown_default(info)
                yield Input(value=value, placeholder=_PLACEHOLDERS.get(info.name, ""), id=field_id)
            for info, field_id in self._fields:
                if info.kind == "bool":
                    yield Checkbox(info.label, value=bool(info.default), id=field_id)
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
        default = self.session_task.default_out(dataset)
        self.query_one("#default-out", Static).update(f"Default output folder: {default}")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "back":
            self.app.pop_screen()

    def options(self) -> tuple[SessionOptions, Any]:
        """The checked session and plan options (an :class:`OptionError` names the wrong field)."""
        values: dict[str, Any] = {}
        for info, field_id in self._fields:
            if info.kind == "bool":
                values[info.name] = self.query_one(f"#{field_id}", Checkbox).value
            else:
                values[info.name] = self.query_one(f"#{field_id}", Input).value.strip()
        if not values.get("participant"):
            raise FieldError("enter a participant id", "f-participant")
        return session_options(self.session_task, values)

    def action_start(self) -> None:
        error = self.query_one("#error", Static)
        try:
            session, plan = self.options()
        except BenchlabError as exc:
            self._show_error(exc)
            return
        error.update("Preparing the session...")
        self.query_one("#start", Button).disabled = True
        self._prepare(session, plan)

    @work(thread=True, exclusive=True)
    def _prepare(self, session: SessionOptions, plan: Any) -> None:
        """Loading a full test set takes seconds; keep the form responsive meanwhile."""
        try:
            runner = self.session_task.prepare(session, plan, session_text(self.session_task, session, plan))
        except BenchlabError as exc:
            self.app.call_from_thread(self._failed, exc)
            return
        self.app.call_from_thread(self._ready, runner)

    def _failed(self, exc: BenchlabError) -> None:
        self.query_one("#start", Button).disabled = False
        self._show_error(exc)

    def _show_error(self, exc: BenchlabError) -> None:
        """The message below the form is off-screen on a small terminal: also a toast, and the offending field
        gets the focus (which scrolls it into view)."""
        if isinstance(exc, OptionError):
            exc = FieldError(str(reworded(exc, self.session_task.session_options, self.session_task.plan_options)),
                             next((fid for info, fid in self._fields if info.name == exc.field), ""))
        message = str(exc)
        self.query_one("#error", Static).update(message)
        self.notify(message, title="Cannot start the session", severity="error", timeout=10)
        field = self._field_of(exc)
        if field is not None:
            field.focus()
        else:
            self.query_one("#error", Static).scroll_visible(animate=False)

    def _field_of(self, exc: BenchlabError) -> Widget | None:
        field_id = (exc.field_id or None) if isinstance(exc, FieldError) else None
        if field_id is None and exc.path is not None:
            # A file named in the error: the field holding that path (data set, output folder, texts).
            for name in ("dataset", "consent_file", "instructions_file"):
                found = self.query(f"#f-{name}")
                value = found.first(Input).value.strip() if found else ""
                if value and _same_or_inside(exc.path, Path(value)):
                    field_id = f"f-{name}"
                    break
        if field_id is None:
            text = exc.message.lower()
            field_id = next((fid for hint, fid in _FIELD_HINTS if hint in text and self.query(f"#{fid}")), None)
        if field_id is None:
            return None
        found = self.query(f"#{field_id}")
        return found.first() if found else None

    def _ready(self, runner: SessionRunner) -> None:
        self.query_one("#error", Static).update("")
        self.query_one("#start", Button).disabled = False
        from benchlab.tui.app import BenchlabApp

        if not isinstance(self.app, BenchlabApp):
            runner.close()
            return
        self.app.start_session(runner, self.session_task)


def _same_or_inside(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies inside it (errors often name a file inside the folder the form gave)."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True
