"""Where a plug-in kit session writes and how its items load: the choice kit's Sessions layout, kept apart from
the task module so the Sessions reader (``annotations/session/status.py``, which reads unknown tasks this way) does
not import the whole task, and through it the comparison and exclusions (an import cycle with the study loader)."""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.choice.session_status import ChoiceSessionLayout
from benchlab.annotations.session.runner import SessionFiles
from benchlab.data.choice.items import ChoiceItems, load_choice_items


def choice_files(out: str | Path, participant: str, session: str) -> SessionFiles:
    """Where a participant's session writes: ``results/<participant>.jsonl`` (scored), ``practice/``, ``sessions/``."""
    base = Path(out)
    return SessionFiles(
        results=base / "results" / f"{participant}.jsonl",
        practice=base / "practice" / f"{participant}.jsonl",
        plan=base / "sessions" / f"{participant}_session-{session}.plan.json",
        lock=base / "sessions" / f".{participant}.lock",
    )


def load_items(dataset: str | Path) -> ChoiceItems:
    """An items file, or a folder holding ``items.jsonl``."""
    path = Path(dataset)
    return load_choice_items(path / "items.jsonl" if path.is_dir() else path)


CHOICE_LAYOUT = ChoiceSessionLayout(choice_files, load_items)
