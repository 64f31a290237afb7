"""Declared options classes are plain data until used, then behave as the pydantic models they declare
(annotations/option_models.py): the same fields in the same order, bounds, validators and errors."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Literal

import click
import pydantic
import pytest

from benchlab.annotations.options import OptionError, Options, field_validator, option, option_infos, options_model
from benchlab.tui import cli


def _declared_models() -> list[type]:
    """The options class of every declared command of the live CLI."""
    found = []
    todo: list[click.Command] = [cli.build_cli()]
    while todo:
        command = todo.pop()
        if isinstance(command, click.Group):
            todo.extend(command.get_command(click.Context(command), n) for n in command.list_commands(
                click.Context(command)))
        callback = getattr(command, "callback", None)
        for cell in getattr(callback, "__closure__", None) or ():
            options = getattr(cell.cell_contents, "options", None)
            if isinstance(options, type) and issubclass(options, Options):
                found.append(options)
    return found


def test_every_declared_command_lists_its_options_in_the_order_pydantic_gives_them() -> None:
    models = _declared_models()
    assert len(models) > 20
    for model in models:
        assert [i.name for i in option_infos(model)] == list(model.model_fields), model
        for info in option_infos(model):
            field = model.model_fields[info.name]
            assert (info.label, info.required) == (field.title or info.name.replace("_", " "), field.is_required())
            assert info.default == (None if field.is_required() else field.get_default()), (model, info.name)


class _Base(Options):
    count: int = option(3, label="Count", ge=1, help="How many.")

    @field_validator("count")
    @classmethod
    def _not_thirteen(cls, value: int) -> int:
        if value == 13:
            raise ValueError("must not be 13")
        return value


class _Extra(Options):
    name: str = option("x", label="Name", help="A name.")


class _Both(_Extra, _Base):
    """Later bases first, as pydantic orders them."""

    colour: Literal["red", "blue"] = option("red", label="Colour", help="A colour.")

    def doubled(self) -> int:
        return 2 * self.count


def test_a_declared_class_is_checked_like_its_pydantic_model() -> None:
    made = _Both(count=4)
    assert isinstance(made, _Both) and isinstance(made, _Base) and made.doubled() == 8
    assert [i.name for i in option_infos(_Both)] == ["count", "name", "colour"] == list(_Both.model_fields)
    with pytest.raises(OptionError, match="Count must be at least 1"):
        _Both(count=0)
    with pytest.raises(OptionError, match="Count must not be 13"):  # a base's validator applies to a subclass
        _Both.model_validate({"count": 13})
    with pytest.raises(OptionError, match="is not an option here"):
        _Both(size=2)
    with pytest.raises(Exception, match="frozen"):
        made.count = 5  # type: ignore[misc]
    assert made.model_copy(update={"name": "y"}).name == "y" and made == _Both(count=4)
    assert pickle.loads(pickle.dumps(made)) == made and copy.deepcopy(made) == made


def test_a_class_declared_in_a_function_and_a_derived_one_with_new_defaults() -> None:
    Size = Literal["small", "large"]

    class Local(Options):
        size: Size = option("small", label="Size", help="A size.")
        where: Path | None = option(None, label="Where", help="A folder.")

    [size, where] = option_infos(Local)
    assert size.choices == ("small", "large") and where.kind == "path" and where.optional
    with pytest.raises(OptionError, match="Size must be one of 'small' or 'large'"):
        Local(size="medium")
    derived = options_model("Derived", _Both, defaults={"count": 7})
    assert derived().count == 7 and option_infos(derived)[0].label == "Count"
    with pytest.raises(OptionError, match="Count must be at least 1"):
        derived(count=0)


def test_importing_a_declaration_and_listing_its_options_loads_no_pydantic() -> None:
    code = ("import sys; from benchlab.annotations.worldsense.commands import CompareOptions; "
            "from benchlab.annotations.options import option_infos; option_infos(CompareOptions); "
            "print('pydantic' in sys.modules); CompareOptions(); print('pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


def test_a_plugin_declaring_with_pydantics_own_field_and_validator_keeps_working() -> None:
    """Plug-ins written when ``Options`` was a pydantic model may use ``pydantic.Field`` and pydantic's decorators."""

    class Written(Options):
        level: int = pydantic.Field(2, title="Level", description="How hard.", ge=1)
        tag: str = option("a", label="Tag", help="A tag.")

        @pydantic.field_validator("tag")
        @classmethod
        def _short(cls, value: str) -> str:
            if len(value) > 3:
                raise ValueError("is too long")
            return value

    assert [(i.name, i.label, i.default, i.ge) for i in option_infos(Written)] == [
        ("level", "Level", 2, 1.0), ("tag", "Tag", "a", None)]
    assert Written(level=3).level == 3
    with pytest.raises(OptionError, match="Level must be at least 1"):
        Written(level=0)
    with pytest.raises(OptionError, match="Tag is too long"):
        Written(tag="abcd")
