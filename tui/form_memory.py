"""The launcher form remembers the last values per benchmark, so a lab day is not retyped for every participant.

Kept in the user config folder (``$BENCHLAB_CONFIG_DIR`` or the platform's, see :mod:`benchlab.data.settings`), one
JSON file per task, written when a session is handed over. Who and which session are never remembered: the next
participant must be entered on purpose, and a remembered session number is how "session 10" got recorded by
mistake.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.settings import get_settings

#: Fields that identify one session: never carried over to the next participant.
NOT_REMEMBERED = frozenset({"participant", "session", "resume"})


def memory_file(task_name: str) -> Path:
    return get_settings().config_dir / "forms" / f"{task_name}.json"


def remembered(task_name: str) -> tuple[dict[str, Any], str | None]:
    """The values last handed over for ``task_name`` (raw form values), and a note when the file was unusable
    (the form then shows the declared defaults: a convenience must never block a session)."""
    path = memory_file(task_name)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return {}, f"{path}: remembered form values not read ({exc}); showing the defaults"
    if not isinstance(data, dict):
        return {}, f"{path}: remembered form values not read (not a JSON object); showing the defaults"
    return {k: v for k, v in data.items() if k not in NOT_REMEMBERED}, None


def remember(task_name: str, values: Mapping[str, Any]) -> str | None:
    """Keep ``values`` (less who and which session) for the next form of ``task_name``; a note if it failed."""
    path = memory_file(task_name)
    kept = {k: v for k, v in values.items() if k not in NOT_REMEMBERED}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(kept, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        return f"{path}: form values not remembered ({exc.strerror or exc})"
    except BenchlabError as exc:
        return f"form values not remembered: {exc}"
    return None
