"""The fastbook-benchmark context-annotation editor: question list, question detail, chapter text, scores.

Keyboard-first (every action has a key, shown in the footer); the chapter is a read-only text area, so a
context is always the exact substring selected (shift+arrows or the mouse), never retyped. All file changes
go through :class:`~benchlab.annotations.fastbook.curation.CurationSession` (undo/redo, change log, safe save).
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, Input, Static

from benchlab.data.errors import BenchlabError
from benchlab.tui.fastbook.chapter_view import ChapterView
from benchlab.tui.fastbook.editor_bindings import EDITOR_BINDINGS
from benchlab.tui.fastbook.editor_core import ChapterSearch
from benchlab.tui.fastbook.editor_edit_actions import EditorEditActions
from benchlab.tui.fastbook.editor_save import EditorSaveActions
from benchlab.tui.fastbook.keys_screen import CurateKeysScreen, binding_rows
from benchlab.tui.fastbook.question_detail import FastbookQuestionDetail
from benchlab.tui.fastbook.question_list import FastbookQuestionList
from benchlab.tui.fastbook.run_scores import FastbookRunScores

DISK_CHECK_SECONDS = 5.0


class FastbookCurateScreen(EditorEditActions, EditorSaveActions):
    """Edit the contexts of one benchmark file."""

    CSS_PATH = "editor_screen.tcss"
    BINDINGS = EDITOR_BINDINGS
    #: Below this size the two panes take turns (``w`` switches): side by side, at 80x24 the edit panel had no
    #: height and the chapter about 20 columns.
    COMPACT_BELOW = (110, 32)

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
            self._search = ChapterSearch(needle, self.model.search(self.question.chapter, needle), -1)
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
