"""WorldSense as benchlab runs it: its session and plan options, how a session is prepared, its instructions.

Everything ``benchlab run worldsense``, the launcher's form and the resume warnings need is declared here once;
the app shows its trials with the generic choice screen (``trial_kind = "choice"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchlab.annotations.coverage_designs import CoverageDesign
from benchlab.annotations.options import Options
from benchlab.annotations.session.opening import open_session
from benchlab.annotations.session.parts import SessionParts
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionRunner, SessionText
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
from benchlab.annotations.worldsense.commands import COMMANDS, sessions_results_folder
from benchlab.annotations.worldsense.comparison import COMPARISON
from benchlab.annotations.worldsense.face import FACE
from benchlab.annotations.worldsense.model_prompts import WORLDSENSE_PROMPTING
from benchlab.annotations.worldsense.plan_options import WorldSensePlanOptions
from benchlab.annotations.worldsense.power import COVERAGE_DESIGNS, POWER_PLANNING
from benchlab.annotations.worldsense.session import worldsense_session_parts
from benchlab.annotations.worldsense.session_status import LAYOUT
from benchlab.annotations.worldsense.trial_export import TRIALS
from benchlab.data.samples import sample_path
from benchlab.data.settings import get_settings
from benchlab.data.worldsense.trial_index import shared_index

INSTRUCTIONS = [
    """# Welcome

In this study you read short descriptions of a few things (people, objects, events) that are arranged in some
order, and answer one question about each description.

The descriptions were written to test AI language models. They may say things like *"Only respond with ... without
any explanation"*: you do not need to type anything, just choose one of the answers shown on the buttons.""",
    """# How to answer

Each question shows its possible answers as buttons, numbered **1**, **2** (and sometimes **3**).

* Press the **number key** of your answer, or click its button.
* An answer is final: you cannot go back or change it.
* Read each description carefully, then answer at a steady pace.""",
    """# The three kinds of questions

* **TRUE / FALSE**: is the sentence true given the description?
* **POSSIBLE / IMPOSSIBLE**: could the situation described really happen?
* **(1) / (2) / (3)**: which alternative follows from the description? Choose **(3)** when the description does not
  let you decide.

You start with a few practice questions (with feedback), then the main part in blocks with breaks in between.""",
]


class WorldSenseTask:
    """The WorldSense :class:`~benchlab.annotations.task.Task` (its declaration; each session's own part is a
    :class:`~benchlab.annotations.worldsense.session.WorldSenseTaskSession`)."""

    name: str = FACE.name
    launcher_rank: int = 10
    title: str = FACE.title
    description: str = FACE.description
    session_options: type[SessionOptions] = FACE.session_options
    plan_options: type[Options] = FACE.plan_options
    trial_kind: str = "choice"
    simulated_policies: tuple[str, ...] = FACE.simulated_policies
    commands: Sequence[Command] = COMMANDS
    comparison: ComparisonSource | None = COMPARISON
    trial_export: TrialRows = TRIALS  # benchlab export trials worldsense
    session_layout: SessionLayout = LAYOUT  # its Sessions rows
    model_prompting: ModelPrompting = WORLDSENSE_PROMPTING  # benchlab models run|import

    def default_dataset(self) -> Path:
        return sample_path("worldsense")

    def full_dataset(self) -> Path | None:
        """The published test set under the shared datasets folder (``benchlab worldsense fetch`` puts it there),
        when present (:class:`~benchlab.annotations.task.FullData`)."""
        folder = get_settings().shared_datasets / "worldsense" / "test_set"
        return folder.resolve() if (folder / "trials.jsonl.bz2").is_file() else None

    def default_out(self, dataset: str) -> Path:
        """``./benchlab-results/worldsense/<test set folder name>`` (``sample`` for the bundled sample): results of
        different test sets never mix (``compare worldsense`` reads the same folder)."""
        return sessions_results_folder(Path(dataset)).parent

    def session_parts(self, session: SessionOptions, plan: Any) -> SessionParts:
        assert isinstance(plan, WorldSensePlanOptions)
        dataset = dataset_of(session, self)
        # The process's one cached index of the test set: a session reads only the tuples and trials it plans.
        trials = shared_index(dataset)
        out = str(session.out) if session.out else str(self.default_out(dataset))
        return worldsense_session_parts(trials, dataset=dataset, participant=session.participant,
                                        session=session.session, out=out, options=plan)

    def preload(self, session: SessionOptions) -> None:
        """Open (or build, the first time) the shared index of the session's test set now, so the first
        participant of a server does not wait for it (:class:`~benchlab.annotations.task.Preloads`)."""
        shared_index(dataset_of(session, self))

    def prepare(self, session: SessionOptions, plan: Any, text: SessionText) -> SessionRunner:
        return open_session(self, session, plan, text)

    def power_planning(self) -> PowerPlanning:
        return POWER_PLANNING

    def coverage_designs(self) -> tuple[CoverageDesign, ...]:
        return COVERAGE_DESIGNS

    def planned_values(self, plan: SessionPlan) -> dict[str, Any]:
        c = plan.config
        return {"dataset": Path(plan.dataset), "seed": plan.seed, "tuples_per_cell": c.get("tuples_per_cell"),
                "practice": c.get("practice", len(plan.practice)), "block_size": c.get("block_size"),
                "min_gap": c.get("min_gap"), "participants": tuple(c.get("participants", ()))}

    def instructions(self, plan: Any, session: SessionOptions) -> list[str]:
        return list(INSTRUCTIONS)


TASK = WorldSenseTask()
