"""fastbook rows of ``benchlab export trials``: one row per line of the curation change log (edits, undo, redo,
save), with the curator as participant and the time since the curator's previous change."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from benchlab.annotations.trial_rows import TrialExport
from benchlab.data.errors import BenchlabError


def _logs(paths: list[Path]) -> list[Path]:
    # deferred: the change-log reader loads only when these trials are exported (this module loads with the CLI)
    from benchlab.annotations.fastbook.change_log import LOG_SUFFIX, log_path_for

    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted(p.rglob(f"*{LOG_SUFFIX}"))
        elif p.name.endswith(LOG_SUFFIX) and p.exists():
            out.append(p)
        elif p.exists() and log_path_for(p).exists():
            out.append(log_path_for(p))
        else:
            raise BenchlabError("no such change log (expected a benchmark file with its .changes.jsonl beside it, "
                                "the log itself or a folder)", p)
    return out


def _json(value: object) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _when(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def rows(paths: list[Path], testset: Path | None) -> list[dict[str, Any]]:
    # deferred: the change-log reader loads only when these trials are exported (this module loads with the CLI)
    from benchlab.annotations.fastbook.change_log import ChangeLog

    out: list[dict[str, Any]] = []
    for log in _logs(paths):
        last: dict[str, datetime | None] = {}
        index: dict[str, int] = {}
        for rec in ChangeLog(log).read():
            when = _when(rec.time)
            before = last.get(rec.session)
            gap = (when - before).total_seconds() * 1000 if when and before else None
            last[rec.session] = when
            k = index[rec.session] = index.get(rec.session, -1) + 1
            item = "/".join("" if v is None else str(v) for v in (rec.chapter, rec.question_number, rec.component))
            out.append({
                "participant": rec.curator, "session": rec.session, "trial_index": k, "block": None,
                "practice": False, "simulated": "", "item": item if rec.chapter is not None else "",
                "condition": rec.action, "response": _json(rec.after), "correct": None, "rt_ms": None,
                "onset_source": "", "timestamp": rec.time, "flags": "", "source_file": str(log),
                "action": rec.action, "file": rec.file, "chapter": rec.chapter,
                "question_number": rec.question_number, "component": rec.component, "field": rec.field,
                "before": _json(rec.before), "undoes": rec.undoes, "ms_since_previous": gap, "sha256": rec.sha256,
                "base_sha256": rec.base_sha256, "backup": rec.backup,
            })
    return out


TRIALS = TrialExport(
    inputs="benchmark files or their .changes.jsonl logs",
    testset_needed=None,
    shared_notes={"participant": "the curator", "trial_index": "of the edit in the editor session",
                  "block": "empty", "item": "chapter/question/component", "condition": "the edit action",
                  "response": "the value after the edit, as JSON", "correct": "empty (curation edits)"},
    columns={
        "action": "the edit (add_context, replace_context, ..., undo, redo, save)",
        "file": "the benchmark file edited", "chapter": "chapter", "question_number": "question",
        "component": "answer component", "field": "the edited field", "before": "value before (JSON)",
        "undoes": "for undo/redo: the action undone or redone",
        "ms_since_previous": "ms since the curator's previous logged change in the same editor session",
        "sha256": "save: hash of the file written", "base_sha256": "hash of the file the edit applies to",
        "backup": "save: where the previous version was kept",
    },
    rows=rows,
)
