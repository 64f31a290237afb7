"""The fastbook-benchmark context-annotation editor: question list, question detail, chapter text, scores.

Keyboard-first (every action has a key, shown in the footer); the chapter is a read-only text area, so a
context is always the exact substring selected (shift+arrows or the mouse), never retyped. All file changes
go through :class:`~benchlab.annotations.fastbook.curation.CurationSession` (undo/redo, change log, safe save).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Static

from benchlab.annotations.fastbook.context_edits import (
    AddContext,
    AddQuestionContext,
    DeleteContext,
    DeleteQuestionContext,
    Edit,
    EditMismatch,
    FlagName,
    QuestionId,
    ReplaceContext,
    SetComponentText,
    SetFlag,
    SetQuestionComponent,
    Slot,
    add_component,
    delete_component,
    toggled,
)
from benchlab.annotations.fastbook.curation import CurationSession, SaveConflict
from benchlab.annotations.fastbook.editor_model import CurateModel
from benchlab.annotations.fastbook.progress import CuratorQueue
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import Question
from benchlab.data.fastbook.chapters import Chapter
from benchlab.data.fastbook.runs import Run
from benchlab.tui.fastbook.chapter_view import ChapterView
from benchlab.tui.fastbook.context_text_edit import ContextTextEdit
from benchlab.tui.fastbook.curate_confirm import CurateConfirm
from benchlab.tui.fastbook.diff_screen import CurateDiff
from benchlab.tui.fastbook.keys_screen import CurateKeysScreen, binding_rows
from benchlab.tui.fastbook.question_detail import DetailItem, FastbookQuestionDetail
from benchlab.tui.fastbook.question_list import FastbookQuestionList
from benchlab.tui.fastbook.run_scores import FastbookRunScores

MAX_SEARCH_MARKS = 500
DISK_CHECK_SECONDS = 5.0


@dataclass
class _Search:
    needle: str = ""
    hits: list[int] = field(default_factory=list)
    index: int = -1


class FastbookCurateScreen(Screen[None]):
    """Edit the contexts of one benchmark file."""

    CSS_PATH = "editor_screen.tcss"
    # In footer order: what fits on an 80-column line first ("?" lists them all, with what each does).
    BINDINGS = [
        Binding("question_mark", "toggle_keys", "Keys", tooltip="Every key, with what it does"),
        Binding("ctrl+s", "save", "Save", priority=True, tooltip="Save the file (atomically, with a .bak)"),
        Binding("ctrl+z", "undo", "Undo", priority=True, tooltip="Undo the last edit"),
        Binding("ctrl+y", "redo", "Redo", priority=True, tooltip="Redo the last undone edit"),
        Binding("w", "switch_pane", "Pane", tooltip="Switch between the question and the chapter (small windows) "
                "or move the focus between them"),
        Binding("a", "add", "Add", tooltip="Add the chapter selection as a context of the item under the cursor"),
        Binding("r", "replace", "Replace", tooltip="Replace the context under the cursor by the chapter selection"),
        Binding("d,delete", "delete", "Delete", tooltip="Delete the context, question_context or component under "
                "the cursor (a component after confirming)"),
        Binding("e", "edit", "Edit text", tooltip="Edit the text of the item under the cursor (a context, a "
                "question_context's name, or a component's answer text)"),
        Binding("o", "add_component", "New component", show=False,
                tooltip="Add an answer component after the one under the cursor"),
        Binding("x", "toggle_flag('explicit_context')", "Explicit", show=False, tooltip="Toggle explicit_context"),
        Binding("n", "toggle_flag('extraneous_answer')", "Extraneous", show=False, tooltip="Toggle extraneous_answer"),
        Binding("f", "use_suggestion", "Use fix", show=False, tooltip="Use the audit's suggested fix for this context"),
        Binding("c", "add_question_context", "Q-context", show=False,
                tooltip="Add the chapter selection as a question_context"),
        Binding("j", "jump", "Jump", show=False, tooltip="Select the context under the cursor in the chapter"),
        Binding("slash", "search", "Search", show=False, tooltip="Search the chapter (enter: next match)"),
        Binding("p", "problems_only", "Problems", show=False, tooltip="List only questions with problems"),
        Binding("v", "diff", "Diff", show=False, tooltip="Show every change since the file was opened"),
        Binding("m", "toggle_done", "Done", tooltip="Mark the question done in your queue (again: not done)"),
        Binding("t", "toggle_all", "All/queue", show=False,
                tooltip="List all questions, or only your queue (with an assignment plan)"),
        Binding("q", "quit_editor", "Quit", tooltip="Quit (asks when there are unsaved changes)"),
    ]
    #: Below this size the two panes take turns (``w`` switches): side by side, at 80x24 the edit panel had no
    #: height and the chapter about 20 columns.
    COMPACT_BELOW = (110, 32)

    def __init__(self, session: CurationSession, chapters: dict[int, Chapter], runs: list[Run] | None = None,
                 *, k: int = 10, exit_app_on_quit: bool = True, queue: CuratorQueue | None = None) -> None:
        super().__init__()
        self.session = session
        #: The curator's queue and done marks when the editor was opened with an assignment plan.
        self.queue = queue
        self.exit_app_on_quit = exit_app_on_quit
        self.model = CurateModel(session.benchmark, chapters, runs or [], k=k)
        self.k = k
        self.qid: QuestionId = queue.questions[0] if queue and queue.questions else session.benchmark.questions[0].id
        self._shown_chapter: int | None = None
        self._search = _Search()
        self._message = ""
        self._warned_disk_change = False

    # -- layout -----------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield FastbookQuestionList(id="questions")
                yield FastbookQuestionDetail(id="detail")
                yield FastbookRunScores(id="runs")
            with Vertical(id="right"):
                yield Input(placeholder="Search the chapter (/ then enter; enter again for the next hit)",
                            id="search", compact=True)
                yield ChapterView(id="chapter")
        yield Static(id="status")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        width, height = self.COMPACT_BELOW
        self.set_class(event.size.width < width or event.size.height < height, "-compact")

    @property
    def compact(self) -> bool:
        return self.has_class("-compact")

    def show_pane(self, pane: str) -> None:
        """``"chapter"`` or ``"question"``: the pane shown in a compact window, and the one with the focus."""
        self.set_class(pane == "chapter", "-chapter")
        if pane == "chapter":
            self.chapter_view.focus()
        else:
            self.detail.query_one("#items").focus()

    def action_switch_pane(self) -> None:
        in_chapter = self.has_class("-chapter") if self.compact else self.chapter_view.has_focus
        self.show_pane("question" if in_chapter else "chapter")

    def on_mount(self) -> None:
        self.app.sub_title = f"{self.session.path.name} · curator {self.session.curator}"
        questions = self.query_one(FastbookQuestionList)
        questions.border_title = "Questions (p: problems only)"
        if self.queue is not None:
            questions.border_title = f"{self.queue.curator}'s queue (p: problems only, t: all questions)"
            questions.queue, questions.done = set(self.queue.questions), set(self.queue.done)
        self.query_one("#chapter", ChapterView).border_title = "Chapter"
        questions.set_rows(self.model.rows(), keep=self.qid)
        self._show_question(self.qid)
        questions.focus()
        if not self.session.writable:
            self._say(f"Read-only: {self.session.read_only_reason}", warning=True)
        else:
            self._offer_recovery()
            self.set_interval(DISK_CHECK_SECONDS, self._watch_disk)

    def _watch_disk(self) -> None:
        """Warn once as soon as someone else changes the file, not only when saving."""
        if self.session.disk_changed():
            if not self._warned_disk_change:
                self._warned_disk_change = True
                self._say(f"{self.session.path.name} was changed on disk by someone else; saving will ask before "
                          "overwriting it.", warning=True)
        else:
            self._warned_disk_change = False

    def _offer_recovery(self) -> None:
        """A previous session ended without saving: offer to re-apply its logged edits (nothing is lost)."""
        pending = self.session.unsaved_in_log()
        if not pending:
            return
        last = pending[-1]

        def answer(ok: bool | None) -> None:
            if not ok:
                self._say("Unsaved edits of the previous session were not re-applied (they stay in the change log).")
                return
            try:
                done = self.session.recover(pending)
            except (EditMismatch, BenchlabError) as exc:
                done = len(self.session.history.undo_stack)
                self._say(f"Re-applied {done} of {len(pending)} edits; then: {exc}", error=True)
            else:
                self._say(f"Re-applied {done} unsaved edit{'s' if done != 1 else ''} of the previous session "
                          "(ctrl+z undoes them one by one).")
            self.query_one(FastbookQuestionList).set_rows(self.model.rows(), keep=self.qid)
            for qid in {(r.chapter or 0, r.question_number or 0) for r in pending}:
                if self.session.benchmark.get(*qid) is not None:
                    self.model.invalidate(qid)
            self._show_question(self.qid)

        self.app.push_screen(CurateConfirm(
            f"The change log has {len(pending)} edit{'s' if len(pending) != 1 else ''} by {last.curator} "
            f"(last at {last.time}) that were never saved to {self.session.path.name}: that session ended without "
            "saving. Re-apply them now?", yes="Re-apply", no="Leave them"), answer)

    # -- helpers ----------------------------------------------------------------------------------------------
    @property
    def question(self) -> Question:
        return self.session.benchmark.question(self.qid)

    @property
    def chapter_view(self) -> ChapterView:
        return self.query_one("#chapter", ChapterView)

    @property
    def detail(self) -> FastbookQuestionDetail:
        return self.query_one(FastbookQuestionDetail)

    def _say(self, message: str, *, error: bool = False, warning: bool = False) -> None:
        self._message = message
        if error or warning:
            self.notify(message, severity="error" if error else "warning", timeout=6)
        self._update_status()

    def _update_status(self) -> None:
        edits = len(self.session.history.undo_stack)
        if not self.session.writable:
            state = Text("read-only", style="bold red")
        elif self.session.dirty:
            state = Text(f"● unsaved changes ({edits} edit{'s' if edits != 1 else ''} in the undo history)",
                         style="bold yellow")
        else:
            state = Text("✓ no unsaved changes", style="green")
        progress = Text(f"{self.queue.curator}: {self.queue.progress_text()}  ", style="bold") \
            if self.queue is not None else Text()
        status = Text.assemble(progress, state, "  ", (self._message, "italic"))
        self.query_one("#status", Static).update(status)
        self.app.title = ("● " if self.session.dirty else "") + "benchlab curate fastbook"

    def _show_question(self, qid: QuestionId, *, keep: int | None = None, scroll: bool = True) -> None:
        self.qid = qid
        question = self.question
        marks = self.model.marks(question)
        self.detail.show(question, marks, keep=keep)
        chapter = self.model.chapters.get(question.chapter)
        view = self.chapter_view
        if chapter is not None and self._shown_chapter != question.chapter:
            view.set_chapter(chapter.text)
            view.border_title = f"Chapter {question.chapter} ({len(chapter.text):,} chars, "\
                                f"{len(self.model.chunk_starts(question.chapter))} chunks)"
            self._shown_chapter = question.chapter
            self._search = _Search()
        self._mark_chapter(scroll=scroll)
        self._show_scores()
        self._update_status()

    def _mark_chapter(self, scroll: bool = False) -> None:
        """Highlight every context of the question where it occurs; the one under the cursor in bold."""
        question = self.question
        current = self.detail.current
        marks: list[tuple[int, int, str]] = []
        current_span: tuple[int, int] | None = None
        for (slot, position), mark, text in self.model.contexts_with_marks(question):
            spans = self.model.occurrences(question.chapter, text)
            kind = "context" if mark.state == "ok" else "context-warn"
            marks.extend((s, e, kind) for s, e in spans)
            # The context under the cursor, or the first context of the component under it.
            if current is not None and current.slot == slot and spans and current_span is None and (
                current.position == position or current.position is None
            ):
                current_span = spans[0]
                marks.append((*spans[0], "current"))
        marks.extend((s, s + 1, "chunk-start") for s in self.model.chunk_starts(question.chapter))
        cut = self.model.halving_cut(question.chapter)
        if cut is not None:
            marks.append((cut, cut + 1, "chunk-start"))
        if self._search.needle:
            n = len(self._search.needle)
            marks.extend((s, s + n, "search") for s in self._search.hits[:MAX_SEARCH_MARKS])
        self.chapter_view.set_marks(marks)
        if scroll and current_span is not None:
            self.chapter_view.scroll_to_span(*current_span)

    def _show_scores(self) -> None:
        self.query_one(FastbookRunScores).show(self.model.score_rows(self.qid), self.k,
                                               f"ch{self.qid[0]} q{self.qid[1]}")

    def _after_change(self, qid: QuestionId, focus: DetailItem | None = None) -> None:
        self.model.invalidate(qid)
        questions = self.query_one(FastbookQuestionList)
        questions.update_row(self.model.row(self.session.benchmark.question(qid)))
        if qid != self.qid:
            questions.select_question(qid)
        keep = self.detail.index_of(focus, self.question_for(qid)) if focus is not None else None
        if keep is None:
            keep = self.detail.query_one("#items").highlighted  # type: ignore[attr-defined]
        # Keep the chapter where the curator is working, unless the edit is on another question (undo/redo).
        self._show_question(qid, keep=keep, scroll=qid != self.qid)

    def question_for(self, qid: QuestionId) -> Question:
        return self.session.benchmark.question(qid)

    def _apply(self, edit: Edit, focus: DetailItem | None = None) -> bool:
        if not self.session.writable:
            self._say(f"Read-only: {self.session.read_only_reason}", error=True)
            return False
        try:
            self.session.apply(edit)
        except (EditMismatch, BenchlabError) as exc:
            self._say(f"Not changed: {exc}", error=True)
            return False
        self._after_change(edit.qid, focus)
        self._say(edit.describe()[0].upper() + edit.describe()[1:])
        if self.queue is not None:
            try:
                self.queue.touch(edit.qid)
            except BenchlabError as exc:
                self._say(f"Progress not saved: {exc}", error=True)
        return True

    def _validated(self, text: str, then: Callable[[], object]) -> None:
        """Run ``then`` if ``text`` is in the chapter; ask first when it cannot be matched by the scorer."""
        problem = self.model.refusal(self.question.chapter, text)
        if problem:
            self._say(f"Not accepted: {problem}", error=True)
            return
        mark = self.model.check(self.question.chapter, text)
        if mark.state == "ok":
            then()
            return

        def answer(ok: bool | None) -> None:
            if ok:
                then()
            else:
                self._say("Not changed.")

        self.app.push_screen(
            CurateConfirm(f"This context is in the chapter text, but {mark.reason}.\n\nThe benchmark's scoring can "
                          "never match it. Accept it anyway?", yes="Accept anyway"),
            answer,
        )

    def _selection(self) -> str | None:
        text = self.chapter_view.selected_text
        if not text:
            self._say("Select a span of the chapter text first (shift+arrows, or drag with the mouse).", error=True)
            return None
        return text

    def _item(self, *kinds: str) -> DetailItem | None:
        item = self.detail.current
        if item is None or item.kind not in kinds:
            wanted = " or ".join(kinds).replace("qc-context", "question_context context").replace("qc",
                                                                                                  "question_context")
            self._say(f"Move the cursor in the question panel to a {wanted} first.", error=True)
            return None
        return item

    # -- events -----------------------------------------------------------------------------------------------
    def on_fastbook_question_list_chosen(self, event: FastbookQuestionList.Chosen) -> None:
        if event.qid != self.qid or self._shown_chapter is None:
            self._show_question(event.qid)

    def on_fastbook_question_detail_item_highlighted(self, event: FastbookQuestionDetail.ItemHighlighted) -> None:
        self._mark_chapter(scroll=True)

    def on_fastbook_question_detail_item_chosen(self, event: FastbookQuestionDetail.ItemChosen) -> None:
        if event.item is not None and event.item.position is not None:
            self.action_jump()

    def on_text_area_selection_changed(self, event: ChapterView.SelectionChanged) -> None:
        """Say, while the curator selects, whether the span fits in one chunk (before they press a)."""
        if event.text_area is not self.chapter_view:
            return
        start, end = self.chapter_view.selected_span()
        row = self.chapter_view.selection.end[0] + 1
        feedback = self.model.span_feedback(self.question.chapter, start, end)
        self.chapter_view.border_subtitle = f"line {row}" + (f" · {feedback}" if feedback else "")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "search":
            return
        needle = event.value
        chapter = self.model.chapters.get(self.question.chapter)
        if not needle or chapter is None:
            return
        if needle != self._search.needle:
            self._search = _Search(needle, self.model.search(self.question.chapter, needle), -1)
        hits = self._search.hits
        if not hits:
            self._say(f"“{needle}” is not in chapter {self.question.chapter}.", warning=True)
            self._mark_chapter()
            return
        self._search.index = (self._search.index + 1) % len(hits)
        start = hits[self._search.index]
        self._mark_chapter()
        self.chapter_view.select_span(start, start + len(needle))
        self._say(f"“{needle}”: match {self._search.index + 1} of {len(hits)} in chapter {self.question.chapter}"
                  " (escape: back to the text)")

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.query_one("#search", Input).has_focus:
            self.chapter_view.focus()  # back to the text, with the found match still selected

    # -- actions ----------------------------------------------------------------------------------------------
    def action_add(self) -> None:
        item = self._item("component", "context", "qc", "qc-context")
        text = self._selection() if item else None
        if item is None or text is None:
            return
        contexts = item.slot.contexts(self.question)
        position = item.position + 1 if item.position is not None else len(contexts)
        focus = DetailItem("context" if item.slot.kind == "answer" else "qc-context", item.slot, position)
        edit = AddContext(self.qid, item.slot, position, text)
        self._validated(text, lambda: self._apply(edit, focus))

    def action_replace(self) -> None:
        item = self._item("context", "qc-context")
        text = self._selection() if item else None
        if item is None or text is None or item.position is None:
            return
        before = item.slot.contexts(self.question)[item.position]
        if before == text:
            self._say("The selection is the same as this context; nothing to replace.")
            return
        edit = ReplaceContext(self.qid, item.slot, item.position, before, text)
        self._validated(text, lambda: self._apply(edit, item))

    def action_delete(self) -> None:
        item = self._item("context", "qc-context", "qc", "component")
        if item is None:
            return
        if item.kind == "component":
            self._delete_component(item)
            return
        if item.kind == "qc":
            entry = self.question.question_context[item.slot.index]
            self._apply(DeleteQuestionContext(self.qid, item.slot.index, entry))
            return
        assert item.position is not None
        text = item.slot.contexts(self.question)[item.position]
        self._apply(DeleteContext(self.qid, item.slot, item.position, text))

    def action_edit(self) -> None:
        item = self._item("context", "qc-context", "qc", "component")
        if item is None:
            return
        question = self.question
        if item.kind == "component":
            self._edit_component_text(item)
            return
        if item.kind == "qc":
            before = question.question_context[item.slot.index].question_component

            def renamed(value: str | None) -> None:
                if value is not None and value != before:
                    self._apply(SetQuestionComponent(self.qid, item.slot.index, before, value), item)

            self.app.push_screen(ContextTextEdit(f"question_component of question_context {item.slot.index}",
                                                 before, lambda v: None if v.strip() else "it is empty"), renamed)
            return
        assert item.position is not None
        old = item.slot.contexts(question)[item.position]
        chapter = question.chapter

        def edited(value: str | None) -> None:
            if value is None or value == old:
                return
            edit = ReplaceContext(self.qid, item.slot, item.position or 0, old, value)
            self._validated(value, lambda: self._apply(edit, item))

        self.app.push_screen(
            ContextTextEdit(f"Context {item.position} of {item.slot.label}, chapter {chapter} q"
                            f"{question.question_number} (must be found in the chapter text)", old,
                            lambda v: self.model.refusal(chapter, v)),
            edited,
        )

    def action_use_suggestion(self) -> None:
        """Replace a context the scoring can never match with the audit's fix (chapter spelling, part in a chunk)."""
        item = self._item("context", "qc-context")
        if item is None or item.position is None:
            return
        old = item.slot.contexts(self.question)[item.position]
        mark = self.model.check(self.question.chapter, old)
        if mark.state == "ok":
            self._say("This context is matched by the scoring as it is; nothing to fix.")
            return
        if not mark.suggestion or mark.suggestion == old:
            self._say(f"No automatic fix ({mark.reason}); select the right span in the chapter and press r.",
                      error=True)
            return
        edit = ReplaceContext(self.qid, item.slot, item.position, old, mark.suggestion)
        self._validated(mark.suggestion, lambda: self._apply(edit, item))

    def action_toggle_flag(self, flag: FlagName) -> None:
        item = self._item("component", "context")
        if item is None:
            return
        component = self.question.answer_context[item.slot.index]
        before = getattr(component, flag)
        self._apply(SetFlag(self.qid, item.slot.index, flag, before, toggled(before)), item)

    def action_add_question_context(self) -> None:
        selection = self.chapter_view.selected_text
        question = self.question
        position = len(question.question_context)

        def named(value: str | None) -> None:
            if value is None:
                return
            contexts = (selection,) if selection else ()
            edit = AddQuestionContext(self.qid, position, value, contexts)
            focus = DetailItem("qc", Slot("question", position))
            if selection:
                self._validated(selection, lambda: self._apply(edit, focus))
            else:
                self._apply(edit, focus)

        hint = " with the selected chapter text as its context" if selection else " (no chapter text selected)"
        self.app.push_screen(ContextTextEdit(f"New question_context: the part of the question it supports{hint}", "",
                                             lambda v: None if v.strip() else "it is empty"), named)

    def action_undo(self) -> None:
        try:
            edit = self.session.undo()
        except (EditMismatch, BenchlabError) as exc:
            self._say(f"Undo failed: {exc}", error=True)
            return
        if edit is None:
            self._say("Nothing to undo.")
            return
        self._after_change(edit.qid)
        self._say(f"Undone: {edit.describe()}")

    def action_redo(self) -> None:
        try:
            edit = self.session.redo()
        except (EditMismatch, BenchlabError) as exc:
            self._say(f"Redo failed: {exc}", error=True)
            return
        if edit is None:
            self._say("Nothing to redo.")
            return
        self._after_change(edit.qid)
        self._say(f"Redone: {edit.describe()}")

    def action_save(self) -> None:
        try:
            result = self.session.save()
        except SaveConflict:
            def answer(ok: bool | None) -> None:
                if ok:
                    self._save(force=True)
                else:
                    self._say("Not saved: the file on disk was left as it is. Your edits are still here.",
                              warning=True)

            self.app.push_screen(
                CurateConfirm(f"{self.session.path.name} changed on disk since it was loaded (someone else saved "
                              "it, or it was restored). Overwrite it with your version?\n\nThe version now on disk "
                              "is kept as the .bak backup.", yes="Overwrite"),
                answer,
            )
            return
        except BenchlabError as exc:
            self._say(f"Not saved: {exc}", error=True)
            return
        self._saved(result.backup)

    def _save(self, force: bool) -> None:
        try:
            result = self.session.save(force=force)
        except BenchlabError as exc:
            self._say(f"Not saved: {exc}", error=True)
            return
        self._saved(result.backup)

    def _saved(self, backup: object) -> None:
        self.query_one(FastbookQuestionList).set_rows(self.model.rows(), keep=self.qid)
        self._say(f"Saved {self.session.path}" + (f" (previous version: {backup})" if backup else ""))

    def action_diff(self) -> None:
        changed = self.session.changed_ids()
        title = f"Session edits: {len(changed)} question{'s' if len(changed) != 1 else ''} changed " \
                f"({'unsaved' if self.session.dirty else 'saved'}) · escape to close"
        self.app.push_screen(CurateDiff(self.session.diff(), title))

    def action_jump(self) -> None:
        item = self.detail.current
        if item is None or item.position is None:
            self._say("Move the cursor to a context to jump to its place in the chapter.", error=True)
            return
        text = item.slot.contexts(self.question)[item.position]
        spans = self.model.occurrences(self.question.chapter, text)
        if not spans:
            self._say("This context is not in the chapter text, so there is nowhere to jump.", error=True)
            return
        self.chapter_view.select_span(*spans[0])
        self.show_pane("chapter")
        more = f" (it occurs {len(spans)} times)" if len(spans) > 1 else ""
        self._say(f"Context selected in the chapter at line {self.chapter_view.location_of(spans[0][0])[0] + 1}"
                  f"{more}; adjust with shift+arrows and press r to replace it.")

    # -- answer components --------------------------------------------------------------------------------------
    def _edit_component_text(self, item: DetailItem) -> None:
        """``e`` on a component: its answer text (a list component: one piece per line)."""
        index = item.slot.index
        before = self.question.answer_context[index].answer_component
        shown = before if isinstance(before, str) else "\n".join(before)

        def edited(value: str | None) -> None:
            if value is None:
                return
            after: str | list[str] = value.strip() if isinstance(before, str) else [
                line.strip() for line in value.splitlines() if line.strip()]
            if after != before:
                self._apply(SetComponentText(self.qid, index, before, after), item)

        self.app.push_screen(ContextTextEdit(f"answer_component of component {index}", shown,
                                             lambda v: None if v.strip() else "it is empty"), edited)

    def action_add_component(self) -> None:
        """``o``: a new answer component after the one under the cursor (at the end when none is), no context yet."""
        current = self.detail.current
        index = current.slot.index + 1 if current is not None and current.slot.kind == "answer" else len(
            self.question.answer_context)

        def added(value: str | None) -> None:
            if value is not None and value.strip():
                self._apply(add_component(self.qid, index, value.strip()), DetailItem("component",
                                                                                      Slot("answer", index)))

        self.app.push_screen(ContextTextEdit(f"new answer component {index} (the piece of the gold answer)", "",
                                             lambda v: None if v.strip() else "it is empty"), added)

    def _delete_component(self, item: DetailItem) -> None:
        index = item.slot.index
        question = self.question
        if len(question.answer_context) == 1:
            self._say("Not changed: a question keeps at least one answer component.", error=True)
            return
        n = len(question.answer_context[index].context)

        def answer(ok: bool | None) -> None:
            if ok:
                self._apply(delete_component(self.qid, question, index))

        self.app.push_screen(CurateConfirm(
            f"Delete component {index} and its {n} context{'s' if n != 1 else ''}? (ctrl+z brings it back)",
            yes="Delete"), answer)

    def action_toggle_keys(self) -> None:
        """? shows every key over the editor (also those the footer has no room for); the layout stays as it is."""
        rows = binding_rows(("editor", self.BINDINGS), ("chapter", ChapterView.BINDINGS))
        rows += [("shift+arrows, drag", "Select in the chapter, character by character", "chapter"),
                 ("double / triple / 4 clicks", "Select the word / sentence / paragraph clicked", "chapter"),
                 ("enter", "Open the question under the cursor", "questions")]
        self.app.push_screen(CurateKeysScreen(rows))

    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The queue keys exist only with an assignment plan (hidden from the footer otherwise)."""
        if action in ("toggle_done", "toggle_all"):
            return self.queue is not None
        return True

    def action_toggle_done(self) -> None:
        if self.queue is None:
            return
        if self.qid not in self.queue.questions:
            self._say(f"Chapter {self.qid[0]} question {self.qid[1]} is not in {self.queue.curator}'s queue; "
                      "only queued questions are marked done.", warning=True)
            return
        try:
            done = self.queue.toggle_done(self.qid)
        except BenchlabError as exc:
            self._say(f"Progress not saved: {exc}", error=True)
            return
        self.query_one(FastbookQuestionList).set_done(self.qid, done)
        self._say(f"Chapter {self.qid[0]} question {self.qid[1]} marked {'done' if done else 'not done'} "
                  f"({self.queue.progress_text()}).")

    def action_toggle_all(self) -> None:
        if self.queue is None:
            return
        questions = self.query_one(FastbookQuestionList)
        questions.toggle_show_all(keep=self.qid)
        which = "all questions" if questions.show_all else f"{self.queue.curator}'s queue"
        self._say(f"Showing {which} ({len(questions.listed)}).")

    def action_problems_only(self) -> None:
        questions = self.query_one(FastbookQuestionList)
        questions.toggle_problems_only(keep=self.qid)
        shown = len(questions.listed)
        self._say(f"Showing {'only questions with problems' if questions.problems_only else 'all questions'}"
                  f" ({shown}).")

    def _leave(self) -> None:
        if self.exit_app_on_quit:
            self.app.exit()
        else:
            self.dismiss(None)

    def action_quit_editor(self) -> None:
        if not self.session.dirty:
            self._leave()
            return

        def answer(ok: bool | None) -> None:
            if ok:
                self._leave()

        self.app.push_screen(CurateConfirm("You have unsaved changes (they are in the change log, but not in the "
                                           "file). Quit without saving?", yes="Quit without saving"), answer)
