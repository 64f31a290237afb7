"""An answer button that remembers when it was clicked (the click event's own time, for mouse response times)."""

from __future__ import annotations

from textual import events
from textual.widgets import Button


class OptionButton(Button, can_focus=False):
    """Not focusable, so Enter/Space can never submit an answer by accident; only its number key or a click."""

    def __init__(self, label: str, option: str, *, id: str | None = None) -> None:
        super().__init__(label, id=id)
        self.option = option
        self.click_time: float | None = None

    async def _on_click(self, event: events.Click) -> None:
        self.click_time = event.time
        await super()._on_click(event)
