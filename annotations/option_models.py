"""The pydantic model behind each declared options class (:class:`benchlab.annotations.options.Options`), built
the first time the class is used as a model, so that importing a declaration loads no pydantic.

Why: every command's declaration module defines its options classes at import, and a command's ``--help`` page
imports its declaration; pydantic's import alone is ~60 ms of CPU, more than a help page may cost. So a subclass
of ``Options`` is plain data at import (:class:`OptionsMeta` keeps each field's :class:`OptionSpec` and
annotation), and :func:`model_of` makes the pydantic model from it on first use: the same fields in the order
pydantic gives them (the reversed method resolution order: later bases first), the same ``Field`` arguments, the
validators declared with :func:`field_validator` / :func:`model_validator`, and the configuration every options
model has (unknown names refused, frozen, a wrong value raised as an ``OptionError``).

The model is a subclass of the declared class (``isinstance(m, ScoreOptions)`` holds, methods are inherited), and
the declared class answers every other attribute (``model_validate``, ``model_fields`` ...) from it; calling the
declared class makes an instance of the model. Type checkers see ``Options`` as the pydantic model it behaves as.
"""

from __future__ import annotations

import sys
import threading
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from benchlab.annotations.option_errors import option_error

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic import field_validator as field_validator
    from pydantic import model_validator as model_validator

T = TypeVar("T")

#: The default of a required field.
REQUIRED: Any = ...


@dataclass(frozen=True)
class OptionSpec:
    """One declared field as :func:`benchlab.annotations.options.option` gives it: ``pydantic.Field``'s arguments
    (``extra``: what the front ends need, pydantic's ``json_schema_extra``)."""

    default: Any = REQUIRED
    title: str | None = None
    description: str | None = None
    ge: float | None = None
    le: float | None = None
    gt: float | None = None
    lt: float | None = None
    extra: dict[str, Any] | None = field(default=None, hash=False)
    #: a ``pydantic.Field(...)`` written in a declaration (a plug-in's) instead of ``option(...)``: used as it is
    raw: Any = field(default=None, hash=False)

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def field(self) -> Any:
        """The ``pydantic.Field`` of this option."""
        if self.raw is not None:
            return self.raw
        # deferred: pydantic loads only when the model is built
        from pydantic import Field

        return Field(self.default, title=self.title, description=self.description, ge=self.ge, le=self.le,
                     gt=self.gt, lt=self.lt, json_schema_extra=self.extra)


@dataclass(frozen=True)
class _Validator:
    """A validator declared on an options class, handed to pydantic's decorator of the same name when the model is
    built."""

    decorator: str  # "field_validator" or "model_validator"
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    func: Any


if not TYPE_CHECKING:
    def field_validator(*fields: str, **kwargs: Any) -> Callable[[Any], Any]:
        """``pydantic.field_validator`` for an options class (applied when its model is built)."""
        return lambda func: _Validator("field_validator", fields, kwargs, func)

    def model_validator(**kwargs: Any) -> Callable[[Any], Any]:
        """``pydantic.model_validator`` for an options class (applied when its model is built)."""
        return lambda func: _Validator("model_validator", (), kwargs, func)


def _is_pydantic(value: object) -> bool:
    """Whether ``value`` is one of pydantic's own objects (a ``Field(...)``, a validator made with pydantic's
    decorator): a plug-in may declare its options with them, as it could when ``Options`` was a pydantic model."""
    return type(value).__module__.startswith("pydantic")


def _is_classvar(annotation: object) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


class OptionsMeta(type):
    """Keeps a declared class's fields as :class:`OptionSpec` s, answers model attributes from its pydantic model
    and makes instances of that model (see the module docstring)."""

    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kwargs: Any) -> OptionsMeta:
        if ns.get("__options_of__") is not None or ns.get("__plain_of__") is not None:
            # the pydantic model of a declared class, or the class of its options made without pydantic
            return super().__new__(mcs, name, bases, ns, **kwargs)
        specs: dict[str, OptionSpec] = {}
        for attr, annotation in ns.get("__annotations__", {}).items():
            if _is_classvar(annotation) or attr.startswith("_"):
                continue
            value = ns.pop(attr, REQUIRED)
            specs[attr] = value if isinstance(value, OptionSpec) else (
                OptionSpec(raw=value) if _is_pydantic(value) else OptionSpec(value))
        ns["__option_specs__"] = specs
        ns["__option_model__"] = None
        frame = sys._getframe(1)
        # a class declared in a function may name the function's locals in its annotations (pydantic reads them too)
        ns["__option_locals__"] = dict(frame.f_locals) if "<locals>" in ns.get("__qualname__", "") else None
        return super().__new__(mcs, name, bases, ns, **kwargs)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls.__dict__.get("__options_of__") is not None:
            return super().__call__(*args, **kwargs)
        return model_of(cls)(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        # only pydantic's model attributes, and not while the model is being built (pydantic reads its bases)
        if not name.startswith("model_") or cls.__dict__.get("__options_of__") is not None or cls in _building():
            raise AttributeError(name)
        return getattr(model_of(cls), name)


def declared_class(model: type) -> type | None:
    """The declared options class of ``model`` (itself, or the class its pydantic model was built from, or the one
    whose options :mod:`benchlab.annotations.plain_options` made without pydantic)."""
    if not isinstance(model, OptionsMeta):
        return None
    return model.__dict__.get("__options_of__") or model.__dict__.get("__plain_of__") or model


def has_validators(cls: type) -> bool:
    """Whether the declared class ``cls`` (or a base) declares a validator, pydantic's own object (a computed
    field, a pydantic validator) or a ``model_post_init``: pydantic must make its instances then."""
    for klass in cls.__mro__:
        for attr, value in klass.__dict__.items():
            if isinstance(value, _Validator) or (_is_pydantic(value) and not attr.startswith("__")):
                return True
            if attr == "model_post_init":
                return True
    return False


def declared_fields(model: type) -> dict[str, OptionSpec] | None:
    """Every field of a declared options class (or of its model), in pydantic's order; ``None`` for any other
    class."""
    cls = declared_class(model)
    if cls is None:
        return None
    fields: dict[str, OptionSpec] = {}
    for klass in reversed(cls.__mro__):
        for attr, spec in klass.__dict__.get("__option_specs__", {}).items():
            fields[attr] = spec
    return fields


def declared_hints(model: type) -> dict[str, Any]:
    """The fields' annotations, evaluated (each in the module of the class that declares it)."""
    cls = declared_class(model)
    assert cls is not None
    local: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        local.update(klass.__dict__.get("__option_locals__") or {})
    return typing.get_type_hints(cls, localns=local or None)


def _base() -> type[BaseModel]:
    """The pydantic base of every options model: its configuration and the ``OptionError`` of a wrong value."""
    global _BASE
    if _BASE is None:
        # deferred: pydantic loads only when a model is built
        from pydantic import BaseModel, ConfigDict, ValidationError, ValidatorFunctionWrapHandler
        from pydantic import model_validator as pydantic_model_validator

        class OptionsModel(BaseModel):
            model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

            @pydantic_model_validator(mode="wrap")
            @classmethod
            def _wrong_field_as_option_error(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
                try:
                    return handler(data)
                except ValidationError as exc:
                    raise option_error(cls, exc) from None

        _BASE = OptionsModel
    return _BASE


_BASE: type[BaseModel] | None = None
#: One model is built at a time; ``_BUILT.classes``: the declared classes whose model this thread is building.
_LOCK = threading.RLock()
_BUILT = threading.local()


def _building() -> set[type]:
    """The declared classes whose model this thread is building now (pydantic reads their attributes then)."""
    if not hasattr(_BUILT, "classes"):
        _BUILT.classes = set()
    classes: set[type] = _BUILT.classes
    return classes


_META: type | None = None


def _meta() -> type:
    """The metaclass of the models: pydantic's and :class:`OptionsMeta` (a model subclasses its declared class)."""
    global _META
    if _META is None:
        # pydantic's metaclass, reached through its public base class rather than its private module
        _META = type("OptionsModelMeta", (type(_base()), OptionsMeta), {})
    return _META


def model_of(cls: type) -> type[BaseModel]:
    """The pydantic model of the declared options class ``cls``, built on first use (once, whichever thread asks
    first: two models of one class would make unequal instances)."""
    cls = cls.__dict__.get("__plain_of__") or cls
    made = cls.__dict__.get("__option_model__")
    if made is not None:
        return made
    with _LOCK:
        made = cls.__dict__.get("__option_model__")
        return made if made is not None else _build(cls)


def _build(cls: type) -> type[BaseModel]:
    """See :func:`model_of` (called holding the lock)."""
    # deferred: pydantic loads only when a model is built (importing a declaration never builds one)
    import pydantic

    fields = declared_fields(cls)
    assert fields is not None
    hints = declared_hints(cls)
    ns: dict[str, Any] = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__,
                          "__options_of__": cls, "__annotations__": {name: hints[name] for name in fields}}
    ns.update((name, spec.field()) for name, spec in fields.items())
    for klass in reversed(cls.__mro__):
        for attr, value in klass.__dict__.items():
            if isinstance(value, _Validator):
                ns[attr] = getattr(pydantic, value.decorator)(*value.args, **value.kwargs)(value.func)
            elif _is_pydantic(value) and not attr.startswith("__"):  # pydantic's own validator, computed field ...
                ns[attr] = value
    base = _base()
    building = _building()
    building.update(cls.__mro__)
    try:
        made = _meta()(cls.__name__, (cls, base), ns)
    finally:
        building.difference_update(cls.__mro__)
    type.__setattr__(cls, "__option_model__", made)
    return made


def rebuilt(cls: type, state: dict[str, Any]) -> Any:
    """An instance of the model of ``cls`` with the pickled ``state`` (see ``Options.__reduce__``)."""
    model = model_of(cls)
    made = model.__new__(model)
    made.__setstate__(state)
    return made


def options_model(name: str, base: type[T], *, defaults: Mapping[str, Any] | None = None,
                  **fields: tuple[Any, OptionSpec]) -> type[T]:
    """A subclass of the options class ``base`` named ``name`` (``pydantic.create_model(name, __base__=base,
    ...)``): ``fields`` are new fields as ``(annotation, option(...))``, ``defaults`` new defaults of inherited
    fields (their labels, help, bounds and flags unchanged)."""
    inherited = declared_fields(base) or {}
    hints = declared_hints(base) if defaults else {}
    annotations = {attr: hints[attr] for attr in defaults or {}}
    ns: dict[str, Any] = {attr: replace(inherited[attr], default=value) for attr, value in (defaults or {}).items()}
    for attr, (annotation, spec) in fields.items():
        annotations[attr] = annotation
        ns[attr] = spec
    ns.update(__annotations__=annotations, __module__=base.__module__, __qualname__=name)
    meta: Any = type(base)  # OptionsMeta
    return typing.cast("type[T]", meta(name, (base,), ns))
