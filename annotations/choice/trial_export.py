"""A choice task's rows of ``benchlab export trials NAME``: every answer a person gave (practice included, marked),
scored against the items file's gold, with the item's stratum as the condition.

Built by the task (:class:`~benchlab.annotations.choice.task.ChoiceTask` hands out :func:`choice_trial_export`), so
a plug-in made with the kit gets the export with no code of its own. Model results in the same folder are left out
(the export is of people).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlab.annotations.trial_rows import TrialExport, flags_text, session_files
from benchlab.data.choice.items import ChoiceItems
from benchlab.data.choice.results import read_choice_records
from benchlab.data.errors import BenchlabError

#: The task's own columns after the shared ones.
COLUMNS: dict[str, str] = {
    "stratum": "the item's stratum (the condition)",
    "gold": "the correct option",
    "input": "how the answer was given (key, mouse or simulated)",
}


def choice_rows(paths: list[Path], items: ChoiceItems) -> list[dict[str, Any]]:
    """One row per answer of a person in the results (and practice) files under ``paths``."""
    out: list[dict[str, Any]] = []
    for path in session_files(paths, ("*.jsonl",)):
        seen: set[str] = set()
        for n, record in enumerate(read_choice_records(path)):
            if record.participant is None:
                continue  # a model's answer
            item = items.by_id.get(record.item)
            if item is None:
                raise BenchlabError(f"item {record.item!r} (line {n + 1}) is not in the items file {items.path}",
                                    path)
            rt = None if record.skipped else record.rt_ms
            out.append({
                "participant": record.participant, "session": record.session,
                "trial_index": record.trial_index if record.trial_index is not None else n, "block": record.block,
                "practice": record.practice, "simulated": record.simulated or "",
                "item": record.item, "condition": item.stratum, "response": record.response,
                "correct": record.response == item.gold, "rt_ms": rt, "onset_source": record.onset_source,
                "timestamp": record.timestamp or "",
                "flags": flags_text(("skipped", record.skipped), ("interrupted", record.interrupted),
                                    ("duplicate", record.item in seen), ("no_rt", rt is None and not record.skipped)),
                "source_file": str(path),
                "stratum": item.stratum, "gold": item.gold, "input": record.input,
            })
            seen.add(record.item)
    return out


def choice_trial_export(default_items: Path, load: Callable[[str | Path], ChoiceItems]) -> TrialExport:
    """The export of a choice task whose own items file is ``default_items`` (``-t/--testset`` picks another);
    ``load`` reads an items file or a folder holding ``items.jsonl``."""

    def rows(paths: list[Path], testset: Path | None) -> list[dict[str, Any]]:
        return choice_rows(paths, load(testset or default_items))

    return TrialExport(
        inputs="results files or folders (default items: the task's own; -t/--testset for another items file)",
        testset_needed=None,
        shared_notes={"item": "the item id of the items file", "condition": "the item's stratum",
                      "response": "the option chosen"},
        columns=COLUMNS,
        rows=rows,
    )
