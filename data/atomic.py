"""Durable file writes: human data and curated files are never left half-written.

``atomic_write`` writes a temporary file beside the target, fsyncs it, renames it over the target and fsyncs
the directory, so a crash leaves either the old file or the new one. ``append_line`` adds one line to a log and
fsyncs before returning, so a response is on disk before the next trial shows.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
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


def append_line(path: str | Path, line: str) -> None:
    """Append one line (newline added) and fsync before returning.

    Opening in append mode per call keeps no state between trials; a killed process loses at most the line
    being written, and readers skip a torn last line (see ``benchlab.data.jsonl``).
    """
    if "\n" in line:
        raise ValueError("a log line must not contain a newline")
    append_bytes(path, (line + "\n").encode("utf-8"))


def append_bytes(path: str | Path, data: bytes) -> None:
    """Append ``data`` (whole records, newline-terminated) and fsync the file (and the folder if it is new)."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        new = not target.exists()
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise BenchlabError(
            f"could not record the response ({exc.strerror or exc}); everything before it is safe on disk", target
        ) from exc
    if new:
        fsync_dir(target.parent)
