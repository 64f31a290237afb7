"""The editor's undo, redo, save and leaving: a save never overwrites a file changed on disk without asking, a
previous session's unsaved edits are offered back from the change log, and quitting asks about unsaved changes."""

from __future__ import annotations

from benchlab.annotations.fastbook.context_edits import (
    EditMismatch,
)
from benchlab.annotations.fastbook.curation import SaveConflict
from benchlab.data.errors import BenchlabError
from benchlab.tui.fastbook.curate_confirm import CurateConfirm
from benchlab.tui.fastbook.diff_screen import CurateDiff
from benchlab.tui.fastbook.editor_core import EditorCore
from benchlab.tui.fastbook.question_list import FastbookQuestionList


class EditorSaveActions(EditorCore):
    """Undo/redo, save (with the conflict question), the diff, recovery of unsaved edits, and quitting."""

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
