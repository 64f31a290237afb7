"""WorldSense training sets (``trials_10k`` / ``trials_100k``): a different format from the test sets.

Each line is a chat-style record, ``{"dialog_history": {"messages": [{"role": "user", "content": ...}]},
"target_message": "POSSIBLE"}``, with the plain (not obfuscated) answer and no Key, tuple or problem fields.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import read_models


class Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    role: Literal["user", "assistant", "system"]
    content: StrictStr


class DialogHistory(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    messages: tuple[Message, ...] = Field(min_length=1)


class TrainingExample(BaseModel):
    """One training line: the question (``prompt``) and the expected answer (``target_message``)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    dialog_history: DialogHistory
    target_message: StrictStr

    @property
    def prompt(self) -> str:
        """The text of the (single) user message: the question as the model saw it."""
        return "\n".join(m.content for m in self.dialog_history.messages if m.role == "user")


def load_training_set(path: str | Path, limit: int | None = None) -> list[TrainingExample]:
    """Training examples of a ``.jsonl`` / ``.jsonl.bz2`` file (the first ``limit`` only, if given)."""
    out: list[TrainingExample] = []
    for _lineno, example in read_models(TrainingExample, path):
        out.append(example)
        if limit is not None and len(out) >= limit:
            break
    if not out:
        raise BenchlabError("the training file is empty", path)
    return out
