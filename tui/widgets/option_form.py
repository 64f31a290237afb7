"""A form generated from declared options models: one labelled widget per form-visible option.

Benchmarks declare their options once (:mod:`benchlab.annotations.options`); this widget turns the declarations
into widgets, so a new plan option appears in the launcher without touching the app. It only collects raw
values (what :func:`~benchlab.annotations.options.parse_options` checks) and shows errors beside the field they
name: checking stays in the models, so the form, the command line and the tests agree on every bound.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from benchlab.annotations.options import OptionInfo, option_infos
from benchlab.tui.widgets.path_picker import PathPicker

#: The kinds of widget a field can be (what ``field()`` returns).
FieldWidget = Input | Checkbox | Select[str]


@dataclass(frozen=True)
class FormSection:
    """One options model of the form, under an optional heading (e.g. the session's options, then the plan's)."""

    model: type[BaseModel]
    heading: str | None = None


def _text(value: Any) -> str:
    """A default as the form shows it ("" for none; lists comma separated)."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(str(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _hint(info: OptionInfo) -> str:
    """The help line: the declared help, plus the bounds a number must respect (so nobody learns them by error)."""
    bounds = []
    if info.ge is not None:
        bounds.append(f"at least {info.ge:g}")
    if info.le is not None:
        bounds.append(f"at most {info.le:g}")
    if info.multiple:
        bounds.append("comma separated")
    return info.help + (f" ({', '.join(bounds)})" if bounds else "")


class OptionForm(Vertical):
    """Labelled widgets for the form-visible options of one or more models; ``values(model)`` for parsing.

    The widget of option ``name`` has the id ``f-<name>`` and its error line ``f-<name>-error`` (field names are
    unique across the sections of one form).
    """

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    class Changed(Message):
        """The experimenter changed the value of option ``name`` (raw widget value)."""

        def __init__(self, form: OptionForm, name: str, value: Any) -> None:
            super().__init__()
            self.form = form
            self.name = name
            self.value = value

        @property
        def control(self) -> OptionForm:
            return self.form

    def __init__(self, *sections: FormSection, defaults: Mapping[str, Any] | None = None,
                 id: str | None = None) -> None:
        """``defaults``: values shown instead of the declared defaults (e.g. a task's own default data set)."""
        super().__init__(id=id)
        self.sections = sections
        self.overrides = dict(defaults or {})
        self.infos: dict[str, OptionInfo] = {}
        self._offered: dict[str, tuple[str, ...]] = {}  # fields shown as a choice of the data's values
        self._swapping = asyncio.Lock()
        for section in sections:
            for info in option_infos(section.model):
                if info.form:
                    if info.name in self.infos:
                        raise ValueError(f"option {info.name!r} is declared twice in one form")
                    self.infos[info.name] = info

    # -- building ---------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        for section in self.sections:
            if section.heading:
                yield Static(section.heading, classes="form-heading", markup=False)
            for info in option_infos(section.model):
                if info.form:
                    with Vertical(id=f"field-{info.name}", classes="form-field"):
                        yield from self._field(info)

    def _field(self, info: OptionInfo) -> ComposeResult:
        shown = self.overrides.get(info.name, info.default)
        if info.kind == "bool":
            yield Checkbox(info.label, value=bool(shown), id=f"f-{info.name}")
        else:
            yield Label(info.label, classes="field-label", markup=False)
            if info.kind == "choice" and not info.multiple:
                value = _text(shown)
                yield Select([(c, c) for c in info.choices], value=value if value in info.choices else Select.BLANK,
                             allow_blank=info.optional or value not in info.choices, id=f"f-{info.name}")
            else:
                kind = {"int": "integer", "float": "number"}.get(info.kind, "text") if not info.multiple else "text"
                field = Input(value=_text(shown), type=kind, id=f"f-{info.name}")  # type: ignore[arg-type]
                if info.widget in ("path", "folder") and not info.multiple:
                    with Horizontal(classes="path-row"):
                        yield field
                        yield Button("Browse…", id=f"browse-{info.name}", classes="browse", compact=True)
                else:
                    yield field
        if info.help and not info.negate:  # a negated switch's help describes its "--no-..." flag, not the box
            yield Static(_hint(info), classes="field-help", markup=False)
        yield Static("", id=f"f-{info.name}-error", classes="field-error", markup=False)

    async def offer_choices(self, name: str, choices: Sequence[str]) -> None:
        """Show field ``name`` (a number or text) as a choice of ``choices`` (the values the data holds), keeping
        its value when it is one of them; with no choices, back to free entry. Declared choices are left alone."""
        async with self._swapping:  # two look-ups in a row must not swap the same field at once
            await self._offer(name, choices)

    async def _offer(self, name: str, choices: Sequence[str]) -> None:
        widget = self.field(name)
        info = self.infos.get(name)
        if widget is None or info is None or isinstance(widget, Checkbox) or info.kind == "choice":
            return
        current = str(self.raw(name))
        if choices:
            options = [(c, c) for c in choices]
            if isinstance(widget, Select) and self._offered.get(name) == tuple(choices):
                return
            default = _text(self.overrides.get(name, info.default))
            value = current if current in choices else default if default in choices else choices[0]
            new: FieldWidget = Select(options, value=value, allow_blank=False, id=f"f-{name}")
        elif isinstance(widget, Select):
            kind = {"int": "integer", "float": "number"}.get(info.kind, "text")
            new = Input(value=current, type=kind, id=f"f-{name}")  # type: ignore[arg-type]
        else:
            return
        self._offered[name] = tuple(choices)
        container = self.query_one(f"#field-{name}")
        await widget.remove()
        label = container.query(".field-label")
        await container.mount(new, after=label.first() if label else None)

    # -- reading ----------------------------------------------------------------------------------------------
    def field(self, name: str) -> FieldWidget | None:
        """The widget of option ``name`` (``None`` when the form does not show it)."""
        if name not in self.infos:
            return None
        found = self.query(f"#f-{name}")
        widget = found.first() if found else None
        return widget if isinstance(widget, (Input, Checkbox, Select)) else None

    def raw(self, name: str) -> Any:
        """The raw value of one field: text (stripped), a bool, the chosen choice, or a list for a multiple."""
        widget = self.field(name)
        info = self.infos[name]
        if isinstance(widget, Checkbox):
            return widget.value
        if isinstance(widget, Select):
            return "" if widget.value is Select.BLANK else str(widget.value)
        text = widget.value.strip() if isinstance(widget, Input) else ""
        if info.multiple:
            return [part.strip() for part in text.split(",") if part.strip()]
        return text

    def set_raw(self, name: str, value: Any) -> None:
        """Put a raw value into field ``name`` (text for a box, a bool for a checkbox); no-op for an absent field."""
        widget = self.field(name)
        if isinstance(widget, Checkbox):
            widget.value = bool(value)
        elif isinstance(widget, Input):
            widget.value = _text(value)
        elif isinstance(widget, Select) and str(value) in self.infos[name].choices:
            widget.value = str(value)

    def values(self, model: type[BaseModel]) -> dict[str, Any]:
        """Raw values of ``model``'s form fields, for ``parse_options(model, ...)``.

        An empty field or list is left out, so the declared default applies (as for an absent flag).
        """
        names = [i.name for i in option_infos(model) if i.name in self.infos]
        raw = {name: self.raw(name) for name in names}
        return {name: value for name, value in raw.items() if value not in ("", [])}

    # -- errors -----------------------------------------------------------------------------------------------
    def clear_errors(self) -> None:
        for name in self.infos:
            self._set_error(name, "")

    def show_error(self, name: str, message: str) -> bool:
        """Put ``message`` beside field ``name`` (clearing the others), focus it and scroll it into view.

        Returns ``False`` (and shows nothing) when the form has no such field.
        """
        self.clear_errors()
        widget = self.field(name)
        if widget is None:
            return False
        self._set_error(name, message)
        widget.focus()  # focusing scrolls the field into view in the screen's scroll container
        widget.scroll_visible(animate=False)
        return True

    def _set_error(self, name: str, message: str) -> None:
        found = self.query(f"#f-{name}-error")
        if found:
            line = found.first(Static)
            line.update(message)
            line.display = bool(message)
        container = self.query(f"#field-{name}")
        if container:
            container.first().set_class(bool(message), "-invalid")

    # -- events -----------------------------------------------------------------------------------------------
    def _changed(self, widget: Widget | None, value: Any) -> None:
        name = (widget.id or "").removeprefix("f-") if widget is not None else ""
        if name in self.infos:
            self.post_message(self.Changed(self, name, value))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._changed(event.input, event.value)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._changed(event.checkbox, event.value)

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._changed(event.select, event.value)

    def on_mount(self) -> None:
        for line in self.query(".field-error"):
            line.display = False

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Browse… beside a path field: pick a file or folder; the path goes into the field (still editable)."""
        name = (event.button.id or "").removeprefix("browse-")
        info = self.infos.get(name)
        field = self.field(name)
        if info is None or not isinstance(field, Input):
            return
        event.stop()
        def picked(path: Path | None) -> None:
            if path is not None:
                field.value = str(path)
                field.focus()

        start = Path(field.value).expanduser() if field.value.strip() else Path.cwd()
        self.app.push_screen(PathPicker(info.label, start, folders_only=info.widget == "folder"), picked)
