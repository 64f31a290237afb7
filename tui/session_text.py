"""Reading the participant-facing texts a lab supplies: consent and paged instructions (markdown files)."""

from __future__ import annotations

import re
from pathlib import Path

from benchlab.data.errors import BenchlabError

_PAGE_BREAK = re.compile(r"^\s*---\s*$", re.MULTILINE)


def read_text_file(path: str | Path, what: str) -> str:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
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
