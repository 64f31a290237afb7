"""A curator's editing session on a fastbook-benchmark file: edits, undo/redo, change log, safe save, diff.

This is everything the editor screen does to the file, without Textual, so it can be tested (and scripted)
on its own. The rules a curator relies on:

- every edit is applied, then logged (appended + fsynced) before the call returns; if the log cannot be
  written the edit is taken back, so memory and log never disagree;
- save is atomic, keeps the previous version as ``<file>.bak`` and refuses to overwrite a file that changed
  on disk since it was loaded (or last saved) unless ``force=True``;
- the log and the saved file agree after a kill at any moment of a save: the save line is appended right after
  the atomic rename, and a session killed between the two is recognised on the next start (the file on disk is
  exactly its ``.bak`` plus its logged edits, by sha256) and its save line is written then
  (:meth:`confirm_interrupted_save`);
- :meth:`diff` shows every question the session changed, as a unified diff of the question's JSON.
"""

from __future__ import annotations

import difflib
import getpass
import hashlib
import os
import secrets
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchlab.annotations.fastbook.change_log import ChangeLog, ChangeRecord, log_path_for, utc_now
from benchlab.annotations.fastbook.context_edits import Edit, EditMismatch, QuestionId
from benchlab.annotations.fastbook.edit_history import EditHistory
from benchlab.annotations.fastbook.edit_replay import edit_from_change, reverse_change
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import (
    Benchmark,
    Question,
    file_fingerprint,
    format_question,
    load_benchmark,
    save_benchmark,
)
from benchlab.data.fastbook.settings import fastbook_settings


class SaveConflict(BenchlabError):
    """The file on disk is not the one this session loaded; saving would overwrite someone's work."""


@dataclass(frozen=True)
class SaveResult:
    path: Path
    backup: Path | None
    sha256: str | None


def default_curator() -> str:
    """``$BENCHLAB_CURATOR``, else the login name, for the change log's "who"."""
    name = fastbook_settings().curator
    if name:
        return name
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"


class CurationSession:
    """One editor session on one benchmark file."""

    def __init__(
        self,
        benchmark: Benchmark,
        path: str | Path,
        *,
        curator: str | None = None,
        log_path: str | Path | None = None,
        clock: Callable[[], str] = utc_now,
        read_only: bool = False,
        chapters_dir: str | Path | None = None,
    ) -> None:
        self.benchmark = benchmark
        self.read_only = read_only
        # Where the chapters came from: a copy of the file elsewhere needs --chapters pointing back here.
        self.chapters_dir = Path(chapters_dir).resolve() if chapters_dir is not None else None
        self.path = Path(path)
        self.curator = curator or default_curator()
        self.session_id = secrets.token_hex(4)
        self.log = ChangeLog(log_path if log_path is not None else log_path_for(self.path))
        self.history = EditHistory(self._question)
        self._clock = clock
        self._originals: dict[QuestionId, str] = {}
        self._order: dict[QuestionId, int] = {q.id: i for i, q in enumerate(benchmark.questions)}

    @classmethod
    def open(cls, path: str | Path, *, curator: str | None = None, read_only: bool = False,
             chapters_dir: str | Path | None = None) -> CurationSession:
        session = cls(load_benchmark(path), path, curator=curator, read_only=read_only, chapters_dir=chapters_dir)
        if session.writable:
            session.confirm_interrupted_save()
        return session

    # -- state ------------------------------------------------------------------------------------------------
    def _question(self, qid: QuestionId) -> Question:
        return self.benchmark.question(qid)

    @property
    def dirty(self) -> bool:
        """Unsaved changes exist (undoing back to the saved state makes this False again)."""
        return self.history.dirty

    @property
    def writable(self) -> bool:
        """Whether this session may write the file (and its folder: backup, log, atomic rename)."""
        return self.read_only_reason is None

    @property
    def read_only_reason(self) -> str | None:
        """Why edits are refused, with what to do about it (None = editable).

        A file without any write permission bit counts as read-only even for root (shared datasets are
        protected only by their mode), and so does a session opened ``read_only`` (the default or bundled file).
        """
        if self.read_only:
            chapters = self.chapters_dir if self.chapters_dir is not None else self.path.resolve().parent
            copy = shlex.quote(f"./{self.path.name}")
            return (f"the default (shared or bundled) benchmark opens read-only; edit a copy: "
                    f"cp {shlex.quote(str(self.path))} {copy} && chmod u+w {copy}, then --benchmark {copy} "
                    f"--chapters {shlex.quote(str(chapters))}")
        folder = self.path.parent
        try:
            mode = self.path.stat().st_mode if self.path.exists() else 0o200
            folder_mode = folder.stat().st_mode
        except OSError as exc:
            return f"cannot check the file ({exc.strerror or exc})"
        if not (mode & 0o222) or (self.path.exists() and not os.access(self.path, os.W_OK)):
            return f"the file has no write permission (chmod u+w {self.path} to edit it)"
        if not (folder_mode & 0o222) or not os.access(folder, os.W_OK):
            return (f"its folder {folder} is not writable (the backup, the change log and the atomic save are "
                    "written there); copy the file to a folder you can write")
        return None

    def disk_changed(self) -> bool:
        """The file on disk differs from what this session loaded or last saved (or is gone)."""
        return file_fingerprint(self.path) != self.benchmark.source_fingerprint

    # -- editing ----------------------------------------------------------------------------------------------
    def apply(self, edit: Edit) -> None:
        """Apply and log one edit (raises ``EditMismatch`` or ``BenchlabError``; then nothing changed)."""
        self._require_writable()
        self._remember(edit.qid)
        self.history.do(edit)
        try:
            self._log(edit.action, edit.qid, edit.change())
        except BenchlabError:
            self.history.rollback()
            raise

    def undo(self) -> Edit | None:
        edit = self.history.undo()
        if edit is not None:
            try:
                self._log("undo", edit.qid, reverse_change(edit.change()), undoes=edit.action)
            except BenchlabError:
                self.history.redo()
                raise
        return edit

    def redo(self) -> Edit | None:
        edit = self.history.redo()
        if edit is not None:
            try:
                self._log("redo", edit.qid, edit.change(), undoes=edit.action)
            except BenchlabError:
                self.history.undo()
                raise
        return edit

    def _require_writable(self) -> None:
        reason = self.read_only_reason
        if reason is not None:
            raise BenchlabError(f"read-only: {reason}", self.path)

    def _remember(self, qid: QuestionId) -> None:
        if qid not in self._originals:
            self._originals[qid] = format_question(self._question(qid))

    def _log(self, action: str, qid: QuestionId | None, change: dict[str, object], **extra: str | None) -> None:
        if action != "save":
            extra["base_sha256"] = self.benchmark.source_fingerprint
        record = ChangeRecord(
            time=self._clock(),
            curator=self.curator,
            session=self.session_id,
            action=action,
            file=self.path.name,
            chapter=qid[0] if qid else None,
            question_number=qid[1] if qid else None,
            **change,
            **extra,
        )
        self.log.append(record)

    # -- saving -----------------------------------------------------------------------------------------------
    def save(self, *, force: bool = False) -> SaveResult:
        """Write the file atomically with a ``.bak`` of the previous version.

        Raises :class:`SaveConflict` when the file changed on disk since it was loaded or last saved, unless
        ``force`` (the curator confirmed); nothing is written in that case.
        """
        self._require_writable()
        if not force and self.disk_changed():
            now = file_fingerprint(self.path)
            what = "was deleted or moved" if now is None else "was changed by someone else"
            raise SaveConflict(f"the file {what} since it was loaded; not overwritten", self.path)
        backup = save_benchmark(self.benchmark, self.path, backup=True)
        self.history.mark_saved()
        sha = self.benchmark.source_fingerprint
        self._log("save", None, {}, sha256=sha, backup=str(backup) if backup else None)
        return SaveResult(self.path, backup, sha)

    # -- recovery ---------------------------------------------------------------------------------------------
    def unsaved_in_log(self) -> list[ChangeRecord]:
        """Edits another session logged but never saved (it crashed or quit), if they apply to this very file.

        Looks at the last other session in the log: its edit/undo/redo lines after its last save, provided the
        file on disk is still the one those edits were made on (``base_sha256``). Otherwise nothing.
        """
        last, tail = self._last_other_tail()
        if last is None or not tail or any(r.base_sha256 != self.benchmark.source_fingerprint for r in tail):
            return []
        return tail

    def _last_other_tail(self) -> tuple[str | None, list[ChangeRecord]]:
        """The last other session in the log and its edit/undo/redo lines after its last save."""
        try:
            records = self.log.read()
        except BenchlabError:
            return None, []
        others = [r for r in records if r.session != self.session_id]
        if not others:
            return None, []
        last = others[-1].session
        tail: list[ChangeRecord] = []
        for record in others:
            if record.session != last:
                continue
            if record.action == "save":
                tail = []
            elif record.field is not None and record.chapter is not None and record.question_number is not None:
                tail.append(record)
        return last, tail

    def confirm_interrupted_save(self) -> ChangeRecord | None:
        """Write the "save" line a session killed between its atomic rename and its log append never wrote.

        The proof that the file on disk is that session's save, not someone else's change: its ``.bak`` is the
        file its edits were made on (``base_sha256``), and those edits replayed onto the ``.bak`` give exactly the
        bytes on disk. Then the save line is appended in that session's name (``sha256`` of the file, the backup)
        and its edits are no longer offered as unsaved. Anything else: nothing is written. Returns the record.
        """
        last, tail = self._last_other_tail()
        now = self.benchmark.source_fingerprint
        if last is None or not tail or now is None:
            return None
        base = tail[0].base_sha256
        if base is None or base == now or any(r.base_sha256 != base for r in tail):
            return None
        backup = self.path.with_name(self.path.name + ".bak")
        if file_fingerprint(backup) != base:
            return None
        try:
            replay = load_benchmark(backup)
            for record in tail:
                qid = (record.chapter or 0, record.question_number or 0)
                question = replay.question(qid)
                edit_from_change(qid, record.field or "", record.before, record.after, question).apply(question)
            text = replay.dumps()
        except (BenchlabError, EditMismatch, KeyError, ValueError):
            return None
        if hashlib.sha256(text.encode("utf-8")).hexdigest() != now:
            return None
        record = ChangeRecord(time=self._clock(), curator=tail[-1].curator, session=last, action="save",
                              file=self.path.name, sha256=now, backup=str(backup))
        self.log.append(record)
        return record

    def recover(self, records: list[ChangeRecord]) -> int:
        """Re-apply logged changes (each is logged again, as this session's); stops at the first that no longer
        fits, leaving the ones before it applied. Returns how many were applied."""
        done = 0
        for record in records:
            qid = (record.chapter or 0, record.question_number or 0)
            try:
                question = self._question(qid)
            except KeyError as exc:
                raise EditMismatch(f"chapter {qid[0]} question {qid[1]} is not in the file") from exc
            edit = edit_from_change(qid, record.field or "", record.before, record.after, question)
            self.apply(edit)
            done += 1
        return done

    # -- review -----------------------------------------------------------------------------------------------
    def changed_ids(self) -> list[QuestionId]:
        """Questions whose JSON differs from how this session found them, in file order."""
        changed = [qid for qid, before in self._originals.items() if format_question(self._question(qid)) != before]
        return sorted(changed, key=lambda qid: self._order.get(qid, len(self._order)))

    def diff(self, context_lines: int = 3) -> str:
        """Unified diff of every question this session changed (empty when nothing differs)."""
        chunks: list[str] = []
        for qid in self.changed_ids():
            before = self._originals[qid].splitlines(keepends=True)
            after = format_question(self._question(qid)).splitlines(keepends=True)
            label = f"chapter {qid[0]} question {qid[1]}"
            chunks.extend(
                difflib.unified_diff(
                    [line if line.endswith("\n") else line + "\n" for line in before],
                    [line if line.endswith("\n") else line + "\n" for line in after],
                    fromfile=f"{self.path.name} as loaded: {label}",
                    tofile=f"{self.path.name} now: {label}",
                    n=context_lines,
                )
            )
        return "".join(chunks)
