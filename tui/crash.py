"""The crash report benchlab writes when it hits a bug in itself (exit code 70), instead of a traceback on screen.

Why a file: in a lab session the terminal belongs to a participant, and Textual's own crash screen prints the
traceback *with local variables*, which can hold a participant's answers. So the report holds what a developer
needs to fix the bug and nothing of the data: versions, platform, the command line (participant ids kept, they
are what ``--resume`` needs), and the traceback with its frames and source lines but never the values of local
variables. Only the newest :data:`KEEP` reports are kept; each has its own name, so a crash loop cannot overwrite
the report of the first crash.

No Textual import here: the CLI writes reports for crashes outside the app too, and a crash handler that has to
import the world is a fresh place to crash.
"""

from __future__ import annotations

import os
import platform
import shlex
import sys
import traceback
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from benchlab.data.settings import get_settings

#: Exit code of a crash (``EX_SOFTWARE`` in sysexits.h: an internal software error).
EXIT_CODE = 70
#: How many reports are kept (the oldest are deleted when a new one is written).
KEEP = 10
PATTERN = "crash-*.txt"


def root_cause(error: BaseException) -> BaseException:
    """The error a report is about: Textual wraps a worker's error in ``WorkerFailed`` (``.error``)."""
    wrapped = getattr(error, "error", None)
    return wrapped if isinstance(wrapped, BaseException) else error


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def _traceback(error: BaseException) -> str:
    """Frames and source lines, never local variables (``format_exception`` shows no locals)."""
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


def build_report(error: BaseException, argv: list[str] | None = None) -> str:
    """The report's text: environment, command line and traceback (no locals, no response contents)."""
    cause = root_cause(error)
    args = list(sys.argv if argv is None else argv)
    if args:
        args[0] = Path(args[0]).name
    lines = [
        f"benchlab crash report, written {datetime.now(UTC):%Y-%m-%d %H:%M:%S}Z",
        "It holds no response and no local variable; a session that crashed continues with --resume.",
        "",
        f"benchlab: {_version('benchlab')}",
        f"python: {platform.python_version()} ({sys.executable})",
        f"textual: {_version('textual')}",
        f"platform: {platform.platform()}",
        f"command: {shlex.join(args)}",
        "",
        "Traceback:",
        _traceback(cause).rstrip(),
    ]
    if cause is not error:
        lines += ["", "Raised as:", _traceback(error).rstrip()]
    return "\n".join(lines) + "\n"


def write_report(error: BaseException, folder: Path | None = None) -> Path | None:
    """Write a report, keep the newest :data:`KEEP`; ``None`` if it could not be written. Never raises."""
    folder = folder or get_settings().crash_dir
    path = folder / f"crash-{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{os.getpid()}.txt"
    try:
        text = build_report(error)
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="replace")
    except Exception:  # the handler of a crash must not crash
        return None
    prune(folder)
    return path


def prune(folder: Path, keep: int = KEEP) -> None:
    """Delete all but the newest ``keep`` reports (names sort by time)."""
    try:
        reports = sorted(folder.glob(PATTERN), key=lambda p: p.name, reverse=True)
        for stale in reports[keep:]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass


def crash_line(error: BaseException, report: Path | None) -> str:
    """The one stderr line a crash prints: what broke and where the report is."""
    cause = root_cause(error)
    message = " ".join(str(cause).split())[:300]
    what = f"{type(cause).__name__}: {message}" if message else type(cause).__name__
    where = f"Report saved to {report}" if report is not None else "The crash report could not be saved"
    return f"benchlab: internal error: {what}. {where}"
