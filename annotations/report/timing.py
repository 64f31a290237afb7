"""The last ``benchlab timing-check`` made on this machine, kept for ``benchlab report``'s timing validation.

``timing-check`` prints its figures and saves them here (``<data dir>/timing-check/last.txt``, with the time and
host); a study may also keep its own copy (``DIR/timing-check.txt``), which the report prefers.
"""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from pathlib import Path

from benchlab.data.atomic import atomic_write_text
from benchlab.data.settings import get_settings


def last_timing_path() -> Path:
    return get_settings().data_dir / "timing-check" / "last.txt"


def save_last_timing_check(report: str) -> None:
    """Keep ``report`` as this machine's last timing check (a failure to save never fails the check)."""
    path = last_timing_path()
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, f"# benchlab timing-check on {platform.node()} at {stamp}\n{report.rstrip()}\n")
    except OSError:
        return
