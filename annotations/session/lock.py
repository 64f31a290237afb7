"""A per-participant lock so two app instances never write the same results file.

``fcntl.flock`` on a ``.lock`` file: the kernel releases it when the holder dies (even on ``kill -9``), so a
stale lock never blocks a resume, and a live holder is named by its process id in the error message.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from pathlib import Path
from types import TracebackType

from benchlab.data.errors import BenchlabError


class SessionLock:
    """Exclusive, non-blocking lock held for the whole session."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BenchlabError(f"cannot create the results folder ({_reason(exc)})", self.path.parent) from exc
        for _attempt in range(5):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise BenchlabError(f"cannot create the lock file ({_reason(exc)}); nothing was recorded",
                                    self.path) from exc
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_pid(fd)
                os.close(fd)
                who = f"process {holder}" if holder else "another process"
                raise BenchlabError(
                    f"these results are in use by {who} (another benchlab session for this participant is running); "
                    "close it first, or use another participant id or --out folder",
                    self.path,
                ) from None
            # The previous holder may have unlinked the file between our open and our lock: retry on the new one.
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            try:
                os.ftruncate(fd, 0)
                data = f"{os.getpid()}\n".encode()
                if os.write(fd, data) != len(data):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                os.fsync(fd)
            except OSError as exc:
                # A full disk, a read-only or a forbidden folder: no lock file is left behind (we hold it, so
                # removing it is safe), and the user reads one line naming the file.
                with contextlib.suppress(OSError):
                    self.path.unlink()
                os.close(fd)
                raise BenchlabError(f"cannot write the lock file ({_reason(exc)}); nothing was recorded",
                                    self.path) from exc
            self._fd = fd
            return
        raise BenchlabError("could not take the session lock (it keeps changing)", self.path)

    @property
    def fd(self) -> int | None:
        """The open lock file (the session checks that its path still names it before each write)."""
        return self._fd

    def owns_path(self) -> bool:
        """The lock's path still names the file this lock holds (not moved, deleted or replaced)."""
        if self._fd is None:
            return False
        try:
            mine, there = os.fstat(self._fd), os.stat(self.path)
        except OSError:
            return False
        return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)

    def release(self) -> None:
        if self._fd is None:
            return
        if self.owns_path():
            with contextlib.suppress(OSError):
                self.path.unlink()
        with contextlib.suppress(OSError):
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> SessionLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _read_pid(fd: int) -> int | None:
    try:
        raw = os.pread(fd, 32, 0)
        return int(raw.decode().strip() or 0) or None
    except (OSError, ValueError):
        return None


def _reason(exc: OSError) -> str:
    """The OS's words for a failed write, with a hint for the three a lab day meets (full, read-only, forbidden)."""
    text = exc.strerror or str(exc)
    hints = {errno.ENOSPC: "the disk is full: free some space or choose another --out folder",
             errno.EROFS: "the folder is on a read-only file system: choose another --out folder",
             errno.EACCES: "no permission to write here: choose another --out folder",
             errno.EPERM: "no permission to write here: choose another --out folder",
             errno.EDQUOT: "the disk quota is exceeded: free some space or choose another --out folder"}
    hint = hints.get(exc.errno or 0)
    return f"{text}; {hint}" if hint else text
