"""Command-line options checked without pydantic when the values need nothing pydantic does.

Why: a routed command (``benchlab compare ...``) spends ~0.1 s of its second building the pydantic model of its
options class and validating the first values (importing pydantic, generating the schema, scanning the installed
distributions for pydantic plug-ins), then uses the result as plain attributes. Click has already converted every
value to its declared type by then. So when an options class declares only plain fields (``int``, ``float``,
``bool``, ``str``, ``Path``, a ``Literal`` of them, their ``| None`` and ``tuple[X, ...]``) with bounds and no
validator of its own, and every given value is exactly of its field's type and within its bounds and choices,
:func:`plain_checked` makes the options without pydantic: what pydantic would return is then these very values
(pydantic keeps a ``Path`` it is given, copies a tuple to an equal one and does not check defaults). Anything
else (a value to convert, one out of bounds, an unknown or missing name, a validator) returns ``None``, and the
caller validates with pydantic as before, which converts it or words the error.

The result is an instance of the declared class (its properties and methods work, ``isinstance`` holds): the
fields are its attributes and nothing can be set. Anything of pydantic's (``model_dump``, ``model_copy``,
``model_fields_set`` ...) is answered by the model instance pydantic makes from the same values, made when first
asked for, so a command that needs pydantic's API still gets it.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from benchlab.annotations.option_models import (
    REQUIRED,
    OptionSpec,
    declared_class,
    declared_fields,
    declared_hints,
    has_validators,
    model_of,
)

#: A field's check of one given value.
Check = Callable[[Any], bool]

_EXACT: dict[Any, type] = {int: int, float: float, bool: bool, str: str}
#: Defaults used as they are (pydantic copies a mutable default for each instance; these it returns unchanged).
_IMMUTABLE = (int, float, bool, str, Path, tuple, frozenset, type(None))


def _type_check(annotation: Any) -> Check | None:
    """Whether a value is exactly of ``annotation`` (one of the plain field types), or ``None`` for any other."""
    if annotation in _EXACT:
        exact = _EXACT[annotation]
        return lambda v: type(v) is exact
    if annotation is Path:
        return lambda v: isinstance(v, Path)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal and all(type(a) in (str, int, bool) for a in args):
        allowed = {(type(a), a) for a in args}
        return lambda v: type(v) in (str, int, bool) and (type(v), v) in allowed
    if origin in (typing.Union, types.UnionType) and type(None) in args and len(args) == 2:
        inner = _type_check(next(a for a in args if a is not type(None)))
        return None if inner is None else (lambda v: v is None or inner(v))
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _type_check(args[0])
        return None if item is None else (lambda v: type(v) is tuple and all(item(x) for x in v))
    return None


def _bounded(check: Check, spec: OptionSpec, annotation: Any) -> Check | None:
    """``check`` and the declared bounds (a value they exclude, NaN included, goes to pydantic for its error);
    ``None`` for bounds on anything but a number."""
    bounds = [(b, op) for b, op in ((spec.ge, "ge"), (spec.le, "le"), (spec.gt, "gt"), (spec.lt, "lt"))
              if b is not None]
    if not bounds:
        return check
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):  # ``X | None`` (the only union checked)
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    if annotation not in (int, float):
        return None

    def within(v: Any) -> bool:
        if not check(v):
            return False
        if v is None:
            return True
        for bound, op in bounds:
            ok = {"ge": v >= bound, "le": v <= bound, "gt": v > bound, "lt": v < bound}[op]
            if not ok:
                return False
        return True

    return within


def _checks(cls: type) -> dict[str, tuple[Check, Any]] | None:
    """Each field's check and default (``REQUIRED``) when ``cls`` can be checked without pydantic, else ``None``;
    worked out once per class."""
    cached = cls.__dict__.get("__plain_checks__", False)
    if cached is not False:
        return typing.cast("dict[str, tuple[Check, Any]] | None", cached)
    checks: dict[str, tuple[Check, Any]] | None = {}
    fields = declared_fields(cls) or {}
    if has_validators(cls) or any(spec.raw is not None for spec in fields.values()):
        checks = None
    else:
        hints = declared_hints(cls)
        for name, spec in fields.items():
            check = _type_check(hints[name])
            check = None if check is None else _bounded(check, spec, hints[name])
            if check is None or not (spec.required or isinstance(spec.default, _IMMUTABLE)):
                checks = None
                break
            assert checks is not None
            checks[name] = (check, spec.default)
    type.__setattr__(cls, "__plain_checks__", checks)
    return checks


def plain_checked(model: type, values: Mapping[str, Any]) -> Any | None:
    """The options of ``model`` with ``values``, made without pydantic when nothing needs it (see the module
    docstring); ``None``: validate with pydantic."""
    cls = declared_class(model)
    if cls is None:
        return None
    checks = _checks(cls)
    if checks is None or not values.keys() <= checks.keys():
        return None
    fields: dict[str, Any] = {}
    for name, (check, default) in checks.items():
        if name in values:
            if not check(values[name]):
                return None
            fields[name] = values[name]
        elif default is REQUIRED:
            return None
        else:
            fields[name] = default
    made: Any = object.__new__(_plain_class(cls))
    made.__dict__.update(fields)
    object.__setattr__(made, "_given", tuple(values))
    return made


def _plain_class(cls: type) -> type:
    """The class of ``cls``'s options made without pydantic: :class:`PlainOptions` and the declared class, made
    once."""
    made = cls.__dict__.get("__plain_class__")
    if made is None:
        ns = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__plain_of__": cls, "__slots__": ()}
        made = type(cls)(cls.__name__, (PlainOptions, cls), ns)
        type.__setattr__(cls, "__plain_class__", made)
    return typing.cast(type, made)


class PlainOptions:
    """What options made without pydantic have besides their declared class: frozen fields, the model's equality
    and representation, and pydantic's API answered by the model instance of the same values."""

    __slots__ = ("_given", "_model")
    _given: tuple[str, ...]

    def _pydantic(self) -> Any:
        """The model instance pydantic makes from the given values, made once when first needed."""
        try:
            return object.__getattribute__(self, "_model")
        except AttributeError:
            model = model_of(self._declared()).model_validate({name: self.__dict__[name] for name in self._given})
            object.__setattr__(self, "_model", model)
            return model

    def _declared(self) -> type:
        return typing.cast(type, type(self).__dict__["__plain_of__"])

    def __getattr__(self, name: str) -> Any:
        if name.startswith(("model_", "__pydantic")):
            return getattr(self._pydantic(), name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise TypeError(f"{type(self).__name__} is frozen: {name!r} cannot be set")

    def __delattr__(self, name: str) -> None:
        raise TypeError(f"{type(self).__name__} is frozen: {name!r} cannot be deleted")

    def __eq__(self, other: object) -> bool:
        own = self._declared()
        if not isinstance(other, own) or declared_class(type(other)) is not own:
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(self._pydantic())  # equal to the model instance's, which compares equal

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items())
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> tuple[Any, ...]:
        return _remade, (self._declared(), {name: self.__dict__[name] for name in self._given})


def _remade(cls: type, given: dict[str, Any]) -> Any:
    """Unpickled options: checked again the same way."""
    made = plain_checked(cls, given)
    return made if made is not None else model_of(cls).model_validate(given)
