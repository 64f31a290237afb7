"""The error of a wrong option value (:class:`OptionError`, naming the field) and its wording from pydantic's
validation errors: shared by :mod:`benchlab.annotations.options` (the declarations' API) and
:mod:`benchlab.annotations.option_models` (the pydantic model behind each declared class), kept apart so neither
imports the other's module for it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


class OptionError(BenchlabError):
    """A wrong option value, naming the field. ``str()`` uses the field's label; the CLI shows its flag instead.

    ``problem`` may name other fields as ``{field_name}`` (e.g. "add {resume} to continue it"): the library shows
    their names, the CLI their flags. ``lead=False`` keeps the label at the start on the command line too (for a
    sentence about a value, such as "participant id 'P 1' must be ...").
    """

    def __init__(self, field: str, problem: str, *, label: str | None = None, path: Path | None = None,
                 lead: bool = True) -> None:
        self.field = field
        self.problem = problem
        self.label = label or field.replace("_", " ")
        self.lead = lead
        super().__init__(f"{self.label} {self.filled({})}", path)

    def filled(self, names: Mapping[str, str]) -> str:
        """``problem`` with every ``{field}`` replaced by ``names[field]`` (default: the field name in words)."""
        return _PLACEHOLDER.sub(lambda m: names.get(m.group(1), m.group(1).replace("_", " ")), self.problem)

    def worded(self, name: str, names: Mapping[str, str] | None = None) -> str:
        """The message as the CLI prints it: ``name`` (the field's flag) and ``names`` (field -> flag) for fields."""
        return f"{name if self.lead else self.label} {self.filled(names or {})}"


def _number(value: Any) -> Any:
    """A bound as written: ``1`` rather than pydantic's ``1.0`` for a whole float bound."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _problem(error: Mapping[str, Any]) -> str:
    """pydantic's message, in words that fit after a field label ("must be at least 2")."""
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    if kind == "greater_than_equal":
        return f"must be at least {_number(ctx.get('ge'))}"
    if kind == "greater_than":
        return f"must be more than {_number(ctx.get('gt'))}"
    if kind == "less_than_equal":
        return f"must be at most {_number(ctx.get('le'))}"
    if kind == "less_than":
        return f"must be less than {_number(ctx.get('lt'))}"
    if kind.startswith("int_"):
        return "must be a whole number"
    if kind.startswith("float_"):
        return "must be a number"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}"
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not an option here"
    message = str(error.get("msg", "is not valid"))
    return message.removeprefix("Value error, ")


_BOUND_ERRORS = ("greater_than_equal", "greater_than", "less_than_equal", "less_than", "literal_error", "enum")


def option_error(model: type[BaseModel], exc: ValidationError) -> OptionError:
    """The first wrong field of ``exc`` as an :class:`OptionError` (with the field's declared wording if any)."""
    error = exc.errors()[0]
    loc = error.get("loc") or ("",)
    field = str(loc[0])
    info = model.model_fields.get(field)
    problem = _problem(error)
    if info is not None and str(error.get("type", "")) in _BOUND_ERRORS:
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        declared = extra.get("problem")
        if isinstance(declared, str):
            problem = declared.replace("{input!r}", repr(error.get("input")))
    return OptionError(field, problem, label=info.title if info is not None else None)
