"""What a benchmark declares, once, so that every front end can be generated from it.

A :class:`Task` is plain data plus a few functions: its plan options (a pydantic model, see
:mod:`benchlab.annotations.options`), how to prepare and resume a session, its trial kind (which screen shows a
trial), its simulated participants, and its commands (``score``, ``compare``, ``bench`` ...) each as an options
model plus a function. ``benchlab run NAME``, ``benchlab score NAME``, the launcher's form and lines, the resume
warnings and the Results screen are all built from these declarations by ``benchlab.tui``; nothing in the app or
the CLI names a benchmark.

The registry (:mod:`benchlab.annotations.registry`) loads the built-in tasks and third-party ones from the
``benchlab.tasks`` entry-point group.

The file has two parts. **The core declaration**: :class:`SessionOptions`, :class:`Command` (and
:class:`ToolGroup`), :class:`ComparisonSource`, :class:`Benchmark` (every entry), :class:`RunsSessions` (which
makes it a :class:`Task`) and the :class:`Registry`. **Optional capabilities**: ``runtime_checkable`` protocols a
feature checks with ``isinstance`` (so no feature asks for a benchmark by name), each with the feature reading it:

- :class:`OpensSessions` (``session_parts``): :func:`~benchlab.annotations.session.opening.open_session`;
- :class:`Preloads` (``preload``): a server opens a task's shared data once, before its first participant;
- :class:`FullData` (``full_dataset``): ``benchlab bench serve`` measures on the full data set when present;
- :class:`ChoiceSession` (with :class:`ChoicePrompt`, :class:`Choice`): the ``choice`` trial screen;
- :class:`DataChoices`: the session form (data-set values as choices);
- :class:`Ranked`: the registry's launcher order;
- :class:`ExportsTrials` (with :class:`TrialRows`): ``benchlab export trials NAME``;
- :class:`ShowsSessions` (with :class:`SessionLayout`, :class:`LoggedAnswer`): the Sessions screen and
  ``benchlab serve``'s table;
- :class:`PlansPower` (with :class:`PowerPlanning`): ``benchlab power NAME``;
- :class:`ReadsAnswers`: ``benchlab bench faults``;
- :class:`PromptsModels` (with :class:`ModelPrompting`, :class:`ModelItem`): ``benchlab models run|import``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from benchlab.annotations.options import Options, option
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    from benchlab.annotations.session.parts import SessionParts
    from benchlab.annotations.session.plan import SessionPlan
    from benchlab.annotations.session.runner import SessionFiles, SessionRunner, SessionText
    from benchlab.data.analysis.compare import Comparison
    from benchlab.data.analysis.stats import AttentionCriterion


# -- The core declaration ------------------------------------------------------------------------------------------


#: Where a command goes: ``benchlab score NAME``, ``benchlab compare NAME``, ``benchlab bench NAME`` ...
CommandGroup = Literal["score", "compare", "bench", "fetch", "tool"]


class SessionOptions(Options):
    """The options every session has, whatever the benchmark (participant, session, files, resume, pilots)."""

    dataset: Path | None = option(None, label="Data set", help="Data set (folder or file). Default: the bundled "
                                  "sample.", widget="path")
    participant: str = option(label="Participant id", help="Participant id (letters, digits, '.', '-'); names the "
                              "results.")
    session: str = option("1", label="Session", help="Session id of this participant.")
    seed: int | None = option(None, label="Seed", help="Plan seed (default: random; it is saved with the plan).")
    out: Path | None = option(None, label="Output folder", help="Output folder (default: shown below the form).",
                              widget="folder")
    resume: bool = option(False, label="Resume an interrupted session",
                          help="Continue an interrupted session at its next unanswered trial.")
    consent_file: Path | None = option(None, label="Consent text file", flag="--consent", widget="path",
                                       help="Consent text (markdown) shown first; declining ends with nothing "
                                       "recorded.")
    instructions_file: Path | None = option(None, label="Instructions file", flag="--instructions", widget="path",
                                            help="Instructions (markdown, pages separated by a line '---'). "
                                            "Default: built-in instructions.")
    no_instructions: bool = option(False, label="Skip the instructions", help="Skip the instruction pages.",
                                   form=False)
    feedback: bool = option(True, label="Feedback after practice trials", negate="--no-feedback",
                            help="No correct/incorrect feedback after practice trials.")
    simulate: str | None = option(None, label="Simulated participant", form=False,
                                  help="Run a simulated participant through the same engine and files (pilot a "
                                  "design).")
    sim_delay: float = option(0.0, label="Simulated seconds per trial", ge=0, form=False, problem="cannot be negative",
                              help="Seconds a simulated participant waits per trial.")
    web_session: bool = option(False, label="Web session", form=False, hidden=True,
                               help="Run for a participant in a web browser (started by benchlab serve): resume the "
                               "participant's session if one is in progress, else start it.")


@dataclass(frozen=True)
class ToolGroup:
    """A benchmark's own group for ``tool`` commands (``benchlab GROUP make``, ``benchlab GROUP audit``)."""

    name: str
    help: str


@dataclass(frozen=True)
class Command:
    """A command a task contributes: ``benchlab <group> <task name>`` (or ``<group> <name>`` when named).

    ``run`` gets the checked options and returns what to print (or ``None`` when it printed itself). A ``tool``
    command goes in its task's own group ``tool`` (``benchlab <tool.name> <name>``) and must be named.
    """

    group: CommandGroup
    help: str
    options: type[Options]
    run: Callable[[Any], str | None]
    name: str | None = None
    tool: ToolGroup | None = None


Builder = Callable[[Path | None, Path, "AttentionCriterion"], "Comparison"]
Watcher = Callable[[Path | None, Path], list[Path]]


@dataclass(frozen=True)
class ComparisonSource:
    """How the Results screen (and ``compare``) builds a humans-vs-models comparison for a task.

    ``testset_label``: the label of the data-set picker, ``None`` when the results alone suffice; ``build`` makes
    the comparison; ``watched`` lists the files whose change triggers a live refresh.
    """

    testset_label: str | None
    build: Builder
    watched: Watcher


class Benchmark(Protocol):
    """What every entry of the ``benchlab.tasks`` group declares: a name, a title, a description and its commands.

    Everything else a benchmark can do is an optional protocol that the feature checks with ``isinstance``
    (:class:`RunsSessions` makes it a :class:`Task`; the others are under "Optional capabilities" below), so a
    feature never asks for a benchmark by name.
    """

    #: One name everywhere: ``benchlab run NAME``, folder names, the plan's ``task`` field.
    name: str
    title: str
    description: str
    #: ``score``, ``compare``, ``bench`` ... commands, generated on the command line from their options models.
    commands: Sequence[Command]


@runtime_checkable
class RunsSessions(Protocol):
    """The part of a :class:`Task` that runs people (checked with ``isinstance`` when the registry loads)."""

    def prepare(self, session: SessionOptions, plan: Any, text: SessionText) -> SessionRunner: ...

    def planned_values(self, plan: SessionPlan) -> dict[str, Any]: ...


class Task(Benchmark, Protocol):
    """A benchmark that runs people: sessions, plan options, a trial kind (built-in or from a plug-in package)."""

    #: The session options: :class:`SessionOptions` or a subclass renaming the data-set flag (``-t/--testset``)
    #: or rewording help texts; the same fields, so every front end handles every task.
    session_options: type[SessionOptions]
    #: The plan options of a session (beyond :class:`SessionOptions`), with their labels, bounds and defaults.
    plan_options: type[Options]
    #: Which screen shows a trial: ``"choice"`` (text + numbered options) or a kind a plug-in registers in the app.
    trial_kind: str
    #: Simulated participants (``--simulate``): policy names of :mod:`benchlab.annotations.simulate`.
    simulated_policies: tuple[str, ...]
    #: Humans vs models on the Results screen (``None``: the task has no comparison).
    comparison: ComparisonSource | None

    def default_dataset(self) -> Path: ...

    def default_out(self, dataset: str) -> Path: ...

    def prepare(self, session: SessionOptions, plan: Any, text: SessionText) -> SessionRunner:
        """Load the data, build (or with ``session.resume`` reload) the plan, open the runner (holding the lock).

        Front ends call :func:`~benchlab.annotations.session.opening.open_session` instead; a task that declares
        :class:`OpensSessions` implements this as ``return open_session(self, session, plan, text)``.
        Raises :class:`~benchlab.annotations.options.OptionError` for a wrong field, ``BenchlabError`` otherwise.
        """
        ...

    def planned_values(self, plan: SessionPlan) -> dict[str, Any]:
        """The saved plan's values of the plan-option fields (and ``dataset``/``seed``), for resume warnings."""
        ...

    def instructions(self, plan: Any, session: SessionOptions) -> list[str]:
        """The built-in instruction pages (markdown) for these options."""
        ...


@dataclass
class Registry:
    """What the ``benchlab.tasks`` group declared, by name: every :class:`Benchmark`, and among them the
    :class:`Task` s that run people, in the order the launcher lists them."""

    #: Every declaration (tasks that run people, and benchmarks that only curate or score, such as a curation tool).
    benchmarks: dict[str, Benchmark] = field(default_factory=dict)
    #: The declarations that run sessions (``benchlab run NAME``, launcher lines, Results).
    tasks: dict[str, Task] = field(default_factory=dict)
    #: Plug-ins that failed to load: (entry point, one-line reason), shown by ``benchlab plugins``/launcher.
    broken: list[tuple[str, str]] = field(default_factory=list)

    def add(self, benchmark: Benchmark) -> Benchmark:
        self.benchmarks[benchmark.name] = benchmark
        if isinstance(benchmark, RunsSessions):
            self.tasks[benchmark.name] = benchmark  # type: ignore[assignment]  # RunsSessions + Benchmark = Task
        return benchmark

    def get(self, name: str) -> Task:
        """The task that runs sessions under ``name`` (a one-line error naming the known ones otherwise)."""
        try:
            return self.tasks[name]
        except KeyError:
            known = ", ".join(self.tasks) or "none"
            raise BenchlabError(f"unknown task {name!r} (known: {known})") from None

    def benchmark(self, name: str) -> Benchmark:
        """Any declaration by name (a task or a benchmark that only scores or curates)."""
        try:
            return self.benchmarks[name]
        except KeyError:
            known = ", ".join(self.benchmarks) or "none"
            raise BenchlabError(f"unknown benchmark {name!r} (known: {known})") from None

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks.values())


def dataset_of(session: SessionOptions, task: Task) -> str:
    """The data set a session uses: the one given, else the task's default."""
    return str(session.dataset) if session.dataset is not None else str(task.default_dataset())


# -- Optional capabilities -----------------------------------------------------------------------------------------
# Each protocol is read by one feature (named in its docstring) with ``isinstance``; a task without it gets the
# feature's generic behaviour (or not the feature).


# -- Opening sessions (``open_session``) ---------------------------------------------------------------------------


@runtime_checkable
class OpensSessions(Protocol):
    """A :class:`Task` that contributes only its own part to opening a session (its data, where the files go, how
    a plan is built, its :class:`~benchlab.annotations.session.runner.TaskSession`); the steps every task shares
    (ids, new or resume from the files, the lock, saving the plan) are
    :func:`~benchlab.annotations.session.opening.open_session`'s. Optional: a task without it opens its runner in
    its own :meth:`Task.prepare`."""

    def session_parts(self, session: SessionOptions, plan: Any) -> SessionParts:
        """Load the session's data and describe the session (slow: data sets are read here)."""
        ...


@runtime_checkable
class FullData(Protocol):
    """A :class:`Task` whose bundled data set is a small sample of a full one that may be on this machine (under
    the shared datasets folder). Speed harnesses measure on the full one when it is there."""

    def full_dataset(self) -> Path | None:
        """The full data set (what the data-set flag takes) when this machine has it, else ``None``."""
        ...


@runtime_checkable
class Preloads(Protocol):
    """A :class:`Task` whose sessions share data kept once per process (WorldSense: the cached index of the test
    set). A server calls :meth:`preload` at start so the first participant does not wait for it to be built."""

    def preload(self, session: SessionOptions) -> None:
        """Open or build the shared data ``session`` will use (slow only the first time a data set is seen)."""
        ...


# -- Choice trials (the ``choice`` trial screen) -------------------------------------------------------------------


@runtime_checkable
class ChoicePrompt(Protocol):
    """What a choice trial shows: the stimulus text and the answer options, in order (keys 1..n)."""

    @property
    def text(self) -> str: ...

    @property
    def options(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Choice:
    """A :class:`ChoicePrompt` as plain data (what a choice task's ``prompt`` usually returns)."""

    text: str
    options: tuple[str, ...]


@runtime_checkable
class ChoiceSession(Protocol):
    """The session part (``runner.task_session``) of a task whose ``trial_kind`` is ``"choice"``: what trial ``item_id``
    shows. The app's choice screen needs nothing else, so a plug-in choice task needs no app code."""

    def prompt(self, item_id: str) -> ChoicePrompt: ...


# -- The session form and the launcher -----------------------------------------------------------------------------


@runtime_checkable
class DataChoices(Protocol):
    """A task whose form can offer the values a data set holds (e.g. the excerpt lengths it was generated with) as
    a choice instead of free entry. Optional: the form checks ``isinstance(task, DataChoices)``."""

    def data_choices(self, dataset: str) -> dict[str, tuple[str, ...]]:
        """Plan-option field -> the values present in ``dataset``, read cheaply (file names, not the data); an
        empty dict when the data set cannot be read that way (the form then keeps free entry)."""
        ...


@runtime_checkable
class Ranked(Protocol):
    """A task that says where its launcher line goes (lower first; tasks without a rank follow, by name).
    Entry points carry no order of their own, so the built-ins use this to keep their documented order."""

    launcher_rank: int


# -- Trial export (``benchlab export trials NAME``) ----------------------------------------------------------------


@runtime_checkable
class TrialRows(Protocol):
    """How a benchmark's recorded trials become rows of ``benchlab export trials NAME``.

    The generic command writes the shared tidy columns first (``participant``, ``session``, ``trial_index``,
    ``item``, ``condition``, ``response``, ``correct``, ``rt_ms`` ...: see
    :data:`benchlab.annotations.trial_export.COMMON_COLUMNS`), then :attr:`columns`, then any further key the rows
    carry, so an analysis script reads every task's export the same way.
    """

    @property
    def inputs(self) -> str:
        """What PATHS are for this task (``--help``): e.g. "results folders or files"."""
        ...

    @property
    def testset_needed(self) -> str | None:
        """Why the rows need ``-t/--testset`` (the error's wording when it is missing); ``None`` when they do not."""
        ...

    @property
    def shared_notes(self) -> Mapping[str, str]:
        """How this task fills some shared columns (``item``, ``condition``, ``response`` ...), for ``--help``."""
        ...

    @property
    def columns(self) -> Mapping[str, str]:
        """The task's own columns after the shared ones, in order, with their notes; a key in parentheses, such as
        ``"(more)"``, is a note only, not a column."""
        ...

    def rows(self, paths: list[Path], testset: Path | None) -> list[dict[str, Any]]:
        """Every recorded trial under ``paths`` (files or folders), one dict per row: shared columns and own ones.
        Bad input raises ``BenchlabError`` naming the file (and line)."""
        ...


@runtime_checkable
class ExportsTrials(Protocol):
    """A benchmark whose trials ``benchlab export trials NAME`` can write (checked with ``isinstance``)."""

    @property
    def trial_export(self) -> TrialRows: ...


# -- Sessions screen (``read_statuses``: ``benchlab serve``'s table, the launcher's Sessions screen) ---------------


@dataclass(frozen=True)
class LoggedAnswer:
    """One complete record of a results or practice log, as the Sessions screen needs it."""

    #: The item id the plan names.
    item: str
    #: Whether the answer was right (``None``: the task does not know it from the record).
    correct: bool | None


@runtime_checkable
class SessionLayout(Protocol):
    """Where a task's sessions write and how their logs read, so that a Sessions row shows its progress and
    practice accuracy from the files alone."""

    @property
    def lock_pattern(self) -> str:
        """The name of a participant's lock file in the sessions folder, ``{p}`` standing for the participant id
        (e.g. ``".{p}.lock"``): a lock without a plan is a session at its consent."""
        ...

    def files(self, base: Path, plan: SessionPlan) -> SessionFiles:
        """The session's files from its saved plan (``base``: the folder holding ``sessions/``)."""
        ...

    def answers(self, path: Path, plan: SessionPlan) -> list[LoggedAnswer]:
        """The complete records of a results or practice log (``[]`` when absent; a torn last record is left out);
        ``BenchlabError`` or ``OSError`` when it cannot be read."""
        ...


@runtime_checkable
class ShowsSessions(Protocol):
    """A task whose Sessions rows read its own files (checked with ``isinstance``; without it a row shows what the
    events log tells)."""

    @property
    def session_layout(self) -> SessionLayout: ...


# -- Power planning (``benchlab power NAME``) ----------------------------------------------------------------------


#: Reads the people tested so far from a results folder: (mean accuracy, between-person SD, number of people).
#: Raises ``BenchlabError`` naming the folder when it holds no real participant's answers.
PilotReader = Callable[[Path], tuple[float, float, int]]


@dataclass(frozen=True)
class PowerPlanning:
    """What ``benchlab power NAME`` needs to plan a study of a task, as plain numbers and words: the generic
    simulation (:mod:`benchlab.data.analysis.power`) knows no benchmark, so the task says what a unit is, how many
    answers it holds, the design planned by default and the published scores to plan against."""

    #: What a person answers and is scored on, plural, as tables and messages say it: "tuples", "trials", "items".
    unit: str
    #: Answers in one unit, scored as their mean: 2 for a tuple of two items, 1 for a single trial.
    answers_per_unit: int
    #: The design planned by default: cells (strata, equally weighted) and units per cell.
    cells: int
    units_per_cell: int
    #: The models' published accuracies (0-1) to plan against, by model; the first is ``--model-score``'s default.
    model_scores: Mapping[str, float]
    #: The help of ``benchlab power NAME``.
    help: str
    #: Help texts of the design options (what a cell is, a unit per cell, where the default score comes from);
    #: empty: a generic wording.
    cells_help: str = "Cells (strata) in the design."
    units_per_cell_help: str = ""
    model_score_help: str = ""
    #: Reads pilot data (``--pilot FOLDER``, offered only when given): its accuracy and spread replace the assumed.
    pilot: PilotReader | None = None
    pilot_help: str = ("Results folder of the people tested so far: their accuracy and spread replace "
                       "--human-accuracy and --person-sd.")
    #: Units per cell the session engine draws each person's own subset from (the model answers all of them);
    #: 0: every person answers the same units. The planner simulates the design the engine runs.
    pool_per_cell: int = 0
    #: Whether the compared score is the equal-weight mean over cells (else the plain mean of the units).
    stratified: bool = True


@runtime_checkable
class PlansPower(Protocol):
    """A task ``benchlab power NAME`` can plan a study for. Optional: the power commands are made for every
    declaration with ``isinstance(benchmark, PlansPower)``."""

    def power_planning(self) -> PowerPlanning:
        """The task's design and published scores; called when the command line is built, so it reads nothing
        slow (and never fails: a task whose data cannot be read gives its declared defaults)."""
        ...


# -- Reading records back (``benchlab bench faults``) --------------------------------------------------------------


@runtime_checkable
class ReadsAnswers(Protocol):
    """The session part (``runner.task``) of a task whose results a harness can check against what was asked: which
    item a record answers and the answer it holds, in the task's own results format (a JSONL line or a CSV row
    read as a dict). ``bench faults`` checks it with ``isinstance`` and names no field of any format."""

    def item_id_of(self, record: dict[str, Any]) -> str: ...

    def answer_of(self, record: dict[str, Any]) -> str: ...


# -- Models on the same items (``benchlab models run|import|export``) ---------------------------------------------


@dataclass(frozen=True)
class ModelItem:
    """One item as a model is asked it: the chat messages the benchmark's own evaluation code builds, the gold
    answer, and the stimulus a person sees (both hashed into the provenance, so "same items" can be checked)."""

    #: The item id the session plans name (WorldSense: the Key's digits; SORT: the trial id; choice: the item id).
    id: str
    #: ``(role, content)`` pairs, system first when there is one.
    messages: tuple[tuple[str, str], ...]
    #: The correct answer in the task's answer space (what :meth:`ModelPrompting.parse_answer` returns).
    gold: str
    #: The text a participant reads for this item (its SHA-256 goes into human records and the provenance).
    stimulus: str
    #: Fields the results writer needs (SORT: the dataset row), carried through the run.
    info: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelAnswer:
    """One item's answer from a model: its text, the parsed answer and the first token's top log-probabilities."""

    item: ModelItem
    completion: str
    answer: str
    top_logprobs: Mapping[str, float] | None = None


@runtime_checkable
class ModelPrompting(Protocol):
    """How a benchmark's items become model prompts and how a model's text becomes an answer, as the benchmark's
    authors did it; and how answers are written in the benchmark's own results format."""

    @property
    def templates(self) -> Mapping[str, str]:
        """Prompt templates by name with a one-line description; the first is the default."""
        ...

    #: Generation settings the benchmark's code used (``temperature``, ``max_tokens``, ``top_logprobs`` ...).
    generation: Mapping[str, Any]

    def model_items(self, dataset: str | None, plans: Sequence[SessionPlan], template: str,
                    ids: Collection[str] | None = None) -> list[ModelItem]:
        """The items of ``plans`` (their scored items, in plan order, each once), or with no plans every item of
        ``dataset`` (``None``: the task's default data). ``BenchlabError`` for an unknown template or item.

        ``ids`` (with no plans): only the items with these ids, in the data set's order, ids it lacks left out;
        ``models import`` asks for a log's items this way, so a large data set is never built whole for them."""
        ...

    def parse_answer(self, item: ModelItem, completion: str, top_logprobs: Mapping[str, float] | None) -> str:
        """The answer a completion gives (``top_logprobs``: the first token's candidates, when the provider
        returned them); an invalid answer is the task's own "no answer" value (``""`` or ``"X"``)."""
        ...

    def write_results(self, out: Path, model: str, template: str,
                      answers: Sequence[ModelAnswer]) -> list[Path]:
        """Write the answers in the benchmark's own results format under ``out`` (the
        folder ``score``/``compare`` read) atomically, replacing that model's earlier file; returns the files."""
        ...


@runtime_checkable
class PromptsModels(Protocol):
    """A benchmark ``benchlab models run|import`` can put to a model (checked with ``isinstance``)."""

    @property
    def model_prompting(self) -> ModelPrompting: ...


__all__ = [
    "Benchmark",
    "Choice",
    "ChoicePrompt",
    "ChoiceSession",
    "Command",
    "CommandGroup",
    "ComparisonSource",
    "DataChoices",
    "ExportsTrials",
    "LoggedAnswer",
    "ModelAnswer",
    "ModelItem",
    "ModelPrompting",
    "OpensSessions",
    "PilotReader",
    "PlansPower",
    "PowerPlanning",
    "PromptsModels",
    "Ranked",
    "ReadsAnswers",
    "Registry",
    "RunsSessions",
    "SessionLayout",
    "SessionOptions",
    "ShowsSessions",
    "Task",
    "ToolGroup",
    "TrialRows",
    "dataset_of",
]
