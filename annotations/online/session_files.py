"""One online participant's session files, found from the pseudonymous id alone (plan, events, results), and the
events and answers read back from disk: the completion page trusts only what is on disk."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from benchlab.annotations.registry import registry
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.task import LoggedAnswer, ShowsSessions
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import complete_events


@dataclass(frozen=True)
class OnDisk:
    """What the files hold of one participant's session."""

    plan: SessionPlan | None
    events_path: Path | None
    results_path: Path | None
    events: list[dict[str, Any]]
    answers: list[LoggedAnswer]

    def names(self) -> list[str]:
        return [str(e.get("event")) for e in self.events]

    def started_at(self) -> datetime | None:
        """When consent was given (the session's ``started`` event)."""
        for event in self.events:
            if event.get("event") == "started":
                try:
                    return datetime.fromisoformat(str(event.get("timestamp")))
                except ValueError:
                    return None
        return None


def _sessions_folders(out: Path) -> list[Path]:
    found = [out / "sessions", *out.glob("*/sessions"), *out.glob("*/*/sessions")]
    return sorted({p for p in found if p.is_dir()})




def on_disk(out: Path, participant: str) -> OnDisk:
    """The participant's session under ``out`` (their first session; online participants have one)."""
    for folder in _sessions_folders(out):
        for plan_path in sorted(folder.glob(f"*{participant}*.plan.json")):
            try:
                plan = SessionPlan.load(plan_path)
            except BenchlabError:
                continue
            if plan.participant != participant:
                continue
            events_path = plan_path.with_name(plan_path.name.removesuffix(".plan.json") + ".events.jsonl")
            task = registry().benchmarks.get(plan.task)
            results_path = None
            answers: list[LoggedAnswer] = []
            if isinstance(task, ShowsSessions):
                results_path = task.session_layout.files(folder.parent, plan).results
                try:
                    answers = task.session_layout.answers(results_path, plan) if results_path.exists() else []
                except (BenchlabError, OSError):
                    answers = []
            return OnDisk(plan, events_path, results_path, complete_events(events_path), answers)
        for events_path in sorted(folder.glob(f"*{participant}*.events.jsonl")):
            events = complete_events(events_path)
            if events and str(events[-1].get("participant")) == participant:
                return OnDisk(None, events_path, None, events, [])
    return OnDisk(None, None, None, [], [])


ITEM_COLUMNS = ("item", "item_id", "trial_id", "id", "question_id", "Key")


def responses(path: Path | None) -> dict[str, str]:
    """Item id -> response from a results log (JSON lines or CSV with an item and a response column), for
    instructed-response attention checks; ``{}`` when the log has no such columns."""
    if path is None or not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    rows: list[dict[str, Any]] = []
    if text.lstrip().startswith("{"):
        for line in text.splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                rows.append(row)
    else:
        rows = list(csv.DictReader(io.StringIO(text)))
    out: dict[str, str] = {}
    for row in rows:
        item = next((row[k] for k in ITEM_COLUMNS if row.get(k) not in (None, "")), None)
        answer = next((row[k] for k in ("response", "answer", "resp") if row.get(k) not in (None, "")), None)
        if item is not None and answer is not None:
            out[str(item)] = str(answer)
    return out
