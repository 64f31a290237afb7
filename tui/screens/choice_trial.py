"""A trial with a text and a fixed set of answers: one button per option, answered by number key or click.

Timing follows the anchors notes (section 6): stimulus onset is stamped right after the first frame that shows the
question has been handed to the terminal writer (``frame_written``, called by the app; ``call_after_refresh`` is
the fallback and an audit stamp), the response is the input event's own ``time`` (set by Textual's input thread),
both on Textual's monotonic clock, and RT is their difference. ``benchlab timing-check`` measures both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual import events
from textual._time import get_time
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Static

from benchlab.annotations.session_runner import ResponseTiming, wall_clock_now
from benchlab.tui.trial_context import TrialContext
from benchlab.tui.widgets.option_button import OptionButton
from benchlab.tui.widgets.session_progress import SessionProgress


def option_label(number: int, option: str) -> str:
    """``1  TRUE``; bare one-digit options (WorldSense completeness) read as ``1  (1)`` like in the question text;
    other numbers (a plug-in's ``17``) are shown as they are."""
    shown = f"({option})" if option.isdigit() and len(option) == 1 else option
    return f"{number}  {shown}"


class ChoiceTrialScreen(Screen[None]):
    """Question text above, answer buttons below; keys 1..n in option order; nothing else is a response."""

    CSS_PATH = "choice_trial.tcss"

    def __init__(
        self, text: str, options: Sequence[str], context: TrialContext) -> None:
        super().__init__()
        if not options or len(options) > 9:
            raise ValueError("a choice trial needs 1 to 9 options")
        self.text = text
        self.options = tuple(options)
        self.context = context
        self.debounce = context.debounce
        self.requested_mono: float = get_time()  # the stimulus was asked for (screen created)
        self.onset_mono: float | None = None
        self.onset_source = ""
        self.after_refresh_mono: float | None = None
        self.ignored_keys = 0
        self.answered = False
        self._keys = {str(i + 1): opt for i, opt in enumerate(self.options)}

    @property
    def first_onset_mono(self) -> float | None:
        return self.onset_mono

    def compose(self) -> ComposeResult:
        yield SessionProgress(self.context.label, self.context.done, self.context.total)
        with VerticalScroll(id="question-scroll", can_focus=False):
            yield Static(self.text, id="question", markup=False)
        with Horizontal(id="options"):
            for i, option in enumerate(self.options):
                yield OptionButton(option_label(i + 1, option), option, id=f"option-{i + 1}")

    def on_mount(self) -> None:
        self.call_after_refresh(self._after_refresh)

    def onset_hook(self) -> Callable[[float], None] | None:
        """The app asks this as each frame is queued: until a frame stamps the onset, that frame's write is it."""
        return None if self.answered or self.onset_source == "frame_written" else self.frame_written

    def frame_written(self, when: float) -> None:
        """Called by the app right after the first frame showing this trial went to the terminal: the onset."""
        if self.onset_source != "frame_written" and not self.answered:
            # Also replaces an after_refresh stamp taken while the first frame was still held back (app start-up).
            self.onset_mono = when
            self.onset_source = "frame_written"

    def _after_refresh(self) -> None:
        """Fallback onset where no frame is written (headless runs); also kept as an audit stamp."""
        self.after_refresh_mono = get_time()
        if self.onset_mono is None:
            self.onset_mono = self.after_refresh_mono
            self.onset_source = "after_refresh"

    def on_key(self, event: events.Key) -> None:
        # Every key stops here: the trial screen is the only place keys mean anything (no focus moves, no escape).
        event.stop()
        event.prevent_default()
        accepted = self.debounce.accepts(event.key, event.time, self.onset_mono)
        if self.answered:
            return
        if event.key not in self._keys or not accepted:
            if self.onset_mono is not None:
                self.ignored_keys += 1
            return
        self._answer(self._keys[event.key], event.time, "key")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        clicked = None if self.answered else OptionButton.clicked_answer(event, self.onset_mono)
        if clicked is not None:
            self._answer(*clicked, "mouse")

    def _answer(self, option: str, when: float, source: str) -> None:
        self.answered = True
        timing = ResponseTiming(
            onset_mono=self.onset_mono, response_mono=when, wall_clock=wall_clock_now(),
            requested_mono=self.requested_mono, handler_mono=get_time(), input=source,
            ignored_keys=self.ignored_keys, onset_source=self.onset_source,
        )
        self.context.on_answer(option, timing)
