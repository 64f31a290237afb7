"""The experimenter's session form: data set, participant, session and the plan; Start hands over to the
participant (kiosk mode). The same choices as ``benchlab run <task>`` on the command line."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
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
    ("block_size", "Trials per block (a break between blocks)", "30"),
    ("min_gap", "Minimum trials between tuple mates", "1"),
    ("seed", "Seed (empty: a random seed, saved in the plan)", ""),
    ("participants", "Participant list for item assignment (optional, comma separated)", ""),
    ("out", "Output folder (empty: default below)", ""),
    ("consent_file", "Consent text file (optional, markdown)", ""),
    ("instructions_file", "Instructions file (optional, pages separated by ---)", ""),
]
_INTS = ("items_per_cell", "practice", "block_size", "min_gap")
#: Which field an error from preparing the session is about, by words in its message (first match wins).
_FIELD_HINTS: list[tuple[str, str]] = [
    ("already started", "f-session"), ("already has recorded responses", "f-resume"),
    ("participant list", "f-participants"), ("participant", "f-participant"), ("session id", "f-session"),
    ("--tuples-per-cell", "f-items_per_cell"), ("--trials", "f-items_per_cell"), ("--practice", "f-practice"),
    ("practice trials", "f-practice"), ("--block-size", "f-block_size"), ("--min-gap", "f-min_gap"),
    ("consent", "f-consent_file"), ("instructions", "f-instructions_file"), ("--condition", "x-condition"),
    ("--delay", "x-delay"), ("--min-reading", "x-min_reading"), ("--max-reading", "x-max_reading"),
    ("excerpt length", "x-excerpt_length"), ("segment length", "x-segment_length"),
]


class FieldError(BenchlabError):
    """A form value that is wrong, with the id of the field to focus."""

    def __init__(self, message: str, field_id: str) -> None:
        super().__init__(message)
        self.field_id = field_id


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
            raise FieldError("enter a participant id", "f-participant")
        ints: dict[str, int] = {}
        for name in _INTS:
            try:
                ints[name] = int(values[name])
            except ValueError:
                label = (self.task_ui.items_per_cell_label if name == "items_per_cell" else name.replace("_", " "))
                raise FieldError(f"{label} must be a whole number", f"f-{name}") from None
        seed = None
        if values["seed"]:
            try:
                seed = int(values["seed"])
            except ValueError:
                raise FieldError("the seed must be a whole number", "f-seed") from None
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
            self._show_error(exc)
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
            self.app.call_from_thread(self._failed, exc)
            return
        self.app.call_from_thread(self._ready, runner)

    def _failed(self, exc: BenchlabError) -> None:
        self.query_one("#start", Button).disabled = False
        self._show_error(exc)

    def _show_error(self, exc: BenchlabError) -> None:
        """The message below the form is off-screen on a small terminal: also a toast, and the offending field
        gets the focus (which scrolls it into view)."""
        message = str(exc)
        self.query_one("#error", Static).update(message)
        self.notify(message, title="Cannot start the session", severity="error", timeout=10)
        field = self._field_of(exc)
        if field is not None:
            field.focus()
        else:
            self.query_one("#error", Static).scroll_visible(animate=False)

    def _field_of(self, exc: BenchlabError) -> Widget | None:
        field_id = getattr(exc, "field_id", None)
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
        start = getattr(self.app, "start_session", None)
        if start is None:
            runner.close()
            return
        start(runner, self.task_ui)


def _same_or_inside(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies inside it (errors often name a file inside the folder the form gave)."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True
