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
