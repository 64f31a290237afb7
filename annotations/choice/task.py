"""The choice-task kit: a whole benchmark from one items file, as a :class:`~benchlab.annotations.task.Task`.

A plug-in package that has items with a text, a few answer options and a gold answer (see
:mod:`benchlab.data.choice.items`) writes::

    TASK = make_choice_task(name="numbers", title="Which is larger", description="...", items=ITEMS_PATH)

and declares ``TASK`` in the ``benchlab.tasks`` entry-point group. It then gets what the built-in tasks have:
``benchlab run NAME`` (with ``--simulate random|oracle``), ``benchlab score NAME``, ``benchlab compare NAME``, a
launcher line with its plan options and the Results screen, all generated from this declaration. The session runs
on the shared engine (:class:`~benchlab.annotations.session.runner.SessionRunner`): every response is fsynced
before the next trial, a killed session resumes, and the records carry the same timing fields as the built-in tasks'.

Plan: ``items_per_stratum`` items sampled in every stratum, ``practice`` items from outside that sample (one from
each stratum in turn), the scored items shuffled and cut into blocks of ``block_size``; so an items file fits the
plan when every stratum has at least ``items_per_stratum`` items and the strata together have ``practice`` more
(two strata of 8 items fit 7 per stratum and 2 practice, not 8 and 2: the error says so and names the fix); all
drawn from the seed with string-seeded ``random.Random`` generators and saved with the plan. Items a participant
answered in an earlier session are not sampled again, so a second session adds new items to the same results file.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from benchlab.annotations.choice.layout import CHOICE_LAYOUT, choice_files, load_items
from benchlab.annotations.choice.model_prompts import ChoicePrompting, choice_hashes
from benchlab.annotations.choice.power import choice_power_planning
from benchlab.annotations.choice.trial_export import choice_trial_export
from benchlab.annotations.command_options import SameItemsOptions
from benchlab.annotations.command_output import warn
from benchlab.annotations.options import OptionError, Options, option, options_model
from benchlab.annotations.response_log import ResponseLog
from benchlab.annotations.session.opening import open_parts, open_session
from benchlab.annotations.session.parts import SessionParts
from benchlab.annotations.session.plan import PlannedStep, SessionPlan
from benchlab.annotations.session.runner import (
    Feedback,
    ResponseTiming,
    SessionRunner,
    SessionText,
    TaskSession,
)
from benchlab.annotations.task import (
    ChoicePrompt,
    Command,
    ComparisonSource,
    ExportsTrials,
    PowerPlanning,
    SessionLayout,
    SessionOptions,
    ShowsSessions,
    Task,
    TrialRows,
)
from benchlab.data.analysis.defaults import DEFAULT_BOOT, DEFAULT_SEED
from benchlab.data.choice.items import ChoiceItem, ChoiceItems
from benchlab.data.choice.results import ChoiceRecord, score_choice
from benchlab.data.errors import BenchlabError
from benchlab.data.tables import render

#: The simulated participants a choice task offers (their expected accuracy: 1/n options, and 100 %).
CHOICE_POLICIES = ("random", "oracle")
Format = Literal["table", "csv", "json", "markdown", "latex"]
Section = Literal["accuracy", "counts", "tests", "spread", "flags", "rt", "agreement", "methods"]

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-]{0,63}$")


class ChoicePlanOptions(Options):
    """The design knobs of a choice-task session (``benchlab run NAME`` options and the launcher form)."""

    items_per_stratum: int = option(10, label="Items per stratum", ge=1,
                                    help="Scored items sampled in every stratum of the items file.")
    practice: int = option(2, label="Practice trials", ge=0, help="Practice trials (outside the scored set).")
    block_size: int = option(20, label="Block size", ge=1, help="Trials per block; a break between blocks.")


def plan_options_model(items_per_stratum: int, practice: int, block_size: int) -> type[ChoicePlanOptions]:
    """:class:`ChoicePlanOptions` with a task's own defaults (labels, help, bounds and flags unchanged)."""
    defaults = {"items_per_stratum": items_per_stratum, "practice": practice, "block_size": block_size}
    return options_model("ChoicePlanOptions", ChoicePlanOptions, defaults=defaults)


# -- the plan ---------------------------------------------------------------------------------------------------


def build_choice_plan(
    items: ChoiceItems, *, task: str, dataset: str, participant: str, session: str, seed: int,
    options: ChoicePlanOptions | None = None, exclude: set[str] | frozenset[str] = frozenset(),
) -> SessionPlan:
    """Sample ``items_per_stratum`` per stratum, pick practice from the rest, shuffle and block; reproducible from
    ``seed``. ``exclude``: items this participant already answered (scored or practice) in earlier sessions.

    A request the items cannot meet raises :class:`OptionError` naming the option to lower.
    """
    opts = options or ChoicePlanOptions()
    sample_rng = random.Random(f"benchlab/{task}/sample/{seed}")
    scored: list[str] = []
    left: dict[str, list[str]] = {}
    for stratum in items.strata:
        pool = sorted(i.id for i in items.items if i.stratum == stratum and i.id not in exclude)
        sample_rng.shuffle(pool)
        if len(pool) < opts.items_per_stratum:
            used = f" ({len(exclude)} items already answered in earlier sessions)" if exclude else ""
            raise OptionError("items_per_stratum", f"must be at most {len(pool)}: stratum {stratum!r} of "
                              f"{items.path} has {len(pool)} unused items{used}",
                              label="items per stratum")
        scored.extend(pool[:opts.items_per_stratum])
        left[stratum] = pool[opts.items_per_stratum:]
    practice: list[str] = []
    practice_rng = random.Random(f"benchlab/{task}/practice/{seed}")
    cycle = [s for s in items.strata if left[s]]
    practice_rng.shuffle(cycle)
    while len(practice) < opts.practice and any(left[s] for s in cycle):
        for stratum in cycle:  # one from each stratum in turn, so practice shows every kind of item
            if len(practice) < opts.practice and left[stratum]:
                practice.append(left[stratum].pop())
    if len(practice) < opts.practice:
        raise OptionError("practice", _practice_problem(len(practice), len(scored), len(items.strata), opts),
                          label="practice trials")
    order = list(scored)
    random.Random(f"benchlab/{task}/order/{seed}/{participant}/{session}").shuffle(order)
    blocks = [order[i:i + opts.block_size] for i in range(0, len(order), opts.block_size)]
    return SessionPlan(
        task=task, dataset=dataset, participant=participant, session=session, seed=seed,
        config={"items_per_stratum": opts.items_per_stratum, "practice": opts.practice,
                "block_size": opts.block_size, "strata": len(items.strata), "excluded_items": len(exclude)},
        practice=practice, blocks=blocks,
    )


def _practice_problem(spare: int, scored: int, strata: int, opts: ChoicePlanOptions) -> str:
    """Why the practice trials do not fit, and the items per stratum that would leave room for them (practice items
    are never scored items, so they come out of what the scored sample leaves)."""
    problem = (f"must be at most {spare}: {scored} items ({opts.items_per_stratum} in each of {strata} strata) are "
               f"scored and only {spare} are left for practice")
    fewer = opts.items_per_stratum - -(-(opts.practice - spare) // strata)  # ceil: each step frees one per stratum
    if fewer >= 1:
        problem += f"; {{items_per_stratum}} {fewer} leaves room for {opts.practice}"
    return problem


# -- the session ------------------------------------------------------------------------------------------------


def check_id(value: str, what: str) -> str:
    """Participant and session ids become file names."""
    if not _ID_RE.fullmatch(value):
        raise OptionError(what, f"{value!r} must be 1-64 letters, digits, '.' or '-' (starting with a letter or "
                          "digit); it becomes part of file names", label=f"{what} id")
    return value


class ChoiceTaskSession:
    """The task part of a session (:class:`~benchlab.annotations.session.runner.TaskSession`): options, gold,
    practice feedback, the prompt of the trial screen and the results record."""

    response_log = ResponseLog

    def __init__(self, name: str, items: ChoiceItems, model_template: str | None = None) -> None:
        self.name = name
        self.items = items
        #: The task's model prompt template: each record carries the SHA-256 of the item's model prompt.
        self.model_template = model_template

    def _item(self, item_id: str) -> ChoiceItem:
        try:
            return self.items.by_id[item_id]
        except KeyError:
            raise BenchlabError(f"the session plan names item {item_id!r}, which is not in this items file",
                                self.items.path) from None

    def check_plan(self, plan: SessionPlan) -> None:
        for item_id in [*plan.practice, *plan.main_items]:
            self._item(item_id)

    def prompt(self, item_id: str) -> ChoicePrompt:
        """What the trial screen shows (never the gold answer)."""
        return self._item(item_id).prompt

    def options(self, item_id: str) -> tuple[str, ...]:
        return self._item(item_id).options

    def gold(self, item_id: str) -> str | None:
        return self._item(item_id).gold

    def feedback(self, item_id: str, response: str) -> Feedback | None:
        gold = self._item(item_id).gold
        return Feedback(True, "Correct.") if response == gold else Feedback(False, f"Not quite: the answer was {gold}.")

    def make_record(
        self, plan: SessionPlan, step: PlannedStep, response: str, timing: ResponseTiming, *, skipped: bool,
        simulated: str | None,
    ) -> dict[str, Any]:
        record = ChoiceRecord(
            item=step.item_id, response=response, participant=plan.participant, session=plan.session, task=self.name,
            rt_ms=timing.rt_ms, onset_mono=timing.onset_mono, response_mono=timing.response_mono,
            requested_mono=timing.requested_mono, handler_mono=timing.handler_mono,
            onset_source=timing.onset_source, timestamp=timing.wall_clock, trial_index=step.index, block=step.block,
            practice=step.practice, skipped=skipped, input=timing.input, ignored_keys=timing.ignored_keys,
            simulated=simulated, plan_seed=plan.seed, interrupted=timing.interrupted,
            first_onset_mono=timing.first_onset_mono,
            **choice_hashes(self._item(step.item_id), self.model_template),
            # a web page's own timing and conduct marks (extra fields: absent from terminal records)
            **{k: v for k, v in timing.client_fields.items() if v is not None},
        )
        return record.model_dump(mode="json", exclude={"model"})

    def item_id_of(self, record: dict[str, Any]) -> str:
        return str(record["item"])

    def answer_of(self, record: dict[str, Any]) -> str:
        return str(record["response"])


def choice_session_parts(
    name: str, items: ChoiceItems, *, dataset: str, participant: str, session: str = "1", out: str | Path,
    options: ChoicePlanOptions | None = None, model_template: str | None = None,
) -> SessionParts:
    """A session of choice task ``name`` over ``items``: its files, its part, and how its plan is built
    (``model_template``: the task's model prompt, whose hash each record carries)."""
    files = choice_files(out, participant, session)
    task = ChoiceTaskSession(name, items, model_template)

    def build(plan_seed: int) -> SessionPlan:
        earlier = (ResponseLog(files.results, task.item_id_of).answered()
                   | ResponseLog(files.practice, task.item_id_of).answered())
        return build_choice_plan(items, task=name, dataset=dataset, participant=participant, session=session,
                                 seed=plan_seed, options=options, exclude=frozenset(earlier))

    return SessionParts(task=name, participant=participant, session=session, files=files, task_session=task,
                        build=build)


def prepare_choice_session(
    name: str, items: ChoiceItems, *, dataset: str, participant: str, session: str = "1", out: str | Path,
    seed: int | None = None, options: ChoicePlanOptions | None = None, resume: bool = False,
    text: SessionText | None = None, simulated: str | None = None,
) -> SessionRunner:
    """Build (or with ``resume`` reload) the plan and return an opened runner holding the participant's lock
    (opened like every session: :func:`~benchlab.annotations.session.opening.open_parts`)."""
    check_id(participant, "participant")
    check_id(session, "session")
    parts = choice_session_parts(name, items, dataset=dataset, participant=participant, session=session, out=out,
                                 options=options)
    return open_parts(parts, seed=seed, resume=resume, text=text, simulated=simulated)


# -- the commands -----------------------------------------------------------------------------------------------


class ChoiceScoreOptions(SameItemsOptions):
    """``benchlab score NAME`` (``--all-items`` as on ``compare``)."""

    results: tuple[Path, ...] = option((), label="Results", argument=True, widget="path",
                                       help="Results files or folders (people and models alike). Default: where "
                                       "`benchlab run` writes, plus the task's bundled model results.")
    items: Path | None = option(None, label="Items file", widget="path",
                                help="Items file with the gold answers. Default: the task's own.")
    no_models: bool = option(False, label="Leave out the bundled model results",
                             help="Do not add the model results that come with the task.")
    fmt: Format = option("table", label="Format", flag="--format", help="Output format of the tables.")


class ChoiceCompareOptions(ChoiceScoreOptions):
    """``benchlab compare NAME``: the score options plus the attention criterion, bootstrap and table choice (the
    field names and flags of the other benchmarks' ``compare``), and ``--all-items``."""

    min_control_acc: float | None = option(None, label="Minimum accuracy", ge=0, le=1,
                                           help="Flag participants below this accuracy.")
    fast_ms: float | None = option(None, label="Too fast (ms)", ge=0,
                                   help="Responses faster than this (ms) count as too fast.")
    max_fast_share: float = option(0.1, label="Share of too-fast responses", ge=0, le=1,
                                   help="Share of too-fast responses a participant may have before being flagged.")
    exclude_flagged: bool = option(False, label="Exclude flagged participants",
                                   help="Leave flagged participants out of the pooled humans (they keep their row).")
    include_simulated: bool = option(False, label="Pool simulated participants",
                                     help="Pool simulated participants (--simulate pilots) with people.")
    n_boot: int = option(DEFAULT_BOOT, label="Bootstrap resamples", flag="--boot", ge=200, le=200_000,
                         help="Bootstrap resamples for CIs and random sign flips.")
    seed: int = option(DEFAULT_SEED, label="Seed", help="Seed of the bootstrap (tables are reproducible).")
    sections: tuple[Section, ...] = option((), label="Tables", flag="--only",
                                           help="Print only these tables (repeatable); default: all.")


# -- the task ---------------------------------------------------------------------------------------------------


def _default_instructions(title: str, description: str) -> list[str]:
    return [
        f"# {title}\n\n{description}",
        "# How to answer\n\nEach question shows its possible answers as buttons, numbered **1**, **2** ...\n\n"
        "* Press the **number key** of your answer, or click its button.\n"
        "* An answer is final: you cannot go back or change it.\n"
        "* Answer at a steady pace.",
    ]


class ChoiceTask:
    """A complete :class:`~benchlab.annotations.task.Task` for items with a text, options and a gold answer."""

    session_options: type[SessionOptions] = SessionOptions
    trial_kind: str = "choice"
    simulated_policies: tuple[str, ...] = CHOICE_POLICIES
    #: The Sessions rows (:class:`~benchlab.annotations.task.ShowsSessions`).
    session_layout: SessionLayout = CHOICE_LAYOUT

    def __init__(
        self, *, name: str, title: str, description: str, items: Path, model_results: Path | None = None,
        instructions: Sequence[str] | None = None, items_per_stratum: int = 10, practice: int = 2,
        block_size: int = 20, trial_kind: str = "choice", model_template: str | None = None,
    ) -> None:
        self.name = name
        #: ``benchlab models run NAME`` (:class:`~benchlab.annotations.task.PromptsModels`)
        self.model_prompting = ChoicePrompting(load_items, Path(items), model_template)
        self.trial_kind = trial_kind
        self.title = title
        self.description = description
        self.items_path = Path(items)
        self.model_results = Path(model_results) if model_results is not None else None
        self.pages = list(instructions) if instructions is not None else _default_instructions(title, description)
        self.plan_options: type[Options] = plan_options_model(items_per_stratum, practice, block_size)
        self.commands: Sequence[Command] = (
            Command(group="score", help=f"{title}: accuracy of people and models per stratum (Wilson 95% CI).",
                    options=ChoiceScoreOptions, run=self._score),
            Command(group="compare", help=f"{title}: each participant, the pooled humans and each model per "
                    "stratum, with 95% CIs and tests.", options=ChoiceCompareOptions, run=self._compare),
        )
        self.comparison: ComparisonSource | None = ComparisonSource(
            testset_label="Items file", build=self._build_comparison, watched=self._watched)
        #: ``benchlab export trials NAME`` (:class:`~benchlab.annotations.task.ExportsTrials`).
        self.trial_export: TrialRows = choice_trial_export(self.items_path, load_items)

    def __repr__(self) -> str:
        return f"ChoiceTask(name={self.name!r}, items={str(self.items_path)!r})"

    # -- Task ----------------------------------------------------------------------------------------------------

    def default_dataset(self) -> Path:
        return self.items_path

    def default_out(self, dataset: str) -> Path:
        """``./benchlab-results/NAME/<items file stem>`` (``sample`` for the task's own items)."""
        path = Path(dataset)
        same = path.resolve() == self.items_path.resolve()
        return Path.cwd() / "benchlab-results" / self.name / ("sample" if same else (path.stem or self.name))

    def session_parts(self, session: SessionOptions, plan: Any) -> SessionParts:
        """This task's part of a session (:class:`~benchlab.annotations.task.OpensSessions`): the items of the
        session's data set, its files and how its plan is built; ``open_session`` does the rest."""
        options = plan if isinstance(plan, ChoicePlanOptions) else self.plan_options.model_validate(plan or {})
        assert isinstance(options, ChoicePlanOptions)
        dataset = str(session.dataset) if session.dataset is not None else str(self.items_path)
        out = session.out if session.out is not None else self.default_out(dataset)
        return choice_session_parts(self.name, load_items(dataset), dataset=dataset, participant=session.participant,
                                    session=session.session, out=out, options=options,
                                    model_template=self.model_prompting.template)

    def prepare(self, session: SessionOptions, plan: Any, text: SessionText) -> SessionRunner:
        return open_session(self, session, plan, text)

    def planned_values(self, plan: SessionPlan) -> dict[str, Any]:
        c = plan.config
        return {"dataset": Path(plan.dataset), "seed": plan.seed, "items_per_stratum": c.get("items_per_stratum"),
                "practice": c.get("practice", len(plan.practice)), "block_size": c.get("block_size")}

    def power_planning(self) -> PowerPlanning:
        return choice_power_planning(self.title, self.items_path, self.model_results,
                                     self.plan_options.model_fields["items_per_stratum"].default)

    def instructions(self, plan: Any, session: SessionOptions) -> list[str]:
        pages = list(self.pages)
        practice = plan.practice if isinstance(plan, ChoicePlanOptions) else 0
        if practice:
            pages.append(f"# Practice first\n\nYou start with {practice} practice question"
                         f"{'s' if practice != 1 else ''}"
                         + (" (with feedback)" if session.feedback else "")
                         + ", then the main part in blocks with breaks in between.")
        return pages

    # -- commands and comparison -----------------------------------------------------------------------------

    def result_paths(self, results: Sequence[Path], items: Path | None, no_models: bool) -> list[Path]:
        """The given results, else the default output folder; plus the bundled model results."""
        paths = list(results)
        if not paths:
            default = self.default_out(str(items or self.items_path)) / "results"
            if default.is_dir():
                paths.append(default)
        if self.model_results is not None and not no_models:
            paths.append(self.model_results)
        if not paths:
            raise BenchlabError(f"no results to read: give results files or folders (`benchlab run {self.name}` "
                                f"writes to {self.default_out(str(items or self.items_path)) / 'results'})")
        return paths

    def _score(self, opts: ChoiceScoreOptions) -> str:
        items = load_items(opts.items or self.items_path)
        paths = self.result_paths(opts.results, opts.items, opts.no_models)
        return render([score_choice(items, paths, title=self.title, numeric=opts.fmt in ("csv", "json"),
                                    on_warning=warn, same_items=not opts.all_items)], opts.fmt).rstrip("\n")

    def _compare(self, opts: ChoiceCompareOptions) -> str:
        # deferred: pandas and scipy load only when `_compare` runs (annotations.session.status loads this module
        # without them)
        from benchlab.annotations.exclusions.applied import exclusion_notes, exclusions_for
        from benchlab.data.analysis.stats import AttentionCriterion
        from benchlab.data.choice.compare import compare_choice

        items = load_items(opts.items or self.items_path)
        log = exclusions_for(list(opts.results)) if opts.results else None
        criterion = AttentionCriterion(min_control_accuracy=opts.min_control_acc, fast_ms=opts.fast_ms,
                                       max_fast_share=opts.max_fast_share)
        comp = compare_choice(items, self.result_paths(opts.results, opts.items, opts.no_models), title=self.title,
                              criterion=criterion, exclude_flagged=opts.exclude_flagged,
                              include_simulated=opts.include_simulated, n_boot=opts.n_boot, seed=opts.seed,
                              on_warning=warn, excluded=log.excluded if log else None,
                              same_items=not opts.all_items)
        comp.notes.extend(exclusion_notes(log))
        numeric = opts.fmt in ("csv", "json")
        return render(comp.tables(numeric=numeric, sections=opts.sections or None), opts.fmt).rstrip("\n")

    def _build_comparison(self, testset: Path | None, results: Path, criterion: Any) -> Any:
        # deferred: pandas and scipy load only when `_build_comparison` runs (annotations.session.status loads this
        # module without them)
        from benchlab.annotations.exclusions.applied import exclusion_notes, exclusions_for
        from benchlab.data.choice.compare import compare_choice

        # the sessions' folder may not exist yet: the models are shown until the first participant's answer lands
        paths = ([results] if results.exists() else []) + (
            [self.model_results] if self.model_results is not None else [])
        if not paths:
            raise BenchlabError("no results yet (and no model results come with this task)", results)
        log = exclusions_for([results]) if results.exists() else None  # the study's declared rules, as compare
        comp = compare_choice(load_items(testset or self.items_path), paths, title=self.title, criterion=criterion,
                              n_boot=DEFAULT_BOOT, excluded=log.excluded if log else None)
        comp.notes.extend(exclusion_notes(log))
        return comp

    def _watched(self, testset: Path | None, results: Path) -> list[Path]:
        # deferred: pandas and scipy load only when `_watched` runs (annotations.session.status loads this module
        # without them)
        from benchlab.data.choice.compare import watched_files

        return watched_files([results] + ([self.model_results] if self.model_results is not None else []))


def make_choice_task(
    *, name: str, title: str, description: str, items: str | Path, model_results: str | Path | None = None,
    instructions: Sequence[str] | None = None, items_per_stratum: int = 10, practice: int = 2, block_size: int = 20,
    trial_kind: str = "choice", model_template: str | None = None,
) -> ChoiceTask:
    """A complete task from an items JSONL file (``id``, ``text``, ``options``, ``gold``, ``stratum`` per line).

    ``model_results``: a results file or folder of model runs shown next to the people by ``compare`` and the
    Results screen; ``instructions``: markdown pages (default: the title, the description and how to answer);
    ``items_per_stratum`` / ``practice`` / ``block_size``: the defaults of the plan options; ``trial_kind``: the
    screen of each trial (``"choice"``: text and numbered answer buttons; another kind, such as a rating scale,
    names an entry of the ``benchlab.trial_screens`` group, whose factory gets the same ``prompt(item_id)``: the
    item's text and options); ``model_template``: how an item becomes a model prompt for ``benchlab models run``
    (fields ``{text}``, ``{options}``, ``{numbered_options}``, ``{id}``, ``{stratum}``, extra item fields; default:
    :data:`~benchlab.annotations.choice.model_prompts.DEFAULT_TEMPLATE`). The items file is
    read when a session, a score or a comparison needs it, so a broken file never stops ``benchlab`` from starting.
    """
    if not _ID_RE.fullmatch(name):
        raise ValueError(f"task name {name!r} must be letters, digits, '.' or '-' (it names commands and folders)")
    return ChoiceTask(name=name, title=title, description=description, items=Path(items),
                      model_results=Path(model_results) if model_results is not None else None,
                      instructions=instructions, items_per_stratum=items_per_stratum, practice=practice,
                      block_size=block_size, trial_kind=trial_kind, model_template=model_template)


if TYPE_CHECKING:  # mypy checks here that the kit satisfies the protocols the CLI, the app and the engine use

    def _is_a_task(task: ChoiceTask) -> Task:
        return task

    def _is_a_task_session(session: ChoiceTaskSession) -> TaskSession:
        return session

    def _exports_and_shows_sessions(task: ChoiceTask) -> tuple[ExportsTrials, ShowsSessions]:
        return task, task
