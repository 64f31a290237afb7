"""SORT (BookSORT) as benchlab runs it: its session and plan options, how a session is prepared, its instructions.

The design fields (excerpt and segment length, book, condition, delays, reading limits) are typed plan options
declared once in :class:`~benchlab.annotations.sort.session.SortPlanOptions`; the app shows a trial with the SORT
screen (``trial_kind = "sort"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.annotations.coverage_designs import CoverageDesign
from benchlab.annotations.options import Options
from benchlab.annotations.session.opening import open_session
from benchlab.annotations.session.parts import SessionParts
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionRunner, SessionText
from benchlab.annotations.sort.commands import COMMANDS
from benchlab.annotations.sort.comparison import COMPARISON
from benchlab.annotations.sort.face import FACE
from benchlab.annotations.sort.model_prompts import SORT_PROMPTING
from benchlab.annotations.sort.plan_options import SortPlanOptions
from benchlab.annotations.sort.power import COVERAGE_DESIGNS, POWER_PLANNING
from benchlab.annotations.sort.session_status import LAYOUT
from benchlab.annotations.sort.trial_export import TRIALS
from benchlab.annotations.task import (
    Command,
    ComparisonSource,
    ModelPrompting,
    PowerPlanning,
    SessionLayout,
    SessionOptions,
    TrialRows,
    dataset_of,
)
from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path

if TYPE_CHECKING:
    from benchlab.data.sort.records import BookSortRecord

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


#: The bundled sample of the paper's whole-book design (the default data of ``--design whole-book``).
WHOLE_BOOK_SAMPLE = "booksort-whole-book"


@lru_cache(maxsize=8)
def load_trials(path: str, le: int | None, ls: int | None, book: str | None,
                design: str | None = None) -> tuple[tuple[BookSortRecord, ...], tuple[BookSortRecord, ...]]:
    """The (test, validation) trials of one configuration (and book, and design), loaded once per process."""
    # deferred: pandas loads only when `load_trials` runs (this module loads with the CLI)
    from benchlab.data.sort.loaders import Selection, load_records

    selection = Selection(excerpt_length=le, segment_length=ls, book=book, design=design)
    test = load_records(path, Selection(**{**vars(selection), "split": "test"}))
    try:
        validation = load_records(path, Selection(**{**vars(selection), "split": "validation"}))
    except BenchlabError:
        validation = []
    return tuple(test), tuple(validation)


class SortTask:
    """The SORT :class:`~benchlab.annotations.task.Task` (its declaration; each session's own part is a
    :class:`~benchlab.annotations.sort.session.SortTaskSession`)."""

    name: str = FACE.name
    launcher_rank: int = 20
    title: str = FACE.title
    description: str = FACE.description
    session_options: type[SessionOptions] = FACE.session_options
    plan_options: type[Options] = FACE.plan_options
    trial_kind: str = "sort"
    simulated_policies: tuple[str, ...] = FACE.simulated_policies
    commands: Sequence[Command] = COMMANDS
    comparison: ComparisonSource | None = COMPARISON
    trial_export: TrialRows = TRIALS  # benchlab export trials sort
    session_layout: SessionLayout = LAYOUT  # its Sessions rows
    model_prompting: ModelPrompting = SORT_PROMPTING  # benchlab models run|import

    def default_dataset(self) -> Path:
        return sample_path("booksort")

    def default_out(self, dataset: str) -> Path:
        """``./benchlab-results/sort/<data folder name>``."""
        name = Path(dataset).name or "booksort"
        if name.endswith(".parquet") or name.endswith(".jsonl"):
            name = Path(dataset).parent.name or "booksort"
        return Path.cwd() / "benchlab-results" / "sort" / name

    def session_parts(self, session: SessionOptions, plan: Any) -> SessionParts:
        # deferred: the session module loads the SORT records and results formats, which `benchlab --help` and the
        # registry (it imports this module at start-up) do not need
        from benchlab.annotations.sort.session import SortSessionRequest, sort_session_parts

        assert isinstance(plan, SortPlanOptions)
        dataset = self.design_dataset(dataset_of(session, self), plan)
        # The whole-book design's "excerpt" is the book: its length comes from the data, not --excerpt-length.
        le = None if plan.design == "whole-book" else plan.excerpt_length
        test, validation = load_trials(dataset, le, plan.segment_length, plan.book, plan.design)
        out = str(session.out) if session.out else str(self.default_out(dataset))
        request = SortSessionRequest(dataset=dataset, participant=session.participant, session=session.session,
                                     out=out, seed=session.seed, resume=session.resume, options=plan)
        return sort_session_parts(test, validation, request)

    def prepare(self, session: SessionOptions, plan: Any, text: SessionText) -> SessionRunner:
        return open_session(self, session, plan, text)

    def data_choices(self, dataset: str) -> dict[str, tuple[str, ...]]:
        """The excerpt and segment lengths of ``dataset``, from its file names (``test_e250_s20.parquet``,
        ``segments_250-s20-n110.csv``): the form offers them as choices. Nothing when a file's name does not say
        its configuration (reading the data to find out would take seconds) or the data set cannot be read."""
        # deferred: pandas loads only when `data_choices` runs (this module loads with the CLI)
        from benchlab.data.sort.loaders import discover

        try:
            sources = discover(dataset)
        except (BenchlabError, OSError):
            return {}
        excerpts = {s.excerpt_length for s in sources}
        segments = {s.segment_length for s in sources}
        if None in excerpts or None in segments:
            return {}
        return {"excerpt_length": tuple(str(n) for n in sorted(e for e in excerpts if e is not None)),
                "segment_length": tuple(str(n) for n in sorted(s for s in segments if s is not None))}

    def design_dataset(self, dataset: str, plan: SortPlanOptions) -> str:
        """The data a design runs on: the bundled excerpt sample stands for its whole-book twin (the launcher form
        fills the default data set in before the design is chosen)."""
        if plan.design == "whole-book" and Path(dataset) == self.default_dataset():
            return str(sample_path(WHOLE_BOOK_SAMPLE))
        return dataset

    def power_planning(self) -> PowerPlanning:
        return POWER_PLANNING

    def coverage_designs(self) -> tuple[CoverageDesign, ...]:
        return COVERAGE_DESIGNS

    def planned_values(self, plan: SessionPlan) -> dict[str, Any]:
        c = plan.config
        return {"dataset": Path(plan.dataset), "seed": plan.seed, "trials": len(plan.main_items),
                "practice": len(plan.practice), "block_size": c.get("block_size"), "delay_s": c.get("delay_s"),
                "min_reading_s": c.get("min_reading_s"), "max_reading_s": c.get("max_reading_s"),
                "min_seen_share": c.get("min_seen_share", 0.0)}

    def instructions(self, plan: Any, session: SessionOptions) -> list[str]:
        assert isinstance(plan, SortPlanOptions)
        if plan.practice > 0:
            where = ("You start with a few practice trials (with feedback), then the main part in blocks with "
                     "breaks in between.")
        else:
            where = "The trials come in blocks with breaks in between."
        pages = INSTRUCTIONS_STM if plan.condition == "stm" else INSTRUCTIONS_LTM
        return [page.replace("{plan}", where) for page in pages]


TASK = SortTask()
