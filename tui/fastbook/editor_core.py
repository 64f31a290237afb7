"""What every part of the fastbook context editor shares: the screen's state (session, model, queue, current
question), showing a question with its chapter marks and run scores, the status line, and applying an edit (checked
against the chapter, logged, re-scored). The edit actions (:mod:`.editor_edit_actions`), saving and leaving
(:mod:`.editor_save`) and the screen itself (:mod:`.editor_screen`) build on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static

from benchlab.annotations.fastbook.context_edits import (
    Edit,
    EditMismatch,
    QuestionId,
)
from benchlab.annotations.fastbook.curation import CurationSession
from benchlab.annotations.fastbook.editor_model import CurateModel
from benchlab.annotations.fastbook.progress import CuratorQueue
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import Question
from benchlab.data.fastbook.chapters import Chapter
from benchlab.data.fastbook.runs import Run
from benchlab.tui.fastbook.chapter_view import ChapterView
from benchlab.tui.fastbook.curate_confirm import CurateConfirm
from benchlab.tui.fastbook.question_detail import DetailItem, FastbookQuestionDetail
from benchlab.tui.fastbook.question_list import FastbookQuestionList
from benchlab.tui.fastbook.run_scores import FastbookRunScores

MAX_SEARCH_MARKS = 500


@dataclass
class ChapterSearch:
    """The chapter search under way: what is searched, where it occurs, which hit is selected."""

    needle: str = ""
    hits: list[int] = field(default_factory=list)
    index: int = -1


class EditorCore(Screen[None]):
    """The editor's state and the helpers every action uses (not a screen on its own: see FastbookCurateScreen)."""

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
        self._search = ChapterSearch()
        self._message = ""
        self._warned_disk_change = False

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
            self._search = ChapterSearch()
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
