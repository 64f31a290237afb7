"""The package's own trial kind, ``rating-scale``: a question above a horizontal 1..7 scale with end labels.

benchlab finds it through the ``benchlab.trial_screens`` entry point in this package's ``pyproject.toml``
(``rating-scale = "benchlab_example_task.rating_screen:rating_trial_screen"``) and shows it for every trial of a task
whose ``trial_kind`` is ``"rating-scale"``. The screen subclasses benchlab's
:class:`~benchlab.tui.screens.trial_base.TrialScreen`, so the stimulus onset, the response time (the key's or the
click's own event time), key debouncing, the pause while the terminal is too small and the experimenter keys work
as on the built-in screens; it only lays the scale out and maps the keys 1..7 to the points of the scale.
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
from benchlab.tui.screens.size_guard import MIN_WIDTH, box_rows, button_row, content_columns
from benchlab.tui.screens.trial_base import TrialScreen
from benchlab.tui.trial_context import TrialContext
from benchlab.tui.widgets.option_button import OptionButton
from benchlab.tui.widgets.session_progress import SessionProgress

#: What the two ends of the scale mean (the items ask where a number lies between 0 and 1).
LOW_END = "near 0"
HIGH_END = "near 1"


class RatingTrialScreen(TrialScreen):
    """The question, then ``LOW_END  [1] [2] ... [7]  HIGH_END``; keys 1..7 or a click on a point answer."""

    DEFAULT_CSS = """
    RatingTrialScreen { layout: vertical; }
    RatingTrialScreen #question-scroll { height: 1fr; padding: 1 4; }
    RatingTrialScreen #question { width: 100%; max-width: 100; padding: 1 2; border: round $primary; }
    RatingTrialScreen #scale { height: auto; align: center middle; padding: 0 0 1 0; }
    RatingTrialScreen .end { width: auto; height: 3; content-align: center middle; margin: 0 1; }
    RatingTrialScreen OptionButton { min-width: 5; margin: 0 0; }
    """

    def __init__(self, text: str, points: Sequence[str], context: TrialContext,
                 ends: tuple[str, str] = (LOW_END, HIGH_END)) -> None:
        super().__init__(context)
        if not 2 <= len(points) <= 9:
            raise ValueError("a rating scale needs 2 to 9 points (keys 1..9)")
        self.text = text
        self.points = tuple(points)
        self.ends = ends
        self.answer_keys = {str(i + 1): point for i, point in enumerate(self.points)}

    def compose(self) -> ComposeResult:
        yield SessionProgress(self.context.label, self.context.done, self.context.total)
        with VerticalScroll(id="question-scroll", can_focus=False):
            yield Static(self.text, id="question", markup=False)
        with Horizontal(id="scale"):
            yield Static(self.ends[0], id="low-end", classes="end", markup=False)
            for i, point in enumerate(self.points):
                yield OptionButton(point, point, id=f"point-{i + 1}")
            yield Static(self.ends[1], id="high-end", classes="end", markup=False)

    def on_mount(self) -> None:
        # the headless fallback onset (a terminal's frame write stamps it first; see TrialScreen.onset_hook)
        self.call_after_refresh(self.stamp_after_refresh, self.question)

    def needed_size(self, width: int) -> Size:
        """The progress line, the whole question (no scrolling) and the whole scale with both end labels."""
        scroll = self.query_one("#question-scroll", VerticalScroll)
        scale = self.query_one("#scale", Horizontal)
        points_width, points_rows = button_row(scale.query(OptionButton))
        ends_width = sum(content_columns(end) + end.styles.margin.width for end in scale.query(".end"))
        need_width = max(MIN_WIDTH, points_width + ends_width + scale.styles.gutter.width)
        inner = max(width, need_width) - scroll.styles.gutter.width
        rows = (box_rows(self.query_one(SessionProgress), width) + scroll.styles.gutter.height
                + box_rows(self.query_one("#question", Static), inner) + points_rows + scale.styles.gutter.height)
        return Size(need_width, rows)


def rating_trial_screen(runner: SessionRunner, step: PlannedStep, context: TrialContext) -> RatingTrialScreen:
    """The factory benchlab calls for each ``rating-scale`` trial: the item's text and its points (the options of
    the choice kit's prompt, ``"1"`` .. ``"7"``)."""
    task = runner.task
    if not isinstance(task, ChoiceSession):
        raise BenchlabError(f"task {task.name} has rating-scale trials but its session has no prompt(item_id)")
    prompt = task.prompt(step.item_id)
    return RatingTrialScreen(prompt.text, prompt.options, context)
