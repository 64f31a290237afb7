"""The launcher's "Open study": a study folder and a participant id are all the experimenter types; the study file
gives the benchmark, the options and the participant's arm. The same preview as a session form follows, with the
study and the arm in it, and the assignment is recorded only when the session is handed over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Footer, Header, Static

from benchlab.annotations.options import OptionError, parse_options
from benchlab.annotations.study import Study, StudyAssignment, load_study
from benchlab.annotations.study_commands import StudyRunOptions
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

#: The form memory's key for this screen (it remembers the study folder only).
MEMORY_KEY = "study"


class StudyOpenScreen(RememberedFormScreen):
    CSS_PATH = "study_open.tcss"
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("ctrl+s", "start", "Preview")]

    def __init__(self) -> None:
        super().__init__(MEMORY_KEY)

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="form"):
            yield Static("Open a study", id="form-title")
            yield ExistingSessionOffer(id="existing")  # shown when this participant's session already exists
            yield OptionForm(FormSection(StudyRunOptions), defaults=self.remembered_values, id="options")
            yield Static("", id="study-summary", markup=False)
            yield Static("", id="error", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Preview (Ctrl+S)", id="start", variant="primary")
                yield Button("Back (Esc)", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self.focus_field("participant" if self.remembered_values.get("study") else "study")
        self.say_memory_note()
        self._describe()

    def on_option_form_changed(self, event: OptionForm.Changed) -> None:
        if event.name == "study":
            self._describe()

    def _describe(self) -> None:
        """The study's title, benchmark and arms under the form, once the folder holds one (errors wait for Start)."""
        folder = self.form.raw("study")
        text = ""
        if folder and (Path(folder).expanduser() / "study.toml").is_file():
            try:
                study = load_study(folder, session_handover.tasks())
            except BenchlabError as exc:
                text = f"Study file problem: {exc}"
            else:
                arms = ", ".join(a.name for a in study.spec.arms)
                text = (f"{study.spec.title}: {study.task.title}; arms {arms} ({study.spec.assignment.rule}); "
                        f"{len(study.assignments())} sessions so far; results in {study.out}")
        self.query_one("#study-summary", Static).update(text)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "back":
            self.app.pop_screen()

    def action_start(self) -> None:
        try:
            opts = parse_options(StudyRunOptions, self.form.values(StudyRunOptions))
            if not opts.study:
                raise OptionError("study", "is needed: the folder that holds study.toml", label="Study folder")
            if not opts.participant:
                raise OptionError("participant", "is needed: who is this session for?", label="Participant id")
            study = load_study(opts.study, session_handover.tasks())
            assignment = study.assign(opts.participant, opts.session, resume=opts.resume)
        except BenchlabError as exc:
            self._show_error(exc, study_error=not isinstance(exc, OptionError))
            return
        self.form.clear_errors()
        self.query_one("#error", Static).update("Preparing the session...")
        self.query_one("#start", Button).disabled = True
        self._prepare(study, assignment)

    @work(thread=True, exclusive=True)
    def _prepare(self, study: Study, assignment: StudyAssignment) -> None:
        try:
            runner = session_handover.prepare(study.task, assignment.session_options, assignment.plan_options)
        except BenchlabError as exc:
            self.app.call_from_thread(self._failed, exc, study)
            return
        self.app.call_from_thread(self._ready, study, assignment, runner)

    def _failed(self, exc: BenchlabError, study: Study | None = None) -> None:
        self.query_one("#start", Button).disabled = False
        offer = self.query_one(ExistingSessionOffer)
        if study is not None and already_started(exc):
            session = self.form.raw("session") or "1"
            participant = self.form.raw("participant")
            following = next_session_number(study.out, participant, study.task.name, session)
            finished = session_finished(study.out, participant, study.task.name, session)
            self.query_one("#error", Static).update(
                existing_message(participant, session, following, finished, "of this study"))
            offer.offer(session, following, finished=finished)
            return
        offer.hide()
        self._show_error(exc)

    def on_existing_session_offer_chosen(self, event: ExistingSessionOffer.Chosen) -> None:
        event.apply(self.form)
        self.action_start()

    def _ready(self, study: Study, assignment: StudyAssignment, runner: Any) -> None:
        self.query_one("#error", Static).update("")
        self.query_one("#start", Button).disabled = False
        how = "as assigned before" if not assignment.new else f"{study.spec.assignment.rule} assignment"
        extra = [("Study", f"{study.spec.title} ({study.path})"), ("Arm", f"{assignment.arm} ({how})")]
        if changed := study.changed_since_start():
            extra.append(("Warning", changed))

        def record() -> None:
            study.record(assignment, runner.files.plan)
            self.remember({"study": self.form.raw("study")})

        session_handover.preview_then_start(self.app, runner, study.task, assignment.plan_options, extra=extra,
                                         before_start=record, on_error=self._show_error)

    def _show_error(self, exc: BenchlabError, *, study_error: bool = False) -> None:
        """Beside its field: an option's error there, a study file's beside the study folder."""
        message = str(exc)
        self.query_one("#error", Static).update(message)
        field = exc.field if isinstance(exc, OptionError) else ("study" if study_error else None)
        if field is None or not self.form.show_error(field, message):
            self.form.clear_errors()
