"""SORT in the app: preparing its sessions (launcher and ``benchlab run sort``) and showing a trial."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from textual.screen import Screen

from benchlab.annotations.session_plan import PlannedStep
from benchlab.annotations.session_runner import SessionRunner, SessionText
from benchlab.annotations.sort.session import (
    SortPlanOptions,
    SortSessionRequest,
    SortTask,
    prepare_sort_session,
)
from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.sort.loaders import Selection, load_records
from benchlab.data.sort.records import BookSortRecord
from benchlab.tui.session_text import read_text_file, split_pages
from benchlab.tui.sort.trial_screen import SortTrialScreen, SortTrialSettings
from benchlab.tui.task_registry import SessionRequest, TrialContext, register_task
from benchlab.tui.worldsense import task_ui as _worldsense_ui  # noqa: F401  (registered first: the launcher's first task)

INSTRUCTIONS_STM = [
    """# Welcome

In this study you read passages from a book. After each passage you see two short **segments** taken from it,
labelled **Segment A** and **Segment B**, and you say which of the two appeared **first** in the passage.

You cannot go back to the passage once you have continued, so read it at your normal pace.""",
    """# How to answer

* While reading: scroll with **↑ ↓**, **Page Up / Page Down** or the mouse wheel. Press **Enter** when you have
  finished reading.
* Then answer with the **A** or **B** key (or **←** for A and **→** for B), or click a segment's button.
* An answer is final. If you are not sure, give your best guess.

{plan}""",
]

INSTRUCTIONS_LTM = [
    """# Welcome

This study is about a book you have read. On each trial you see two short **segments** from the book, labelled
**Segment A** and **Segment B**, and you say which of the two appears **first** in the book.

* Answer with the **A** or **B** key (or **←** for A and **→** for B), or click a segment's button.
* An answer is final. If you are not sure, give your best guess.

{plan}""",
]


@lru_cache(maxsize=8)
def _load(path: str, le: int | None, ls: int | None, book: str | None) -> tuple[tuple[BookSortRecord, ...], ...]:
    selection = Selection(excerpt_length=le, segment_length=ls, book=book)
    test = load_records(path, Selection(**{**vars(selection), "split": "test"}))
    try:
        validation = load_records(path, Selection(**{**vars(selection), "split": "validation"}))
    except BenchlabError:
        validation = []
    return tuple(test), tuple(validation)


def _number(extra: dict[str, str], name: str, default: float | None, flag: str) -> float | None:
    raw = extra.get(name, "")
    if raw in ("", None):
        return default
    try:
        return float(raw)
    except ValueError:
        raise BenchlabError(f"{flag} must be a number, not {raw!r}") from None


class SortUI:
    """The SORT task plug-in of the launcher and of ``benchlab run sort``."""

    name = "sort"
    title = "SORT (BookSORT)"
    description = "Read a book passage, then say which of two segments came first (STM), or from memory (LTM)."
    items_per_cell_label = "Scored trials (spread evenly over the 4 distance bins)"
    #: Launcher fields beyond the common ones: (name, label, default), passed on in ``SessionRequest.extra``.
    extra_fields = [
        ("excerpt_length", "Excerpt length in words (250, 1000, ...)", "250"),
        ("segment_length", "Segment length in words (20 or 50)", "20"),
        ("condition", "Condition: stm (read the excerpt) or ltm (title and segments only)", "stm"),
        ("book", "Book (Gutenberg id or part of the title; empty: all)", ""),
        ("delay", "Delay between reading and question, seconds", "0"),
        ("min_reading", "Minimum reading time, seconds", "0"),
        ("max_reading", "Maximum reading time, seconds (empty: none)", ""),
    ]
    #: Defaults of common launcher fields where SORT's differ.
    field_defaults = {"items_per_cell": "20", "practice": "2", "block_size": "10"}
    #: Common launcher fields that mean nothing for SORT.
    hidden_fields = ("min_gap", "participants")

    def default_dataset(self) -> Path:
        return sample_path("booksort")

    def default_out(self, dataset: str) -> Path:
        """``./benchlab-results/sort/<data folder name>``."""
        name = Path(dataset).name or "booksort"
        if name.endswith(".parquet") or name.endswith(".jsonl"):
            name = Path(dataset).parent.name or "booksort"
        return Path.cwd() / "benchlab-results" / "sort" / name

    def session_text(self, request: SessionRequest, condition: str) -> SessionText:
        consent = read_text_file(request.consent_file, "consent") if request.consent_file else None
        if request.no_instructions:
            pages: list[str] = []
        elif request.instructions_file:
            pages = split_pages(read_text_file(request.instructions_file, "instructions"))
        else:
            if request.practice > 0:
                plan = ("You start with a few practice trials (with feedback), then the main part in blocks with "
                        "breaks in between.")
            else:
                plan = "The trials come in blocks with breaks in between."
            pages = [page.replace("{plan}", plan)
                     for page in (INSTRUCTIONS_STM if condition == "stm" else INSTRUCTIONS_LTM)]
        return SessionText(consent=consent, instructions=pages)

    def options_from(self, request: SessionRequest) -> tuple[SortPlanOptions, int | None, int | None, str | None]:
        extra = request.extra
        condition = (extra.get("condition") or "stm").strip().lower()
        le = _number(extra, "excerpt_length", None, "excerpt length")
        ls = _number(extra, "segment_length", None, "segment length")
        options = SortPlanOptions(
            trials=request.items_per_cell, practice=request.practice, block_size=request.block_size,
            condition=condition,  # type: ignore[arg-type]
            delay_s=_number(extra, "delay", 0.0, "--delay") or 0.0,
            min_reading_s=_number(extra, "min_reading", 0.0, "--min-reading") or 0.0,
            max_reading_s=_number(extra, "max_reading", None, "--max-reading"),
        )
        options.check()
        book = (extra.get("book") or "").strip() or None
        return options, int(le) if le is not None else None, int(ls) if ls is not None else None, book

    def prepare(self, request: SessionRequest) -> SessionRunner:
        options, le, ls, book = self.options_from(request)
        test, validation = _load(str(request.dataset), le, ls, book)
        out = request.out or str(self.default_out(request.dataset))
        sort_request = SortSessionRequest(
            dataset=request.dataset, participant=request.participant, session=request.session, out=out,
            seed=request.seed, resume=request.resume, options=options,
        )
        return prepare_sort_session(test, validation, sort_request, text=self.session_text(request,
                                    options.condition), simulated=request.simulated)

    def trial_screen(self, runner: SessionRunner, step: PlannedStep, context: TrialContext) -> Screen[None]:
        task = runner.task
        assert isinstance(task, SortTask)
        config = runner.plan.config
        settings = SortTrialSettings(
            condition=str(config.get("condition", "stm")), delay_s=float(config.get("delay_s") or 0.0),
            min_reading_s=float(config.get("min_reading_s") or 0.0),
            max_reading_s=float(config["max_reading_s"]) if config.get("max_reading_s") is not None else None,
        )
        return SortTrialScreen(task.trial(step.item_id), context, settings)


register_task(SortUI())
