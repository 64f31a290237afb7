"""The participant-facing texts of a session: the lab's consent and instruction files, or the task's built-in
instruction pages. Every front end builds a session's :class:`SessionText` here, so the CLI and the form agree."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from benchlab.annotations.session.runner import SessionText
from benchlab.annotations.task import SessionOptions, Task
from benchlab.data.errors import BenchlabError
from benchlab.data.text_io import decode_utf8

_PAGE_BREAK = re.compile(r"^\s*---\s*$", re.MULTILINE)


def read_text_file(path: str | Path, what: str) -> str:
    p = Path(path)
    try:
        text = decode_utf8(p.read_bytes(), p).replace("\r\n", "\n").replace("\r", "\n")  # file:line on bad bytes
    except FileNotFoundError as exc:
        raise BenchlabError(f"no such {what} file", p) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchlabError(f"cannot read the {what} file ({exc})", p) from exc
    if not text.strip():
        raise BenchlabError(f"the {what} file is empty", p)
    return text


def split_pages(text: str) -> list[str]:
    """Instruction pages are separated by a line holding only ``---``."""
    return [page.strip() for page in _PAGE_BREAK.split(text) if page.strip()]


def session_text(task: Task, session: SessionOptions, plan: Any) -> SessionText:
    """Consent (if a file is given), then the instruction file's pages, the task's own pages, or none."""
    consent = read_text_file(session.consent_file, "consent") if session.consent_file else None
    if session.no_instructions:
        pages: list[str] = []
    elif session.instructions_file:
        pages = split_pages(read_text_file(session.instructions_file, "instructions"))
    else:
        pages = task.instructions(plan, session)
    return SessionText(consent=consent, instructions=pages, practice_feedback=session.feedback)
