"""The curator's question list: chapter, number, audit status and text, optionally problems only."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from benchlab.annotations.fastbook.editor_model import QuestionRow

QuestionKey = tuple[int, int]


def status_cell(row: QuestionRow, done: bool = False) -> Text:
    mark = "☑ " if done else "✎ " if row.edited else ""  # done (in a curator's queue) says more than edited
    if row.problems:
        return Text(f"{mark}✗ {row.problems}", style="bold red")
    return Text(f"{mark}✓", style="green")


class FastbookQuestionList(DataTable[Text | str | int]):
    """A row per question; highlighting a row posts :class:`Chosen` so the detail and chapter follow."""

    DEFAULT_CSS = (Path(__file__).with_suffix(".tcss")).read_text(encoding="utf-8")

    class Chosen(Message):
        def __init__(self, qid: QuestionKey) -> None:
            super().__init__()
            self.qid = qid

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._rows: list[QuestionRow] = []
        self.problems_only = False
        #: A curator's queue (from an assignment plan): only these are listed unless ``show_all``.
        self.queue: set[QuestionKey] | None = None
        self.show_all = False
        self.done: set[QuestionKey] = set()

    def on_mount(self) -> None:
        self.add_column("Ch", key="ch", width=3)
        self.add_column("Q", key="q", width=3)
        self.add_column("Status", key="status", width=7)
        self.add_column("Question", key="text")

    def set_rows(self, rows: list[QuestionRow], *, keep: QuestionKey | None = None) -> None:
        self._rows = rows
        self._refill(keep)

    def toggle_problems_only(self, keep: QuestionKey | None = None) -> None:
        self.problems_only = not self.problems_only
        self._refill(keep)

    def set_queue(self, queue: set[QuestionKey], done: set[QuestionKey], keep: QuestionKey | None = None) -> None:
        self.queue, self.done = queue, done
        self._refill(keep)

    def toggle_show_all(self, keep: QuestionKey | None = None) -> None:
        self.show_all = not self.show_all
        self._refill(keep)

    def set_done(self, qid: QuestionKey, done: bool) -> None:
        (self.done.add if done else self.done.discard)(qid)
        key = f"{qid[0]}:{qid[1]}"
        row = next((r for r in self._rows if r.qid == qid), None)
        if row is not None and key in self.rows:
            self.update_cell(key, "status", status_cell(row, done))

    def _wanted(self, row: QuestionRow) -> bool:
        if self.problems_only and not row.problems:
            return False
        return self.queue is None or self.show_all or row.qid in self.queue

    def update_row(self, row: QuestionRow) -> None:
        """Refresh one question's status after an edit (its position in the list is kept)."""
        if row in self._rows:
            return  # unchanged: a table refresh costs more than the edit
        self._rows = [row if r.qid == row.qid else r for r in self._rows]
        key = f"{row.qid[0]}:{row.qid[1]}"
        if key in self.rows:
            self.update_cell(key, "status", status_cell(row, row.qid in self.done))

    @property
    def listed(self) -> list[QuestionKey]:
        return [r.qid for r in self._rows if self._wanted(r)]

    def _refill(self, keep: QuestionKey | None) -> None:
        self.clear()
        for row in self._rows:
            if not self._wanted(row):
                continue
            text = " ".join(row.text.split())
            self.add_row(row.qid[0], row.qid[1], status_cell(row, row.qid in self.done), text,
                         key=f"{row.qid[0]}:{row.qid[1]}")
        if keep is not None and f"{keep[0]}:{keep[1]}" in self.rows:
            self.move_cursor(row=self.get_row_index(f"{keep[0]}:{keep[1]}"))

    def select_question(self, qid: QuestionKey) -> None:
        key = f"{qid[0]}:{qid[1]}"
        if key in self.rows:
            self.move_cursor(row=self.get_row_index(key))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        value = event.row_key.value
        if value:
            chapter, number = value.split(":")
            self.post_message(self.Chosen((int(chapter), int(number))))
