"""A trial with a text and a fixed set of answers: one button per option, answered by number key or click.

Onset, response time, debouncing and the mouse rule are :class:`~benchlab.tui.screens.trial_base.TrialScreen`'s
(shared with the other trial kinds); this screen only lays the question out and maps keys 1..n to its options.
:func:`choice_trial_screen` is the factory of the ``choice`` trial kind (declared in benchlab's ``pyproject.toml``,
group ``benchlab.trial_screens``).
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Size
from textual.widgets import Static

from benchlab.annotations.session.plan import PlannedStep
from benchlab.annotations.session.runner import SessionRunner
from benchlab.annotations.task import ChoiceSession
from benchlab.data.errors import BenchlabError
from benchlab.tui.screens.size_guard import MIN_WIDTH, box_rows, button_row
from benchlab.tui.screens.trial_base import TrialScreen
from benchlab.tui.trial_context import TrialContext
from benchlab.tui.widgets.option_button import OptionButton
from benchlab.tui.widgets.session_progress import SessionProgress


def option_label(number: int, option: str) -> str:
    """``1  TRUE``; bare one-digit options (a rating or count answered by its digit) read as ``1  (1)`` like in
    the question text; other numbers (a plug-in's ``17``) are shown as they are."""
    shown = f"({option})" if option.isdigit() and len(option) == 1 else option
    return f"{number}  {shown}"


class ChoiceTrialScreen(TrialScreen):
    """Question text above, answer buttons below; keys 1..n in option order; nothing else is a response."""

    CSS_PATH = "choice_trial.tcss"

    def __init__(self, text: str, options: Sequence[str], context: TrialContext) -> None:
        super().__init__(context)
        if not options or len(options) > 9:
            raise ValueError("a choice trial needs 1 to 9 options")
        self.text = text
        self.options = tuple(options)
        self.answer_keys = {str(i + 1): opt for i, opt in enumerate(self.options)}

    def compose(self) -> ComposeResult:
        yield SessionProgress(self.context.label, self.context.done, self.context.total)
        with VerticalScroll(id="question-scroll", can_focus=False):
            yield Static(self.text, id="question", markup=False)
        with Horizontal(id="options"):
            for i, option in enumerate(self.options):
                yield OptionButton(option_label(i + 1, option), option, id=f"option-{i + 1}")

    def on_mount(self) -> None:
        self.call_after_refresh(self.stamp_after_refresh, self.question)

    def needed_size(self, width: int) -> Size:
        """The progress line, the whole question (wrapped at this width, no scrolling) and every answer button."""
        scroll = self.query_one("#question-scroll", VerticalScroll)
        options = self.query_one("#options", Horizontal)
        buttons_width, buttons_rows = button_row(options.query(OptionButton))
        need_width = max(MIN_WIDTH, buttons_width + options.styles.gutter.width)
        inner = max(width, need_width) - scroll.styles.gutter.width
        rows = (box_rows(self.query_one(SessionProgress), width) + scroll.styles.gutter.height
                + box_rows(self.query_one("#question", Static), inner) + buttons_rows + options.styles.gutter.height)
        return Size(need_width, rows)


def choice_trial_screen(runner: SessionRunner, step: PlannedStep, context: TrialContext) -> ChoiceTrialScreen:
    """The ``choice`` trial kind (entry point in ``benchlab.trial_screens``): the session's prompt, nothing else of
    the task, so a plug-in choice task needs no screen of its own."""
    task = runner.task
    if not isinstance(task, ChoiceSession):
        raise BenchlabError(f"task {task.name} has choice trials but its session has no prompt(item_id)")
    prompt = task.prompt(step.item_id)
    return ChoiceTrialScreen(prompt.text, prompt.options, context)
