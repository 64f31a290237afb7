"""One error type for every problem a user can fix, so the CLI prints one clear line and no traceback."""

from __future__ import annotations

from pathlib import Path


class BenchlabError(Exception):
    """A user-facing error naming the file (and line) at fault.

    The CLI catches it and prints ``benchlab: <file>:<line>: <message>`` with a non-zero exit.
    """

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None) -> None:
        self.message = message
        self.path = Path(path) if path is not None else None
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line is not None else f"{self.path}: "
        return f"{where}{self.message}"


def read_error(exc: OSError, path: str | Path, expected: str = "a file") -> BenchlabError:
    """The one message for a file that cannot be read, so every loader says it the same way."""
    if isinstance(exc, FileNotFoundError):
        return BenchlabError("no such file", path)
    if isinstance(exc, IsADirectoryError):
        return BenchlabError(f"is a folder, expected {expected}", path)
    if isinstance(exc, PermissionError):
        return BenchlabError("permission denied: cannot read this file", path)
    return BenchlabError(f"cannot read this file ({exc.strerror or exc})", path)


def read_bytes(path: str | Path, expected: str = "a file") -> bytes:
    """A file's bytes, or one clear :class:`BenchlabError` naming it."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise read_error(exc, path, expected) from exc
