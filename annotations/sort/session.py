"""SORT (BookSORT) as a session task: the plan, the per-trial record, and where a participant's files go.

Plan rules, and why:

* scored trials come from the test split, practice from the validation split (as the models' prompt sweeps do), so
  a practice excerpt is never scored;
* trials are balanced over the distance bins (the design factor; the whole-book design's gap bins) and, inside
  each bin, over which segment is shown as A, so an always-A responder scores 50 % (exactly when every bin's count
  is even; with an odd count a bin is off by one trial, and those extra trials alternate between A and B);
* in the STM condition every excerpt is read at most once per participant: reading it a second time for another
  bin would turn the second trial into a re-reading. In LTM (no excerpt shown) excerpts may repeat if needed.
* excerpts already answered by the participant in an earlier session (same configuration) are not drawn again;
  except with a shared item list (``shared_items``): every participant gets the same trials (drawn from the data
  and options alone), each in their own order, so item effects and agreement between people are estimable;
* blocks are stratified (:mod:`benchlab.annotations.sort.blocks`): every block holds every bin and both A/B orders
  as evenly as its size allows, whatever the design (excerpt distance bins or whole-book gap bins).

Responses go to ``<out>/results/{L_E}-s{L_S}-human_<participant>_results.csv`` in the SORT evaluation's results
layout (see :mod:`benchlab.data.sort.results`; the human row and its log:
:mod:`benchlab.annotations.sort.human_record`), one fsynced row per trial, so ``benchlab score sort`` and the
original ``calc_accuracy`` read human and model files the same way.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlab.annotations.options import OptionError
from benchlab.annotations.session.opening import open_parts
from benchlab.annotations.session.parts import SessionParts
from benchlab.annotations.session.plan import PlannedStep, SessionPlan
from benchlab.annotations.session.runner import (
    Feedback,
    ResponseTiming,
    SessionFiles,
    SessionRunner,
    SessionText,
)
from benchlab.annotations.sort.blocks import stratified_blocks
from benchlab.annotations.sort.human_record import HumanSortRow, SortResultsLog
from benchlab.annotations.sort.model_prompts import sort_hashes
from benchlab.annotations.sort.plan_options import Condition, SortPlanOptions
from benchlab.data.errors import BenchlabError
from benchlab.data.sort.records import BookSortRecord
from benchlab.data.sort.results_format import human_model_name, results_filename

OPTIONS = ("A", "B")


@dataclass(frozen=True)
class SortTiming(ResponseTiming):
    """The answer's timing plus the STM reading phase, all on the same monotonic clock (seconds).

    ``excerpt_onset_mono``: the excerpt's first frame went to the terminal (after refresh where no frame is
    written); ``continue_mono``: the continue key's own
    event time; ``response_mono``/``onset_mono`` (inherited) are the answer key and the question's onset.
    """

    excerpt_onset_mono: float | None = None
    continue_mono: float | None = None
    reading_timed_out: bool = False
    #: The furthest part of the excerpt that was on screen while reading, as a share of its lines (0-1).
    seen_share: float | None = None

    @property
    def reading_ms(self) -> float | None:
        if self.excerpt_onset_mono is None or self.continue_mono is None:
            return None
        return round((self.continue_mono - self.excerpt_onset_mono) * 1000.0, 3)

    @property
    def delay_ms(self) -> float | None:
        """Continue key to question onset: the delay screen plus the time to show the question."""
        if self.continue_mono is None or self.onset_mono is None:
            return None
        return round((self.onset_mono - self.continue_mono) * 1000.0, 3)


def _balanced_pick(pool: Sequence[BookSortRecord], n: int, rng: random.Random, *, unique_excerpts: bool,
                   used: set[tuple[int, int]], what: str) -> list[BookSortRecord]:
    """``n`` trials spread evenly over distance bins, and over A/B inside each bin, drawing each excerpt once."""
    bins = sorted({r.distance_bin for r in pool})
    if not bins:
        raise BenchlabError(f"no {what} trials in the selection")
    per_bin = [n // len(bins) + (1 if i < n % len(bins) else 0) for i in range(len(bins))]
    rng.shuffle(per_bin)  # which bins get the remainder is random, not always the short distances
    by_cell: dict[tuple[int, int], list[BookSortRecord]] = {}
    for r in pool:
        by_cell.setdefault((r.distance_bin, r.present_seg1_first), []).append(r)
    for members in by_cell.values():
        rng.shuffle(members)
    picked: list[BookSortRecord] = []
    # Round-robin over (bin, A-first) cells so that each bin gets its quota and A/B alternate inside a bin. A bin
    # with an odd quota gives its extra trial to the side listed first; that side alternates over such bins, so the
    # session as a whole is balanced over A/B too (within one trial).
    wants = {b: q for b, q in zip(bins, per_bin, strict=True)}
    bin_order = list(bins)
    rng.shuffle(bin_order)
    side = rng.randrange(2)
    firsts: list[tuple[int, int]] = []
    for b in bin_order:
        firsts.append((b, side))
        if wants[b] % 2:
            side = 1 - side
    order = firsts + [(b, 1 - s) for b, s in firsts]
    progress = True
    while any(wants.values()) and progress:
        progress = False
        for b, side in order:
            if wants[b] == 0:
                continue
            cell = by_cell.get((b, side), [])
            while cell:
                r = cell.pop()
                key = (r.book_idx, r.excerpt_idx)
                if unique_excerpts and key in used:
                    continue
                picked.append(r)
                used.add(key)
                wants[b] -= 1
                progress = True
                break
    if any(wants.values()):
        short = sum(wants.values())
        hint = " (each excerpt is read once per participant in STM)" if unique_excerpts else ""
        raise BenchlabError(f"not enough {what} trials: {short} of {n} could not be drawn balanced over the "
                            f"distance bins{hint}; ask for fewer, or choose more books")
    return picked


def one_configuration(listing: str) -> OptionError:
    """A SORT session shows one excerpt and segment length; the data selected holds several (or none)."""
    return OptionError("excerpt_length", f"uses one configuration; the selection has {listing} (pass "
                       "{excerpt_length} and {segment_length})", label="a SORT session", lead=False)


def build_sort_plan(
    test: Sequence[BookSortRecord], validation: Sequence[BookSortRecord], *, dataset: str, participant: str,
    session: str, seed: int, options: SortPlanOptions | None = None, exclude_excerpts: Iterable[tuple[int, int]] = (),
) -> SessionPlan:
    """Sample, order and block one participant's SORT session (see the module docstring for the rules)."""
    opts = options or SortPlanOptions()
    configs = {r.config for r in [*test, *validation]}
    if len(configs) != 1:
        listing = ", ".join(f"e{le}/s{ls}" for le, ls in sorted(configs)) or "none"
        raise one_configuration(listing)
    rng = random.Random(f"benchlab/sort/{seed}/{participant}/{session}")
    unique = opts.condition == "stm"
    # A shared item list is drawn from the data and options alone (not the plan seed or the participant), so every
    # participant gets the same trials; the order (blocks, practice) stays each participant's own.
    draw = random.Random(f"benchlab/sort/shared/{opts.condition}/{opts.trials}/{opts.practice}/{opts.book}") \
        if opts.shared_items else rng
    used: set[tuple[int, int]] = set() if opts.shared_items else set(exclude_excerpts)
    main = _balanced_pick(test, opts.trials, draw, unique_excerpts=unique, used=used, what="test-split")
    ordered = stratified_blocks(main, opts.block_size, rng)
    practice = (_balanced_pick(validation, opts.practice, draw, unique_excerpts=unique, used=set(), what="practice "
                               "(validation-split)") if opts.practice else [])
    rng.shuffle(practice)
    blocks = [[r.trial_id for r in block] for block in ordered]
    (le, ls), = configs
    return SessionPlan(
        task="sort", dataset=dataset, participant=participant, session=session, seed=seed,
        config={"excerpt_length": le, "segment_length": ls, **opts.config()},
        practice=[r.trial_id for r in practice], blocks=blocks,
    )


def sort_files(out: str | Path, participant: str, session: str, excerpt_length: int, segment_length: int,
               condition: str) -> SessionFiles:
    """Where a participant's SORT session writes (results under ``results/``, where ``score sort`` looks)."""
    base = Path(out)
    name = f"human_{participant}"
    results = results_filename(excerpt_length, segment_length, name)
    return SessionFiles(
        results=base / "results" / results,
        practice=base / "practice" / results.replace("_results.csv", "_practice.csv"),
        plan=base / "sessions" / f"{name}_e{excerpt_length}_s{segment_length}_{condition}_session-{session}.plan.json",
        lock=base / "sessions" / f".{name}.lock",
    )


class SortTaskSession:
    """The SORT part of one session (a :class:`~benchlab.annotations.session.runner.TaskSession`, the runner's
    ``task_session``): options A/B, the results row, practice feedback (gold never displayed)."""

    name = "sort"
    #: The session runner writes this task's responses with this log type (CSV in the SORT results layout).
    response_log = SortResultsLog

    def __init__(self, trials: Iterable[BookSortRecord], condition: Condition = "stm") -> None:
        self._by_id = {r.trial_id: r for r in trials}
        self.condition: Condition = condition

    def trial(self, item_id: str) -> BookSortRecord:
        try:
            return self._by_id[item_id]
        except KeyError:
            raise BenchlabError(f"the session plan names trial {item_id}, which is not in this data set") from None

    def check_plan(self, plan: SessionPlan) -> None:
        """Every planned trial is in the data; a saved plan keeps its own condition (a resumed session)."""
        for item in [*plan.practice, *plan.main_items]:
            self.trial(item)
        self.condition = plan.config.get("condition", self.condition)

    def options(self, item_id: str) -> tuple[str, ...]:
        return OPTIONS

    def gold(self, item_id: str) -> str | None:
        return self.trial(item_id).ground_truth

    def feedback(self, item_id: str, response: str) -> Feedback | None:
        truth = self.trial(item_id).ground_truth
        if response == truth:
            return Feedback(True, f"Correct: Segment {truth} came first.")
        return Feedback(False, f"Not quite: Segment {truth} came first.")

    def make_record(
        self, plan: SessionPlan, step: PlannedStep, response: str, timing: ResponseTiming, *, skipped: bool,
        simulated: str | None,
    ) -> dict[str, Any]:
        record = self.trial(step.item_id)
        answer = response if response in OPTIONS and not skipped else "X"
        extra: dict[str, Any] = {}
        if isinstance(timing, SortTiming):
            extra = {"reading_ms": timing.reading_ms, "delay_ms": timing.delay_ms,
                     "reading_timed_out": timing.reading_timed_out,
                     "excerpt_onset_mono": timing.excerpt_onset_mono, "continue_mono": timing.continue_mono,
                     "seen_share": timing.seen_share}
        row = HumanSortRow.from_trial(
            record, answer,  # type: ignore[arg-type]
            model_name=human_model_name(plan.participant), participant=plan.participant, session=plan.session,
            condition=str(plan.config.get("condition", self.condition)), trial_index=step.index, block=step.block,
            # A skip is no response: no RT (the time until the experimenter skipped is not a response time).
            practice=step.practice, seed=plan.seed, rt_ms=None if skipped else timing.rt_ms,
            question_onset_mono=timing.onset_mono,
            response_mono=timing.response_mono, handler_mono=timing.handler_mono, wall_clock=timing.wall_clock,
            input=timing.input, onset_source=timing.onset_source,
            ignored_keys=timing.ignored_keys, simulated=simulated, interrupted=timing.interrupted,
            first_onset_mono=timing.first_onset_mono, **extra, **timing.client_fields,
            **sort_hashes(record, str(plan.config.get("condition", self.condition))),
        )
        return row.model_dump(mode="python")

    def item_id_of(self, record: dict[str, Any]) -> str:
        return str(record["trial_id"])

    def answer_of(self, record: dict[str, Any]) -> str:
        return str(record["answer"])


@dataclass
class SortSessionRequest:
    """Everything ``prepare_sort_session`` needs beyond the trials (mirrors the CLI options)."""

    dataset: str
    participant: str
    session: str = "1"
    out: str = ""
    seed: int | None = None
    resume: bool = False
    options: SortPlanOptions = field(default_factory=SortPlanOptions)


def sort_session_parts(test: Sequence[BookSortRecord], validation: Sequence[BookSortRecord],
                       request: SortSessionRequest) -> SessionParts:
    """A SORT session over one configuration's trials: its files, its part, and how its plan is built."""
    configs = {r.config for r in test}
    if len(configs) != 1:
        listing = ", ".join(f"e{le}/s{ls}" for le, ls in sorted(configs)) or "none"
        raise one_configuration(listing)
    (le, ls), = configs
    opts = request.options
    files = sort_files(request.out, request.participant, request.session, le, ls, opts.condition)
    task = SortTaskSession([*test, *validation], opts.condition)

    def build(plan_seed: int) -> SessionPlan:
        earlier = SortResultsLog(files.results).peek()
        seen = {(int(r["book_idx"]), int(r["excerpt_idx"])) for r in earlier}
        # The participant's files hold one answer per trial (whatever the condition or session: STM then LTM, a
        # second session), so a new session draws only trials (and practice trials) not recorded there yet.
        answered = {str(r["trial_id"]) for r in earlier}
        practised = {str(r["trial_id"]) for r in SortResultsLog(files.practice).peek()}
        fresh_test = [r for r in test if r.trial_id not in answered]
        fresh_validation = [r for r in validation if r.trial_id not in practised]

        def plan_with(options: SortPlanOptions) -> SessionPlan:
            return build_sort_plan(fresh_test, fresh_validation, dataset=request.dataset,
                                   participant=request.participant, session=request.session, seed=plan_seed,
                                   options=options, exclude_excerpts=seen)

        try:
            return plan_with(opts)
        except BenchlabError:
            if not practised or not opts.practice:
                raise
            plan_with(opts.model_copy(update={"practice": 0}))  # still fails: not a practice problem
            raise OptionError("practice", f"{opts.practice} is more than the practice trials participant "
                              f"{request.participant} has not done yet ({len(practised)} done in earlier sessions); "
                              "lower {practice} (0: no practice this time)", path=files.practice) from None

    return SessionParts(task="sort", participant=request.participant, session=request.session, files=files,
                        task_session=task, build=build, design=f" ({opts.condition}, e{le}/s{ls})")


def prepare_sort_session(
    test: Sequence[BookSortRecord], validation: Sequence[BookSortRecord], request: SortSessionRequest, *,
    text: SessionText | None = None, simulated: str | None = None,
) -> SessionRunner:
    """A SORT session over trials already loaded (the notebook API): new, or with ``request.resume`` continued when
    its plan is saved; opened like every session (:func:`~benchlab.annotations.session.opening.open_parts`)."""
    return open_parts(sort_session_parts(test, validation, request), seed=request.seed, resume=request.resume,
                      text=text, simulated=simulated)
