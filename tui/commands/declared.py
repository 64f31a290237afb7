"""Command-line options generated from declared options models (see ``benchlab.annotations.options``).

One declaration gives the flag, its type and bounds, its help and default; this module turns it into a click
parameter and the typed values back into the model. It is also the one place where an :class:`OptionError`
(which names a *field*) is reworded with the *flag* the user typed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from benchlab.annotations.options import OptionError, OptionInfo, option_infos, parse_options
from benchlab.annotations.task import Command
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")


class _ShownIntRange(click.IntRange):
    """Shows the declared bounds in ``--help`` (``[x>=1]``) like click's own ranges, but leaves the check to the
    model, so an out-of-range value gets the same one-line error on the command line and in the form."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return click.INT.convert(value, param, ctx)


class _ShownFloatRange(click.FloatRange):
    """See :class:`_ShownIntRange`."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return click.FLOAT.convert(value, param, ctx)


def _click_type(info: OptionInfo) -> click.ParamType | type:
    if info.kind == "choice":
        return click.Choice(list(info.choices))
    if info.kind == "path":
        return click.Path(path_type=Path)
    bounded = info.ge is not None or info.le is not None
    if info.kind == "int":
        return _ShownIntRange(_int_or_none(info.ge), _int_or_none(info.le)) if bounded else click.INT
    if info.kind == "float":
        return _ShownFloatRange(_plain(info.ge), _plain(info.le)) if bounded else click.FLOAT
    return click.STRING


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(value)


def _plain(value: float | None) -> float | None:
    """A whole bound as an int, so ``--help`` shows ``[0<=x<=1]`` rather than ``[0.0<=x<=1.0]``."""
    return int(value) if value is not None and value.is_integer() else value


def to_click(info: OptionInfo) -> click.Parameter:
    """The click parameter of one declared option (its Python name is the field name)."""
    if info.argument:
        return click.Argument([info.name], type=_click_type(info), nargs=-1 if info.multiple else 1,
                              required=info.required)
    if info.kind == "bool":
        if info.negate:
            return click.Option([info.negate, info.name], is_flag=True, flag_value=False, default=True,
                                help=info.help)
        decls = [d for d in (info.short, info.flag, *info.aliases) if d]
        return click.Option([*decls, info.name], is_flag=True, default=bool(info.default), help=info.help,
                            hidden=info.hidden)
    decls = [d for d in (info.short, info.flag, *info.aliases) if d]
    shown = info.default not in (None, (), [], "")
    return click.Option(
        [*decls, info.name], type=_click_type(info), multiple=info.multiple, required=info.required,
        default=None if info.multiple and info.default in (None, ()) else info.default, show_default=shown,
        help=info.help, metavar=info.metavar, hidden=info.hidden,
    )


def click_params(*models: type[BaseModel], exclude: Iterable[str] = ()) -> list[click.Parameter]:
    """Parameters of every CLI-visible option of ``models`` (arguments first, as click expects)."""
    skip = set(exclude)
    infos = [i for m in models for i in option_infos(m) if i.cli and i.name not in skip]
    return [to_click(i) for i in infos if i.argument] + [to_click(i) for i in infos if not i.argument]


def flags_of(*models: type[BaseModel]) -> dict[str, str]:
    """Field name -> the flag a user types for it (its negating flag for a default-true switch)."""
    return {i.name: (i.negate or i.flag) if not i.argument else i.name.upper()
            for m in models for i in option_infos(m)}


def reworded(exc: OptionError, *models: type[BaseModel]) -> BenchlabError:
    """The same error naming the flag instead of the field label (only the CLI speaks in flags)."""
    flags = flags_of(*models)
    flag = flags.get(exc.field)
    return BenchlabError(exc.worded(flag, flags), exc.path) if flag else exc


def _raw(info: OptionInfo, value: Any) -> Any:
    """A click value as the model takes it: comma-separated text lists split, absent repeatables as ``()``."""
    if info.multiple:
        values = list(value or ())
        if info.kind == "str":
            values = [p.strip() for v in values for p in str(v).split(",") if p.strip()]
        return tuple(values)
    return value


def model_from_click(model: type[M], params: Mapping[str, Any]) -> M:
    """Check the typed values against ``model``; a wrong one becomes a one-line error naming its flag."""
    infos = {i.name: i for i in option_infos(model)}
    values = {name: _raw(infos[name], v) for name, v in params.items() if name in infos and v is not None}
    try:
        return parse_options(model, values, typed=True)
    except OptionError as exc:
        raise reworded(exc, model) from None


def typed_on_command_line(ctx: click.Context, names: Iterable[str]) -> set[str]:
    """Which of ``names`` the user typed (not defaults): resume warnings only speak of those."""
    return {n for n in names if ctx.get_parameter_source(n) is click.core.ParameterSource.COMMANDLINE}


def command_from(cmd: Command, name: str, *, extra: Iterable[click.Parameter] = (),
                 before: Callable[[Mapping[str, Any]], None] | None = None) -> click.Command:
    """A click command running ``cmd.run`` on the checked options and printing what it returns."""

    def callback(**params: Any) -> None:
        if before is not None:
            before(params)
        options = model_from_click(cmd.options, params)
        try:
            out = cmd.run(options)
        except OptionError as exc:
            raise reworded(exc, cmd.options) from None
        if out:
            click.echo(out, nl=not out.endswith("\n"))  # rendered tables end with their own newline

    return click.Command(name, params=[*click_params(cmd.options), *extra], callback=callback, help=cmd.help)
