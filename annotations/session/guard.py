"""The identity of a session's folder and files, checked before (and after) every write.

A session writes by path (one ``open`` per response, see :mod:`benchlab.data.atomic`). If the output folder is
moved or deleted mid-session, a path-based write would silently recreate the folder at the old path and scatter
one participant's responses over two places (or lose them with the deleted folder) while the summary still counts
them. So the runner remembers the device and inode (``st_dev``, ``st_ino``) of the output folder, of every folder
between it and the session's files, and of each file once it exists, and re-checks them around every write: the
first mismatch stops the session with one message naming the path, before anything is written elsewhere.

The check before a write makes a moved folder stop the session before any record goes astray; the check after it
catches a folder removed in the microseconds between the two (the record then went to a recreated folder, and the
message says so), so the session never continues on the wrong folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from benchlab.data.errors import BenchlabError

Identity = tuple[int, int]


class SessionFilesMoved(BenchlabError):
    """The session's folder or one of its files was moved, replaced or deleted while the session ran."""


def identity(path: Path) -> Identity | None:
    """``(st_dev, st_ino)`` of ``path`` (not following a final symlink's target change), or None if it is gone."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


class FolderGuard:
    """Remembers the identity of a session's folders and files and refuses to go on when one changes.

    ``root`` is the session's output folder (``--out``); ``files`` the files the session writes (all under
    ``root``). Folders and files that do not exist yet are remembered when the session first writes them.
    """

    def __init__(self, root: Path, files: Iterable[Path]) -> None:
        self.root = Path(root)
        self.files = [Path(f) for f in files]
        self._known: dict[Path, Identity] = {}
        self.tripped: SessionFilesMoved | None = None

    def _chain(self, path: Path) -> list[Path]:
        """The folders from ``root`` down to ``path``'s folder, then ``path``."""
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return [path.parent, path]
        out = [self.root]
        for part in rel.parts:
            out.append(out[-1] / part)
        return out

    def arm(self) -> None:
        """Remember what exists now (call once the output folder exists, i.e. after the lock is taken)."""
        self._remember(self.root)
        for path in self.files:
            for step in self._chain(path):
                self._remember(step)

    def _remember(self, path: Path) -> None:
        ident = identity(path)
        if ident is not None:
            self._known.setdefault(path, ident)

    def pin(self, path: Path, ident: Identity) -> None:
        """Remember ``path``'s identity as that of an open file (the lock) or a file just replaced (the plan)."""
        self._known[path] = ident

    def forget(self, path: Path) -> None:
        """Stop watching ``path`` (the lock file, once the session released and removed it)."""
        self._known.pop(path, None)

    def check(self, target: Path | None = None) -> None:
        """Raise :class:`SessionFilesMoved` if a remembered folder or file is gone or is another one now.

        ``target`` (the file about to be written) is documentation only: every folder on its way was remembered
        by :meth:`arm` or by an earlier :meth:`wrote`, except sub-folders the first write creates.
        """
        if self.tripped is not None:
            raise self.tripped
        for path, ident in sorted(self._known.items(), key=lambda kv: len(kv[0].parts)):  # the folder first
            now = identity(path)
            if now != ident:
                self._trip(path, now is None)

    def wrote(self, target: Path) -> None:
        """After a write: the folders and the file are the remembered ones (new ones are remembered now)."""
        for step in self._chain(target):
            self._remember(step)
        self.check()

    def _trip(self, path: Path, gone: bool) -> None:
        what = "file" if path in self.files else "folder"
        how = "was deleted or moved away" if gone else "was replaced or moved"
        self.tripped = SessionFilesMoved(
            f"this {what} {how} while the session was running; the session stopped so that no response is written "
            f"anywhere else (what was recorded before is wherever the {what} is now: move it back and continue "
            "with --resume)", path)
        raise self.tripped
