"""One question as a curator edits it: gold answer, components with flags, contexts with their audit mark.

Components, their contexts and the ``question_context`` entries are rows of one option list, so a single
cursor says what ``add``/``replace``/``delete``/``flags`` act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from benchlab.annotations.fastbook.context_edits import Slot
from benchlab.annotations.fastbook.editor_model import ContextMark
from benchlab.data.fastbook.benchmark import Question, strip_outer_quotes

ItemKind = Literal["component", "context", "qc", "qc-context"]


@dataclass(frozen=True)
class DetailItem:
    """A row: a component (``position`` None), a context of it, a question_context entry or its context."""

    kind: ItemKind
    slot: Slot
    position: int | None = None


MARK_SYMBOL = {"ok": ("✓", "green"), "crosses": ("⚠", "yellow"), "missing": ("✗", "bold red")}


def items_for(question: Question) -> list[DetailItem]:
    """The rows :class:`FastbookQuestionDetail` shows for ``question``, in order."""
    items: list[DetailItem] = []
    for i, component in enumerate(question.answer_context):
        items.append(DetailItem("component", Slot("answer", i)))
        items.extend(DetailItem("context", Slot("answer", i), j) for j in range(len(component.context)))
    for i, entry in enumerate(question.question_context):
        items.append(DetailItem("qc", Slot("question", i)))
        items.extend(DetailItem("qc-context", Slot("question", i), j) for j in range(len(entry.context)))
    return items


def _clip(text: str, width: int = 220) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _flag(name: str, value: str) -> Text:
    on = value == "true"
    return Text(f"{name}={value}", style="bold" if on else "dim")


class FastbookQuestionDetail(Vertical):
    """Question text, gold answer, and the option list of components and contexts."""

    DEFAULT_CSS = (Path(__file__).with_suffix(".tcss")).read_text(encoding="utf-8")

    class ItemHighlighted(Message):
        def __init__(self, item: DetailItem | None) -> None:
            super().__init__()
            self.item = item

    class ItemChosen(Message):
        """Enter on a row: jump to that context in the chapter."""

        def __init__(self, item: DetailItem | None) -> None:
            super().__init__()
            self.item = item

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: list[DetailItem] = []
        self._set_by_show: int | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="question-head", can_focus=False):
            yield Static(id="question-text")
        yield OptionList(id="items")

    @property
    def items(self) -> list[DetailItem]:
        return list(self._items)

    @property
    def current(self) -> DetailItem | None:
        index = self.query_one("#items", OptionList).highlighted
        if index is None or not 0 <= index < len(self._items):
            return None
        return self._items[index]

    def show(self, question: Question, marks: dict[tuple[Slot, int], ContextMark], *, keep: int | None = None) -> None:
        """Show ``question``; ``keep`` = option index to keep highlighted (after an edit), else the first row."""
        head = Text()
        head.append(f"Chapter {question.chapter}, question {question.question_number}\n", style="bold")
        head.append(strip_outer_quotes(question.question_text).strip() + "\n\n")
        head.append("Gold answer: ", style="bold")
        head.append(strip_outer_quotes(question.gold_standard_answer).strip())
        self.query_one("#question-text", Static).update(head)

        items = items_for(question)
        options: list[Option] = []
        for item in items:
            if item.kind == "component":
                component = question.answer_context[item.slot.index]
                prompt = Text.assemble(
                    (f"Component {item.slot.index}  ", "bold"),
                    _flag("explicit", component.explicit_context),
                    "  ",
                    _flag("extraneous", component.extraneous_answer),
                    "\n",
                    (_clip(strip_outer_quotes(component.answer_text), 300), "italic"),
                )
                if not component.context:
                    prompt.append("\n  ✗ no context: this component can never score", style="bold red")
            elif item.kind == "qc":
                entry = question.question_context[item.slot.index]
                prompt = Text.assemble(("question_context ", "bold"), (str(item.slot.index), "bold"), "\n",
                                       (_clip(entry.question_component, 300), "italic"))
            else:
                assert item.position is not None
                context = item.slot.contexts(question)[item.position]
                prompt = self._context_prompt(context, marks.get((item.slot, item.position)))
            options.append(Option(prompt))
        self._items = items
        option_list = self.query_one("#items", OptionList)
        option_list.set_options(options)
        if items:
            # The owner already shows this question; only the curator's own cursor moves are reported.
            self._set_by_show = min(keep, len(items) - 1) if keep is not None else 0
            option_list.highlighted = self._set_by_show

    @staticmethod
    def _context_prompt(context: str, mark: ContextMark | None) -> Text:
        symbol, style = MARK_SYMBOL[mark.state] if mark else ("·", "dim")
        text = Text("  ")
        text.append(f"{symbol} ", style=style)
        text.append(f"“{_clip(context)}”")
        if mark and mark.reason:
            text.append(f"\n    {mark.reason}", style=style)
        if mark and mark.state != "ok" and mark.suggestion:
            text.append(f"\n    f: use “{_clip(mark.suggestion, 80)}”", style="italic")
        return text

    def index_of(self, item: DetailItem, question: Question | None = None) -> int | None:
        """Row of ``item`` now, or in ``question`` once it is shown (to keep the cursor on an edited row)."""
        items = self._items if question is None else items_for(question)
        try:
            return items.index(item)
        except ValueError:
            return None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index == self._set_by_show:
            self._set_by_show = None
            return
        self._set_by_show = None
        self.post_message(self.ItemHighlighted(self.current))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.ItemChosen(self.current))
