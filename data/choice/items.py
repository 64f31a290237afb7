"""The items of a choice task (a plug-in benchmark made with ``benchlab.annotations.choice.task``): one JSONL file.

Each line is one item::

    {"id": "n01", "text": "Which number is larger?", "options": ["17", "71"], "gold": "71", "stratum": "easy"}

``options`` are shown in order (keys 1..n, so an item has 2 to 9 of them), ``gold`` is one of them, ``stratum``
groups items for sampling and scoring (default ``"all"``; not one of :data:`RESERVED_STRATA`, the names the tables
give their own rows and columns). A file breaking these rules is refused when it loads, naming its file and line,
before any score, simulation or session uses it. The file is the one source of the gold answers: results files
hold only responses, so a corrected gold answer re-scores every participant and model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator, model_validator

from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import iter_json_lines, validate

DEFAULT_STRATUM = "all"
#: Options per item: the trial screens answer with the keys 1..9, so a 10th option could never be chosen.
MIN_OPTIONS, MAX_OPTIONS = 2, 9
#: Names a stratum cannot take, because the tables already use them: ``overall`` is the row and column of all
#: strata together (``score`` and ``compare``; the comparison pipeline's ``OVERALL``), ``who`` the column of the
#: row labels, ``table`` the column naming each table in ``--format csv`` of several tables.
RESERVED_STRATA = ("overall", "who", "table")


class ChoiceItem(BaseModel):
    """One item: the stimulus text, its answer options in display order, the correct option and its stratum."""

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str = Field(min_length=1)
    text: StrictStr
    options: tuple[StrictStr, ...]
    gold: StrictStr
    stratum: str = DEFAULT_STRATUM

    @field_validator("id", "stratum", mode="before")
    @classmethod
    def _as_text(cls, value: object) -> object:
        # ids such as 17 are common in hand-written files; they name the same item as "17"
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("stratum")
    @classmethod
    def _not_reserved(cls, value: str) -> str:
        if value.strip().lower() in RESERVED_STRATA:
            raise ValueError(f"{value!r} is a name the tables use for their own rows or columns "
                             f"({', '.join(RESERVED_STRATA)}); name the stratum otherwise")
        return value

    @field_validator("options")
    @classmethod
    def _two_to_nine(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if len(value) < MIN_OPTIONS:
            raise ValueError(f"an item needs at least {MIN_OPTIONS} options")
        if len(value) > MAX_OPTIONS:
            raise ValueError(f"an item has at most {MAX_OPTIONS} options (answered with the keys 1..9); this one has "
                             f"{len(value)}")
        return value

    @model_validator(mode="after")
    def _gold_is_an_option(self) -> ChoiceItem:
        if len(set(self.options)) != len(self.options):
            raise ValueError("two options of this item are the same")
        if self.gold not in self.options:
            raise ValueError(f"gold {self.gold!r} is not one of the options {list(self.options)}")
        return self

    @property
    def prompt(self) -> ChoiceItemPrompt:
        """What a participant sees (no gold answer)."""
        return ChoiceItemPrompt(self.text, self.options)


@dataclass
class ChoiceItemPrompt:
    """The stimulus text and the options in order (satisfies ``benchlab.annotations.task.ChoicePrompt``; not
    frozen, because that Protocol declares plain attributes)."""

    text: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class ChoiceItems:
    """The items of one file, by id, in file order, with the strata in first-seen order."""

    path: Path
    items: tuple[ChoiceItem, ...]

    @cached_property
    def by_id(self) -> dict[str, ChoiceItem]:
        return {item.id: item for item in self.items}

    @property
    def strata(self) -> list[str]:
        return list(dict.fromkeys(item.stratum for item in self.items))

    def get(self, item_id: str) -> ChoiceItem:
        try:
            return self.by_id[item_id]
        except KeyError:
            pass
        raise BenchlabError(f"item {item_id!r} is not in this items file", self.path)

    def __len__(self) -> int:
        return len(self.items)


def load_choice_items(path: str | Path) -> ChoiceItems:
    """Read and check an items file; a wrong line is one :class:`BenchlabError` naming the file and line."""
    p = Path(path)
    items: list[ChoiceItem] = []
    seen: dict[str, int] = {}
    for lineno, obj in iter_json_lines(p):
        item = validate(ChoiceItem, obj, p, lineno)
        if item.id in seen:
            raise BenchlabError(f"item id {item.id!r} appears twice (first on line {seen[item.id]})", p, lineno)
        seen[item.id] = lineno
        items.append(item)
    if not items:
        raise BenchlabError("no items in this file", p)
    return ChoiceItems(p, tuple(items))


def items_of(items: ChoiceItems | Sequence[ChoiceItem]) -> tuple[ChoiceItem, ...]:
    return items.items if isinstance(items, ChoiceItems) else tuple(items)
