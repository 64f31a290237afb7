"""What a participant sees instead of a screen the terminal is too small for (see
:mod:`benchlab.tui.screens.size_guard`): what to do first, in plain words; the sizes last, for the experimenter."""

from __future__ import annotations

from pathlib import Path

from textual.geometry import Size
from textual.widgets import Static

TITLE = "Please make this window larger"
MESSAGE = ("The window is too small to show everything. Make the window bigger, or the text smaller; "
           "you can go on as soon as everything fits.")


class EnlargeNotice(Static):
    """Hidden until its screen pauses; the most important words first, so that even a 20x5 window shows them."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def __init__(self) -> None:
        super().__init__(f"[b]{TITLE}[/b]", id="enlarge-notice")
        self.display = False

    def show_sizes(self, need: Size, now: Size) -> None:
        self.update(f"[b]{TITLE}[/b]\n\n{MESSAGE}\n\n[dim](needs {need.width} x {need.height} characters, now "
                    f"{now.width} x {now.height})[/dim]")
