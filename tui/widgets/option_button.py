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

    @staticmethod
    def clicked_answer(event: Button.Pressed, onset: float | None) -> tuple[str, float] | None:
        """``(option, click time)`` for a press of an answer button after stimulus onset, else ``None``."""
        button = event.button
        if onset is None or not isinstance(button, OptionButton):
            return None
        when = button.click_time if button.click_time is not None else event.time
        return None if when < onset else (button.option, when)

    async def _on_click(self, event: events.Click) -> None:
        self.click_time = event.time
        await super()._on_click(event)
