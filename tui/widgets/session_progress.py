"""The progress line participants see on every session screen: where they are and how much is left."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar


class SessionProgress(Horizontal):
    """``label`` on the left, a bar of ``done`` out of ``total`` on the right (no ETA: it would pressure people)."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def __init__(self, label: str, done: int, total: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._label = label
        self._done = done
        self._total = max(total, 1)

    def compose(self) -> ComposeResult:
        yield Label(self._label, id="progress-label", markup=False)
        yield ProgressBar(total=self._total, show_eta=False, show_percentage=False, id="progress-bar")

    def on_mount(self) -> None:
        self.query_one(ProgressBar).update(progress=self._done)

    def set_progress(self, label: str, done: int) -> None:
        self._label, self._done = label, done
        self.query_one(Label).update(label)
        self.query_one(ProgressBar).update(progress=done)
