"""Edits from change-log lines: a crashed session's unsaved edits are re-applied by turning each logged change back
into the edit that made it (and an undo is logged as the change reversed)."""

from __future__ import annotations

import re
from typing import Any

from benchlab.annotations.fastbook.component_edits import AddComponent, DeleteComponent, SetComponentText
from benchlab.annotations.fastbook.context_edits import (
    AddContext,
    AddQuestionContext,
    DeleteContext,
    DeleteQuestionContext,
    Edit,
    EditMismatch,
    QuestionId,
    ReplaceContext,
    SetFlag,
    SetQuestionComponent,
    Slot,
)
from benchlab.data.fastbook.benchmark import Question

_FIELD = re.compile(
    r"^(?:answer_context\[(?P<comp>\d+)\](?:\.(?:(?P<flag>explicit_context|extraneous_answer)|(?P<text>answer_component)"
    r"|context\[(?P<pos>\d+)\]))?"
    r"|question_context\[(?P<qc>\d+)\](?:\.(?:(?P<qcname>question_component)|context\[(?P<qcpos>\d+)\]))?)$"
)


def edit_from_change(qid: QuestionId, field_path: str, before: Any, after: Any, question: Question) -> Edit:
    """The edit that turns ``before`` into ``after`` at ``field_path`` (a change-log line), to replay a log.

    Raises ``EditMismatch`` for a path or value shape no editor action produces.
    """
    m = _FIELD.match(field_path)
    if m is None:
        raise EditMismatch(f"cannot replay a change of {field_path!r}")
    if m["text"]:
        return SetComponentText(qid, int(m["comp"]), before, after)
    if m["comp"] is not None and m["pos"] is None and not m["flag"]:
        index = int(m["comp"])
        if before is None and isinstance(after, dict):
            return AddComponent(qid, index, after)
        if after is None and isinstance(before, dict):
            return DeleteComponent(qid, index, before)
        raise EditMismatch(f"cannot replay the change of {field_path!r} from {before!r} to {after!r}")
    if m["flag"]:
        return SetFlag(qid, int(m["comp"]), m["flag"], str(before), str(after))  # type: ignore[arg-type]
    if m["qcname"]:
        return SetQuestionComponent(qid, int(m["qc"]), str(before), str(after))
    if m["pos"] is not None or m["qcpos"] is not None:
        slot = Slot("answer", int(m["comp"])) if m["pos"] is not None else Slot("question", int(m["qc"]))
        position = int(m["pos"] if m["pos"] is not None else m["qcpos"])
        if before is None and isinstance(after, str):
            return AddContext(qid, slot, position, after)
        if after is None and isinstance(before, str):
            return DeleteContext(qid, slot, position, before)
        if isinstance(before, str) and isinstance(after, str):
            return ReplaceContext(qid, slot, position, before, after)
    elif m["qc"] is not None:
        position = int(m["qc"])
        if before is None and isinstance(after, dict):
            return AddQuestionContext(qid, position, str(after["question_component"]), tuple(after["context"]))
        if after is None and isinstance(before, dict) and position < len(question.question_context):
            return DeleteQuestionContext(qid, position, question.question_context[position])
    raise EditMismatch(f"cannot replay the change of {field_path!r} from {before!r} to {after!r}")


def reverse_change(change: dict[str, Any]) -> dict[str, Any]:
    """The change-log entry of an undo: same place, before and after swapped."""
    return {**change, "before": change["after"], "after": change["before"]}
