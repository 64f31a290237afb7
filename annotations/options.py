"""Options declared once: a class per plan or command, read by every front end.

A benchmark declares its plan options (and the options of its ``score``/``compare``/``bench`` commands) as a
subclass of :class:`Options` whose fields carry the label, help, bounds, default and enumeration. The command line
(``benchlab.tui.commands.declared``) and the launcher form (``benchlab.tui.widgets.option_form``) are generated
from :func:`option_infos`, and values from either are checked by :func:`parse_options`, so a bound or a label is
written in one place. Errors name the *field* (:class:`OptionError`); only the command line turns a field into a
flag, and the form highlights the field itself.

The classes are pydantic models to everything that uses them (``Model(...)``, ``model_validate``,
``model_fields``, ``model_copy``; validators from :func:`field_validator` / :func:`model_validator`), but pydantic
(~60 ms of CPU) loads only when one is first *used* that way: a declaration is plain data until then
(:mod:`benchlab.annotations.option_models` builds the pydantic model behind it), so a command's ``--help`` page and
:func:`option_infos` need no pydantic.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from benchlab.annotations.option_errors import OptionError, option_error
from benchlab.annotations.option_models import (
    OptionsMeta,
    OptionSpec,
    declared_class,
    declared_fields,
    declared_hints,
    field_validator,
    model_of,
    model_validator,
    options_model,
    rebuilt,
)

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo

__all__ = ["OptionError", "OptionInfo", "Options", "field_validator", "model_validator", "option", "option_error",
           "option_infos", "options_model", "parse_options"]

M = TypeVar("M", bound="BaseModel")

OptionKind = Literal["str", "int", "float", "bool", "path", "choice"]

if TYPE_CHECKING:
    class Options(BaseModel):
        """Base of every declared options model (what type checkers see: the pydantic model it behaves as)."""
else:
    class Options(metaclass=OptionsMeta):
        """Base of every declared options model: unknown names are refused, values are immutable once checked.

        A wrong value raises :class:`OptionError` (naming the field) however the model is made, ``Model(...)`` in
        library code as much as :func:`parse_options` in a front end, so callers catch one error type. The
        pydantic model behind a subclass is built when it is first used
        (:mod:`benchlab.annotations.option_models`).
        """

        def __reduce__(self) -> tuple[Any, ...]:
            # pickled by its declared class (the model class behind it has the same name, so pickle finds that one)
            return rebuilt, (declared_class(type(self)), self.__getstate__())


def option(
    default: Any = ..., *, label: str, help: str, flag: str | None = None, short: str | None = None,
    aliases: tuple[str, ...] = (), argument: bool = False, widget: str | None = None, cli: bool = True,
    form: bool = True, negate: str | None = None, ge: float | None = None, le: float | None = None,
    gt: float | None = None, lt: float | None = None, metavar: str | None = None, problem: str | None = None,
    hidden: bool = False,
) -> Any:
    """A declared option: ``Field`` plus what the front ends need.

    ``flag``: the long flag when it is not ``--<name-with-dashes>``; ``short``: e.g. ``-t``; ``aliases``: old
    spellings kept working; ``argument``: a positional argument on the command line; ``negate``: for a boolean that
    is true by default, the flag that turns it off (``--no-feedback``); ``widget``: a hint for the form (``path``,
    ``folder``, ``text``); ``cli`` / ``form``: whether the option appears on the command line / in the form;
    ``problem``: the wording after the label when the value is out of its bounds or choices, for a reason the user
    should read ("must be at least 2: with one tuple ..."); ``{input!r}`` is replaced by the value given;
    ``hidden``: on the command line but not in ``--help`` (a flag for programs, e.g. ``--web-session``).
    """
    extra: dict[str, Any] = {"flag": flag, "short": short, "aliases": list(aliases), "argument": argument,
                             "widget": widget, "cli": cli, "form": form, "negate": negate, "metavar": metavar,
                             "problem": problem, "hidden": hidden}
    return OptionSpec(default, title=label, description=help, ge=ge, le=le, gt=gt, lt=lt,
                      extra={k: v for k, v in extra.items() if v not in (None, [], False) or k in ("cli", "form")})


@dataclass(frozen=True)
class OptionInfo:
    """One declared option as every generator sees it."""

    name: str
    label: str
    help: str
    kind: OptionKind
    default: Any
    required: bool
    optional: bool  # ``None`` is a valid value (an empty form field)
    multiple: bool  # a list/tuple of values (comma separated in the form, repeated or comma separated on the CLI)
    choices: tuple[str, ...]
    flag: str
    short: str | None
    aliases: tuple[str, ...]
    argument: bool
    negate: str | None
    widget: str | None
    cli: bool
    form: bool
    ge: float | None
    le: float | None
    metavar: str | None = None
    hidden: bool = False


def _unwrap(annotation: Any) -> tuple[Any, bool, bool]:
    """(base type, optional, multiple) of a field annotation such as ``int | None`` or ``tuple[str, ...]``."""
    optional = multiple = False
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        annotation = args[0] if len(args) == 1 else str
        origin = typing.get_origin(annotation)
    if origin in (tuple, list, set, frozenset):
        multiple = True
        annotation = typing.get_args(annotation)[0] if typing.get_args(annotation) else str
    return annotation, optional, multiple


def _kind(base: Any) -> tuple[OptionKind, tuple[str, ...]]:
    if typing.get_origin(base) is Literal:
        return "choice", tuple(str(a) for a in typing.get_args(base))
    if isinstance(base, type) and issubclass(base, Enum):
        return "choice", tuple(str(m.value) for m in base)
    if base is bool:
        return "bool", ()
    if base is int:
        return "int", ()
    if base is float:
        return "float", ()
    if isinstance(base, type) and issubclass(base, Path):
        return "path", ()
    return "str", ()


def _bound(info: FieldInfo, name: str) -> float | None:
    for meta in info.metadata:
        value = getattr(meta, name, None)  # annotated_types.Ge/Le/Gt/Lt carry one attribute each
        if value is not None:
            return float(value)
    return None


def _float_or_none(value: float | None) -> float | None:
    return None if value is None else float(value)


def option_infos(model: type[BaseModel]) -> list[OptionInfo]:
    """Every field of ``model``, in declaration order, as the CLI and the form generate it (read from the
    declaration itself: no pydantic model is built for an :class:`Options` class)."""
    fields = declared_fields(model)
    if fields is None:  # a pydantic model that is not an Options class
        return _pydantic_infos(model)
    if any(spec.raw is not None for spec in fields.values()):  # a plug-in's pydantic.Field(...): read by pydantic
        return _pydantic_infos(model_of(model))
    hints = declared_hints(model)
    infos = []
    for name, spec in fields.items():
        extra = spec.extra or {}
        base, optional, multiple = _unwrap(hints[name])
        kind, choices = _kind(base)
        ge = _float_or_none(spec.ge)
        infos.append(OptionInfo(
            name=name, label=spec.title or name.replace("_", " "), help=spec.description or "", kind=kind,
            default=None if spec.required else spec.default, required=spec.required, optional=optional,
            multiple=multiple, choices=choices, flag=str(extra.get("flag") or "--" + name.replace("_", "-")),
            short=_str_or_none(extra.get("short")), aliases=tuple(str(a) for a in extra.get("aliases") or ()),
            argument=bool(extra.get("argument")), negate=_str_or_none(extra.get("negate")),
            widget=_str_or_none(extra.get("widget")), cli=bool(extra.get("cli", True)),
            form=bool(extra.get("form", True)), ge=ge if ge is not None else _float_or_none(spec.gt),
            le=_float_or_none(spec.le), metavar=_str_or_none(extra.get("metavar")), hidden=bool(extra.get("hidden")),
        ))
    return infos


def _pydantic_infos(model: type[BaseModel]) -> list[OptionInfo]:
    """:func:`option_infos` of a plain pydantic model, from its fields."""
    infos = []
    for name, field in model.model_fields.items():
        extra: dict[str, Any] = dict(field.json_schema_extra) if isinstance(field.json_schema_extra, dict) else {}
        base, optional, multiple = _unwrap(field.annotation)
        kind, choices = _kind(base)
        default = None if field.is_required() else field.get_default(call_default_factory=True)
        ge = _bound(field, "ge")
        gt = _bound(field, "gt")
        infos.append(OptionInfo(
            name=name, label=field.title or name.replace("_", " "), help=field.description or "", kind=kind,
            default=default, required=field.is_required(), optional=optional, multiple=multiple, choices=choices,
            flag=str(extra.get("flag") or "--" + name.replace("_", "-")), short=_str_or_none(extra.get("short")),
            aliases=tuple(str(a) for a in extra.get("aliases") or ()), argument=bool(extra.get("argument")),
            negate=_str_or_none(extra.get("negate")), widget=_str_or_none(extra.get("widget")),
            cli=bool(extra.get("cli", True)), form=bool(extra.get("form", True)),
            ge=ge if ge is not None else gt, le=_bound(field, "le"), metavar=_str_or_none(extra.get("metavar")),
            hidden=bool(extra.get("hidden")),
        ))
    return infos


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def parse_options(model: type[M], values: Mapping[str, Any], *, typed: bool = False) -> M:
    """``model`` from raw values (CLI parameters or form strings); the first wrong field as :class:`OptionError`.

    Empty strings mean "not given" (the field's default), so a form's blank box and an absent flag agree.
    ``typed``: the values are already converted to their declared types (the command line's are), so options that
    need nothing of pydantic are made without it (:mod:`benchlab.annotations.plain_options`).
    """
    cleaned = {k: v for k, v in values.items() if not (isinstance(v, str) and v.strip() == "")}
    if typed:
        # deferred: the plain checks load only for the command line (a form's values are text to convert)
        from benchlab.annotations.plain_options import plain_checked

        plain = plain_checked(model, cleaned)
        if plain is not None:
            return typing.cast(M, plain)
    # deferred: pydantic loads only when values are checked (a help page or option_infos never needs it)
    from pydantic import ValidationError

    try:
        return model.model_validate(cleaned)
    except ValidationError as exc:  # a model not derived from Options
        raise option_error(model, exc) from None
