"""The plan of one participant's session: which items, in which order, in which blocks, after which practice.

A plan is task-agnostic: items are opaque string ids (a numeric key written as its exact decimal digits, a trial
id, ...). It is saved as JSON, atomically, the moment a session starts, so a resumed session replays exactly
the same order even if the data set, the defaults or the code's random generator change in between.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import describe_validation_error
from benchlab.data.key_lines import json_line
from benchlab.data.text_io import decode_utf8
from benchlab.data.version import __version__


class SessionPlan(BaseModel):
    """Everything needed to replay a session: the order, the seed and the settings that produced it."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    task: str
    dataset: str = Field(description="the data set the items come from (folder or file), as given")
    participant: str
    session: str
    seed: int
    config: dict[str, Any] = Field(default_factory=dict, description="task-specific settings (tuples per cell, ...)")
    practice: list[str] = Field(default_factory=list, description="practice item ids, in order (never scored)")
    blocks: list[list[str]] = Field(description="main item ids, block by block, in presentation order")
    created: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    benchlab_version: str = __version__

    @model_validator(mode="after")
    def _ids_unique(self) -> SessionPlan:
        main = [item for block in self.blocks for item in block]
        if len(set(main)) != len(main):
            raise ValueError("an item appears twice in the plan")
        if set(main) & set(self.practice):
            raise ValueError("a practice item is also a scored item")
        if any(not block for block in self.blocks):
            raise ValueError("a block is empty")
        return self

    @property
    def main_items(self) -> list[str]:
        return [item for block in self.blocks for item in block]

    def steps(self) -> list[PlannedStep]:
        """Practice steps first, then main steps, each with its index, block and position."""
        out = [PlannedStep(item, True, i, 0) for i, item in enumerate(self.practice)]
        index = 0
        for b, block in enumerate(self.blocks):
            for item in block:
                out.append(PlannedStep(item, False, index, b + 1))
                index += 1
        return out

    def save(self, path: str | Path) -> None:
        atomic_write_text(path, self.model_dump_json(indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> SessionPlan:
        p = Path(path)
        try:
            raw = decode_utf8(p.read_bytes(), p)  # strict UTF-8: bad bytes name their line
        except FileNotFoundError as exc:
            raise BenchlabError("no saved session plan here (nothing to resume)", p) from exc
        except OSError as exc:
            raise BenchlabError(f"cannot read the session plan ({exc.strerror or exc})", p) from exc
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise BenchlabError(f"the session plan is not valid JSON ({exc.msg})", p, exc.lineno) from exc
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise BenchlabError(f"not a benchlab session plan: {describe_validation_error(exc)}", p,
                                json_line(raw, exc.errors()[0]["loc"])) from exc


@dataclass(frozen=True)
class PlannedStep:
    """One trial to present: ``index`` counts within practice or within the main trials (0-based);
    ``block`` is 0 for practice and 1.. for main blocks."""

    item_id: str
    practice: bool
    index: int
    block: int
