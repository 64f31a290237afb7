"""The undo/redo history of a curation session: which edits can be undone or redone, and whether the document
differs from what was last saved."""

from __future__ import annotations

from collections.abc import Callable

from benchlab.annotations.fastbook.context_edits import Edit, QuestionId
from benchlab.data.fastbook.benchmark import Question


class EditHistory:
    """Undo and redo stacks over a document, plus where the last save happened.

    ``lookup`` returns the live question object for an id. ``dirty`` compares the top of the undo stack
    with the one at the last save, so undoing back to the saved state shows "no unsaved changes" again.
    """

    def __init__(self, lookup: Callable[[QuestionId], Question]) -> None:
        self._lookup = lookup
        self._undo: list[Edit] = []
        self._redo: list[Edit] = []
        self._saved_top: Edit | None = None
        self._saved_anchor = 0  # len(undo) at save; with the identity check it survives undo then new edit

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def undo_stack(self) -> tuple[Edit, ...]:
        return tuple(self._undo)

    @property
    def dirty(self) -> bool:
        top = self._undo[-1] if self._undo else None
        return top is not self._saved_top or len(self._undo) != self._saved_anchor

    def mark_saved(self) -> None:
        self._saved_top = self._undo[-1] if self._undo else None
        self._saved_anchor = len(self._undo)

    def do(self, edit: Edit) -> None:
        edit.apply(self._lookup(edit.qid))
        self._undo.append(edit)
        self._redo.clear()

    def undo(self) -> Edit | None:
        if not self._undo:
            return None
        edit = self._undo[-1]
        edit.revert(self._lookup(edit.qid))
        self._undo.pop()
        self._redo.append(edit)
        return edit

    def rollback(self) -> None:
        """Take back the last edit without offering it for redo (it was never accepted, e.g. log failed)."""
        edit = self._undo.pop()
        edit.revert(self._lookup(edit.qid))

    def redo(self) -> Edit | None:
        if not self._redo:
            return None
        edit = self._redo[-1]
        edit.apply(self._lookup(edit.qid))
        self._redo.pop()
        self._undo.append(edit)
        return edit

