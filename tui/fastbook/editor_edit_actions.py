"""The editor's edit actions: add, replace, delete and edit contexts, the audit's fix, flags, question_contexts
and answer components. Each builds one reversible edit and hands it to ``_apply`` (checked, logged, re-scored)."""

from __future__ import annotations

from benchlab.annotations.fastbook.component_edits import SetComponentText, add_component, delete_component
from benchlab.annotations.fastbook.context_edits import (
    AddContext,
    AddQuestionContext,
    DeleteContext,
    DeleteQuestionContext,
    FlagName,
    ReplaceContext,
    SetFlag,
    SetQuestionComponent,
    Slot,
    toggled,
)
from benchlab.tui.fastbook.context_text_edit import ContextTextEdit
from benchlab.tui.fastbook.curate_confirm import CurateConfirm
from benchlab.tui.fastbook.editor_core import EditorCore
from benchlab.tui.fastbook.question_detail import DetailItem


class EditorEditActions(EditorCore):
    """The keys that change the file (a, r, d, e, f, x, n, c, o)."""

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
