"""The launcher's "Curate fastbook": which file to edit (or a working copy of the shared one), its chapters, the
runs to re-score and who curates; then the editor opens behind a loading indicator (loading and auditing take
seconds).

Opening the shared file read-only with no way to pick or copy one was the launcher's dead end for curators.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Footer, Header, LoadingIndicator, Static

from benchlab.annotations.fastbook.curate_options import CurateOptions
from benchlab.annotations.fastbook.editor_inputs import (
    default_benchmark,
    default_chapters,
    load_editor_inputs,
    load_queue,
    working_copy,
)
from benchlab.annotations.options import OptionError, parse_options
from benchlab.data.errors import BenchlabError
from benchlab.data.settings import get_settings
from benchlab.tui.screens.remembered_form import RememberedFormScreen
from benchlab.tui.widgets.option_form import FormSection, OptionForm

MEMORY_KEY = "curate-fastbook"


class CurateOpenScreen(RememberedFormScreen):
    CSS_PATH = "curate_open.tcss"
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("ctrl+o", "open", "Open")]

    def __init__(self) -> None:
        super().__init__(MEMORY_KEY)

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="form"):
            yield Static("Curate fastbook contexts", id="form-title")
            yield OptionForm(FormSection(CurateOptions), defaults=self.remembered_values, id="options")
            yield Static("", id="note", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Open (Ctrl+O)", id="open", variant="primary")
                yield Button("Make a working copy", id="copy")
                yield Button("Back (Esc)", id="back")
            yield LoadingIndicator(id="loading")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#loading").display = False
        self.focus_field("benchmark")
        self.say_memory_note()
        self._describe()

    def on_option_form_changed(self, event: OptionForm.Changed) -> None:
        if event.name in ("benchmark", "curator"):
            self._describe()

    def _source(self) -> Path:
        raw = self.form.raw("benchmark")
        return Path(raw).expanduser() if raw else default_benchmark()

    def _copy_target(self) -> Path:
        curator = self.form.raw("curator") or "curator"
        return get_settings().data_dir / "fastbook-curation" / curator / self._source().name

    def _describe(self) -> None:
        if self.form.raw("benchmark"):
            text = f"Edits go to {self._source()} (with .bak and .changes.jsonl beside it)."
        else:
            text = (f"No file chosen: the shared file {self._source()} opens read-only. \"Make a working copy\" "
                    f"copies it to {self._copy_target()} and opens the copy for editing.")
        self.query_one("#note", Static).update(text)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "open":
            self.action_open()
        elif event.button.id == "copy":
            self.action_copy()
        else:
            self.app.pop_screen()

    def action_copy(self) -> None:
        source = self._source()
        chapters = self.form.raw("chapters")
        try:
            copy = working_copy(source, self._copy_target())
        except BenchlabError as exc:
            self._error(exc)
            return
        self.form.set_raw("benchmark", copy)
        if not chapters:  # the chapters stay where they are: point the copy at them
            self.form.set_raw("chapters", default_chapters(source))
        self.notify(f"Working copy made: {copy}", timeout=8)
        self.action_open()

    def action_open(self) -> None:
        try:
            opts = parse_options(CurateOptions, self.form.values(CurateOptions))
        except BenchlabError as exc:
            self._error(exc)
            return
        self.form.clear_errors()
        self.query_one("#loading").display = True
        self.query_one("#note", Static).update("Opening: reading the file and the chapters, auditing every context...")
        self.query_one("#open", Button).disabled = True
        self._load(opts)

    @work(thread=True, exclusive=True)
    def _load(self, opts: CurateOptions) -> None:
        try:
            inputs = load_editor_inputs(opts.benchmark, opts.chapters, opts.runs, opts.curator)
            queue = load_queue(opts.plan, inputs[0]) if opts.plan is not None else None
        except BenchlabError as exc:
            self.app.call_from_thread(self._failed, exc)
            return
        self.app.call_from_thread(self._loaded, (*inputs, queue))

    def _failed(self, exc: BenchlabError) -> None:
        self.query_one("#loading").display = False
        self.query_one("#open", Button).disabled = False
        self._error(exc)

    def _loaded(self, inputs: Any) -> None:
        # deferred: the editor's screen and widgets load when a file opens, so the form itself opens at once.
        from benchlab.tui.fastbook.editor_screen import FastbookCurateScreen

        self.query_one("#loading").display = False
        self.query_one("#open", Button).disabled = False
        self._describe()
        self.remember()
        session, chapters, runs, queue = inputs
        self.app.push_screen(FastbookCurateScreen(session, chapters, runs, exit_app_on_quit=False, queue=queue))

    def _error(self, exc: BenchlabError) -> None:
        message = str(exc)
        self.query_one("#note", Static).update(message)
        field = exc.field if isinstance(exc, OptionError) else None
        if field is None and exc.path is not None:
            plan = self.form.raw("plan")
            field = "plan" if plan and exc.path == Path(plan).expanduser() else "benchmark"
        if not (field and self.form.show_error(field, message)):
            self.notify(message, title="Cannot open the editor", severity="error", timeout=10)
