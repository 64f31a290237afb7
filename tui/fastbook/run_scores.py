"""Retrieval runs re-scored after every edit: MRR@10 and Recall@10 now, and the change since loading."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from benchlab.annotations.fastbook.editor_model import RunScoreRow


def _cell(value: float | None, base: float | None) -> Text:
    if value is None:
        return Text("–", style="dim")
    text = Text(f"{value:.4f}")
    if base is not None and abs(value - base) > 1e-12:
        delta = value - base
        text.append(f" ({delta:+.4f})", style="green" if delta > 0 else "red")
    return text


class FastbookRunScores(Static):
    """Per run: overall MRR@k / Recall@k and the current question's, each with its change since opening."""

    DEFAULT_CSS = (Path(__file__).with_suffix(".tcss")).read_text(encoding="utf-8")

    def show(self, rows: list[RunScoreRow], k: int, question: str) -> None:
        if not rows:
            self.update(Text("No retrieval runs loaded (--runs RUN.jsonl to see how edits change the scores).",
                             style="dim"))
            return
        table = Table(box=None, pad_edge=False, expand=True, header_style="bold")
        # Scores fold onto a second line rather than lose their change ("0.4321 (+0.00..." said nothing).
        table.add_column("run", overflow="fold", ratio=3)
        table.add_column("", overflow="fold", ratio=2)
        table.add_column(f"MRR@{k}", overflow="fold", ratio=4)
        table.add_column(f"Recall@{k}", overflow="fold", ratio=4)
        for row in rows:
            table.add_row(row.name, "overall", _cell(row.mrr, row.mrr_base), _cell(row.recall, row.recall_base))
            table.add_row("", question, _cell(row.q_mrr, row.q_mrr_base), _cell(row.q_recall, row.q_recall_base))
        self.update(table)
