"""The experimenter's session form: the options every session has, then the task's plan options; Start hands over
to the participant (kiosk mode) after a preview. The form remembers its last values per benchmark (not who, nor
which session). The same choices as ``benchlab run <task>`` on the command line, generated from
the same declarations (:class:`~benchlab.annotations.task.SessionOptions` and ``task.plan_options``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Footer, Header, Static

from benchlab.annotations.options import OptionError, Options, parse_options
from benchlab.annotations.session.runner import SessionRunner
from benchlab.annotations.task import DataChoices, SessionOptions, Task
from benchlab.data.errors import BenchlabError
from benchlab.tui import session_handover
from benchlab.tui.screens.remembered_form import RememberedFormScreen
from benchlab.tui.widgets.existing_session import (
    ExistingSessionOffer,
    already_started,
    existing_message,
    next_session_number,
    session_finished,
)
from benchlab.tui.widgets.option_form import FormSection, OptionForm


class SessionSetupScreen(RememberedFormScreen):
    CSS_PATH = "session_setup.tcss"
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("ctrl+s", "start", "Start session")]

    def __init__(self, task: Task) -> None:
        super().__init__(task.name)
        self.session_task = task

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="form"):
            yield Static(f"{self.session_task.title} session", id="form-title", markup=False)
            yield ExistingSessionOffer(id="existing")  # shown when this participant's session already exists
            yield OptionForm(
                FormSection(self.session_task.session_options),
                FormSection(self.session_task.plan_options, heading=f"{self.session_task.title} plan"),
                defaults={"dataset": str(self.session_task.default_dataset()), **self.remembered_values}, id="options",
            )
            yield Static("", id="default-out", markup=False)
            yield Static("", id="error", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Start session (Ctrl+S)", id="start", variant="primary")
                yield Button("Back (Esc)", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self.focus_field("participant")
        self._update_default_out()
        self._look_up_choices(self._dataset())
        self.say_memory_note()

    def on_option_form_changed(self, event: OptionForm.Changed) -> None:
        if event.name == "dataset":
            self._update_default_out()
            self._look_up_choices(self._dataset())

    def _dataset(self) -> str:
        return str(self.form.raw("dataset") or self.session_task.default_dataset())

    @work(thread=True, exclusive=True, group="data-choices")
    def _look_up_choices(self, dataset: str) -> None:
        """The values the data set holds (e.g. the excerpt lengths present) as choices, off the UI thread (a data
        set on a network share can be slow to list); free entry where the data set cannot be read."""
        task = self.session_task
        if not isinstance(task, DataChoices):
            return
        choices = task.data_choices(dataset)
        self.app.call_from_thread(self.call_later, self._offer_choices, choices)

    async def _offer_choices(self, choices: dict[str, tuple[str, ...]]) -> None:
        for name, info in self.form.infos.items():
            if name in self.session_task.plan_options.model_fields and info.kind in ("int", "float", "str"):
                await self.form.offer_choices(name, choices.get(name, ()))

    def _update_default_out(self) -> None:
        dataset = self._dataset()
        out = self.session_task.default_out(dataset)
        self.query_one("#default-out", Static).update(f"Default output folder: {out}")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "back":
            self.app.pop_screen()

    def options(self) -> tuple[SessionOptions, Options]:
        """The checked session and plan options (the first wrong field as :class:`OptionError`)."""
        session = self._parse(self.session_task.session_options)
        plan = self._parse(self.session_task.plan_options)
        return session, plan

    def _parse(self, model: type[Options]) -> Any:
        values = self.form.values(model)
        missing = [name for name, info in self.form.infos.items()
                   if info.required and name in model.model_fields and name not in values]
        if missing:  # a blank required box: say what to enter, not that a field "is required"
            info = self.form.infos[missing[0]]
            error = OptionError(info.name, "is required", label=info.label)
            error.message = f"enter a {info.label.lower()}"
            raise error
        return parse_options(model, values)

    def action_start(self) -> None:
        try:
            session, plan = self.options()
        except BenchlabError as exc:
            self._show_error(exc)
            return
        self.form.clear_errors()
        self.query_one("#error", Static).update("Preparing the session...")
        self.query_one("#start", Button).disabled = True
        self._prepare(session, plan)

    @work(thread=True, exclusive=True)
    def _prepare(self, session: SessionOptions, plan: Options) -> None:
        """Loading a full test set takes seconds; keep the form responsive meanwhile."""
        try:
            runner = session_handover.prepare(self.session_task, session, plan)
        except BenchlabError as exc:
            self.app.call_from_thread(self._failed, exc)
            return
        self.app.call_from_thread(self._ready, runner, plan)

    def _failed(self, exc: BenchlabError) -> None:
        self.query_one("#start", Button).disabled = False
        self._show_error(exc)

    def _offer_existing(self, exc: BenchlabError) -> bool:
        """This participant's session was already started: offer the two ways on, as buttons at the top of the form
        (the Resume box sat below the fold, and the message spoke of a flag)."""
        offer = self.query_one(ExistingSessionOffer)
        if not already_started(exc):
            offer.hide()
            return False
        session = self.form.raw("session") or "1"
        participant = self.form.raw("participant")
        out = self.form.raw("out") or str(self.session_task.default_out(
            str(self.form.raw("dataset") or self.session_task.default_dataset())))
        following = next_session_number(Path(out).expanduser(), participant, self.session_task.name, session)
        finished = session_finished(Path(out).expanduser(), participant, self.session_task.name, session)
        self.query_one("#error", Static).update(existing_message(participant, session, following, finished))
        offer.offer(session, following, finished=finished)
        return True

    def on_existing_session_offer_chosen(self, event: ExistingSessionOffer.Chosen) -> None:
        event.apply(self.form)
        self.action_start()

    def _show_error(self, exc: BenchlabError) -> None:
        """The message below the form is off-screen on a small terminal: also a toast, and the message beside the
        offending field, which gets the focus (and so scrolls into view)."""
        if self._offer_existing(exc):
            return
        message = self._in_form_words(exc)
        self.query_one("#error", Static).update(message)
        self.notify(message, title="Cannot start the session", severity="error", timeout=10)
        field = self._field_of(exc)
        if field is None or not self.form.show_error(field, message):
            self.form.clear_errors()
            self.query_one("#error", Static).scroll_visible(animate=False)

    def _in_form_words(self, exc: BenchlabError) -> str:
        """The message naming other fields by their labels on this form, where the command line names flags."""
        if not isinstance(exc, OptionError) or "{" not in exc.problem:
            return str(exc)
        labels = {name: f'"{info.label}"' for name, info in self.form.infos.items()}
        return str(BenchlabError(exc.worded(exc.label, labels), exc.path))

    def _field_of(self, exc: BenchlabError) -> str | None:
        """The field an error is about: the one it names, else the path field holding the file it names."""
        if isinstance(exc, OptionError):
            return exc.field
        if exc.path is None:
            return None
        for name, info in self.form.infos.items():
            if info.kind != "path":
                continue
            value = self.form.raw(name)
            if name == "dataset" and not value:
                value = str(self.session_task.default_dataset())
            if value and _same_or_inside(exc.path, Path(value).expanduser()):
                return name
        return None

    def _ready(self, runner: SessionRunner, plan: Options) -> None:
        """Prepared: the preview decides (Back undoes the preparation; Start remembers the form and hands over)."""
        self.query_one("#error", Static).update("")
        self.query_one("#start", Button).disabled = False

        session_handover.preview_then_start(self.app, runner, self.session_task, plan, before_start=self.remember,
                                         on_error=self._show_error)


def _same_or_inside(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies inside it (errors often name a file inside the folder the form gave)."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True

