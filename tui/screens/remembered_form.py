"""What the experimenter's form screens share: an :class:`OptionForm` that starts from the values last used with
it (per ``memory_key``, see :mod:`benchlab.tui.form_memory`) and says so when those could not be read."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen

from benchlab.tui import form_memory
from benchlab.tui.widgets.option_form import OptionForm


class RememberedFormScreen(Screen[None]):
    """A screen holding one generated form that remembers its values under ``memory_key``."""

    def __init__(self, memory_key: str) -> None:
        super().__init__()
        self.memory_key = memory_key
        self.remembered_values, self._memory_note = form_memory.remembered(memory_key)

    @property
    def form(self) -> OptionForm:
        return self.query_one(OptionForm)

    def focus_field(self, name: str) -> None:
        field = self.form.field(name)
        if field is not None:
            field.focus()

    def say_memory_note(self) -> None:
        """Once mounted: an unreadable memory file is named (the form then shows the declared defaults)."""
        if self._memory_note:
            self.notify(self._memory_note, severity="warning", timeout=8)

    def remember(self, values: dict[str, Any] | None = None) -> None:
        """Keep ``values`` (default: every field as shown) for the next time; a failure is a warning, never a stop."""
        note = form_memory.remember(self.memory_key, values if values is not None else self.raw_values())
        if note:
            self.notify(note, severity="warning", timeout=8)

    def raw_values(self) -> dict[str, Any]:
        """Every field's raw value, as the form shows it."""
        return {name: self.form.raw(name) for name in self.form.infos}
