"""Durable file writes: human data and curated files are never left half-written.

``atomic_write`` writes a temporary file beside the target, fsyncs it, renames it over the target and fsyncs
the directory, so a crash leaves either the old file or the new one. ``append_line`` adds one line to a log and
fsyncs before returning, so a response is on disk before the next trial shows.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchlab.data.errors import BenchlabError


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new file in ``directory`` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (temporary file, fsync, rename, fsync of the folder)."""
    target = Path(path)
    directory = target.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise BenchlabError(f"cannot write here: {exc.strerror or exc}", directory) from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp makes the file private (0600); give it the target's mode, or what a plain open() would give.
        with contextlib.suppress(OSError):
            os.chmod(tmp, target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~_umask())
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise BenchlabError(f"could not save ({exc.strerror or exc}); the previous file is unchanged", target) from exc
    fsync_dir(directory)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str, encoding: str = "utf-8") -> None:
    """Text version of :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode(encoding))


def _stderr_warning(message: str) -> None:
    sys.stderr.write(f"benchlab: warning: {message}\n")
    sys.stderr.flush()


def repair_torn_tail(path: str | Path, warn: Callable[[str], None] | None = _stderr_warning,
                     unit: str = "line") -> bool:
    """Cut a last record left without its newline by a killed writer, warning once; True if one was cut.

    Every append-only file (results logs, the study's assignments, a session's events, change logs) goes through
    here before it is appended to: appending after a torn tail would glue the new record onto the cut one, so the
    new record is lost too and, once a further record follows, the file no longer reads at all.
    """
    p = Path(path)
    try:
        size = p.stat().st_size
        if size == 0:
            return False
        with open(p, "rb") as handle:
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return False
    except OSError:  # missing, or not reachable: the append itself says why, naming the file
        return False
    line = _line_count(p) + 1
    cut_torn_tail(p)
    if warn is not None:
        warn(f"{p}:{line}: the last {unit} was incomplete (the writer was stopped mid-{unit}?); it was cut "
             "before appending")
    return True


def cut_torn_tail(path: str | Path) -> bool:
    """Cut a partial last line (no trailing newline) silently; True if one was cut (the caller warns)."""
    p = Path(path)
    if not p.exists():
        return False
    with open(p, "rb+") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        if size == 0:
            return False
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return False
        pos = size - 1
        block = 4096
        while pos > 0:  # scan back for the last newline, a block at a time
            start = max(0, pos - block)
            handle.seek(start)
            chunk = handle.read(pos - start)
            idx = chunk.rfind(b"\n")
            if idx != -1:
                handle.truncate(start + idx + 1)
                break
            pos = start
        else:
            handle.truncate(0)
        handle.flush()
        os.fsync(handle.fileno())
    return True


def _line_count(path: Path) -> int:
    """Newlines in ``path``, read in blocks (bounded memory)."""
    count = 0
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            count += block.count(b"\n")
    return count


def append_line(path: str | Path, line: str, warn: Callable[[str], None] | None = _stderr_warning, *,
                sync: bool = True) -> None:
    """Append one line (newline added) and fsync before returning (``sync=False``: no fsync; the line survives a
    killed process, and a power cut only if a later synced append to the same file follows it).

    Opening in append mode per call keeps no state between trials; a killed process loses at most the line
    being written. A torn last line left by such a process is cut first (:func:`repair_torn_tail`, one warning
    to ``warn``), so the new line starts on its own line.
    """
    if "\n" in line:
        raise ValueError("a log line must not contain a newline")
    repair_torn_tail(path, warn)
    append_bytes(path, (line + "\n").encode("utf-8"), sync=sync)


def append_bytes(path: str | Path, data: bytes, *, sync: bool = True) -> None:
    """Append ``data`` (whole records, newline-terminated) and fsync the file (and the folder if it is new);
    ``sync=False``: neither."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        new = not target.exists()
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise BenchlabError(
            f"could not record the response ({exc.strerror or exc}); everything before it is safe on disk", target
        ) from exc
    if new and sync:
        fsync_dir(target.parent)
