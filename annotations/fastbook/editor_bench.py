"""How fast the fastbook editor's work is, without a terminal: open, edit (with the fsynced log), re-score, save.

Runs on a temporary copy of the benchmark (the original is only read). Figures are wall-clock milliseconds
on this machine; ``benchlab bench curate-fastbook`` prints them (the closing note's numbers come from there).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from benchlab.annotations.fastbook.context_edits import AddContext, SetFlag, Slot, toggled
from benchlab.annotations.fastbook.curation import CurationSession
from benchlab.annotations.fastbook.editor_model import CurateModel
from benchlab.data.fastbook.chapters import Chapter, load_chapters
from benchlab.data.fastbook.runs import Run


@dataclass(frozen=True)
class Figure:
    what: str
    ms: float
    detail: str = ""


def _ms(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


def chunk_runs(session: CurationSession, chapters: Mapping[int, Chapter], n_runs: int) -> list[Run]:
    """``n_runs`` synthetic runs: run i returns chunks i..i+9 of the question's chapter (real passages)."""
    runs = []
    for i in range(n_runs):
        run = Run(f"chunks{i}-{i + 9}")
        for q in session.benchmark:
            chunks = chapters[q.chapter].chunks
            run.results[q.id] = [c.text for c in chunks[i : i + 10]]
        runs.append(run)
    return runs


def measure(benchmark: Path, chapters_dir: Path, *, edits: int = 50, n_runs: int = 4) -> list[Figure]:
    """Time each step a curator waits for; ``edits`` flag toggles + context additions for the per-edit figures."""
    with tempfile.TemporaryDirectory(prefix="benchlab-bench-") as tmp:
        copy = Path(tmp) / benchmark.name
        shutil.copyfile(benchmark, copy)
        figures: list[Figure] = []
        ms, session = _ms(lambda: CurationSession.open(copy, curator="bench"))
        assert isinstance(session, CurationSession)
        figures.append(Figure("load benchmark", ms, f"{len(session.benchmark)} questions"))
        ms, chapters = _ms(lambda: load_chapters(chapters_dir, session.benchmark.chapters))
        assert isinstance(chapters, dict)
        figures.append(Figure("load chapters + chunk spans", ms, f"{len(chapters)} chapters"))
        runs = chunk_runs(session, chapters, n_runs)
        ms, model = _ms(lambda: CurateModel(session.benchmark, chapters, runs))
        assert isinstance(model, CurateModel)
        figures.append(Figure("audit model + score runs (editor start)", ms, f"{n_runs} runs"))
        ms, rows = _ms(model.rows)
        figures.append(Figure("question list (audit of every context)", ms, f"{len(rows)} rows"))  # type: ignore[arg-type]

        questions = list(session.benchmark)
        per_edit: list[float] = []
        per_check: list[float] = []
        for i in range(edits):
            q = questions[(i * 7) % len(questions)]
            comp = q.answer_context[0]
            if i % 2:
                edit: SetFlag | AddContext = SetFlag(q.id, 0, "explicit_context", comp.explicit_context,
                                                     toggled(comp.explicit_context))
            else:
                text = chapters[q.chapter].text[100 + i : 180 + i]
                ms, _ = _ms(lambda q=q, text=text: model.check(q.chapter, text))  # type: ignore[misc]
                per_check.append(ms)
                edit = AddContext(q.id, Slot("answer", 0), len(comp.context), text)

            def one(edit: SetFlag | AddContext = edit, q: object = q) -> None:
                session.apply(edit)
                model.invalidate(edit.qid)
                model.row(session.benchmark.question(edit.qid))
                model.score_rows(edit.qid)

            ms, _ = _ms(one)
            per_edit.append(ms)
        figures.append(spread("edit: apply + fsynced log line + re-score + list row", per_edit, f"{n_runs} runs"))
        figures.append(spread("audit check of a new context", per_check))
        undo_ms = [_ms(session.undo)[0] for _ in range(10)]
        figures.append(spread("undo (with its log line)", undo_ms))
        ms, _ = _ms(session.diff)
        figures.append(Figure("session diff", ms, f"{len(session.changed_ids())} questions changed"))
        ms, _ = _ms(session.save)
        figures.append(Figure("save (validate, .bak, atomic write, log)", ms, f"{copy.stat().st_size:,} bytes"))
        return figures


def spread(what: str, values: list[float], detail: str = "") -> Figure:
    """One timed step as its median, with the p95 in the detail (also used by the editor's headless UI timing)."""
    if not values:
        return Figure(what, float("nan"), detail)
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    extra = f"median of {len(values)}; p95 {p95:.2f} ms"
    return Figure(what, statistics.median(values), f"{extra}; {detail}" if detail else extra)
