"""WorldSense in the app: preparing its sessions and showing a trial (question text + one button per option)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from textual.screen import Screen

from benchlab.annotations.session_plan import PlannedStep
from benchlab.annotations.session_runner import SessionRunner, SessionText
from benchlab.annotations.worldsense.plan import WorldSensePlanOptions
from benchlab.annotations.worldsense.session import WorldSenseTask, prepare_worldsense_session
from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.worldsense.loader import find_trials_file, load_trials
from benchlab.data.worldsense.records import Trial
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen
from benchlab.tui.session_text import read_text_file, split_pages
from benchlab.tui.task_registry import SessionRequest, TrialContext, register_task

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


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[Trial, ...]:
    return tuple(load_trials(path))


class WorldSenseUI:
    """The WorldSense task plug-in of the launcher and of ``benchlab run worldsense``."""

    name = "worldsense"
    title = "WorldSense"
    description = "Reasoning about orderings: TRUE/FALSE, POSSIBLE/IMPOSSIBLE and (1)/(2)/(3) questions."
    items_per_cell_label = "Tuples per (problem, size) cell"

    def default_dataset(self) -> Path:
        return sample_path("worldsense")

    def default_out(self, dataset: str) -> Path:
        """``./benchlab-results/worldsense/<test set folder name>`` (``sample`` for the bundled sample): results of
        different test sets never mix."""
        try:
            folder = find_trials_file(dataset).parent
        except BenchlabError:
            folder = Path(dataset)
        name = "sample" if folder.resolve() == self.default_dataset().resolve() else (folder.name or "worldsense")
        return Path.cwd() / "benchlab-results" / "worldsense" / name

    def session_text(self, request: SessionRequest) -> SessionText:
        consent = read_text_file(request.consent_file, "consent") if request.consent_file else None
        if request.no_instructions:
            pages: list[str] = []
        elif request.instructions_file:
            pages = split_pages(read_text_file(request.instructions_file, "instructions"))
        else:
            pages = list(INSTRUCTIONS)
        return SessionText(consent=consent, instructions=pages, practice_feedback=request.practice_feedback)

    def prepare(self, request: SessionRequest) -> SessionRunner:
        trials = _load(str(find_trials_file(request.dataset)))
        options = WorldSensePlanOptions(
            tuples_per_cell=request.items_per_cell, practice=request.practice, block_size=request.block_size,
            min_gap=request.min_gap, participants=request.participants,
        )
        out = request.out or str(self.default_out(request.dataset))
        return prepare_worldsense_session(
            trials, dataset=request.dataset, participant=request.participant, session=request.session, out=out,
            seed=request.seed, options=options, resume=request.resume, text=self.session_text(request),
            simulated=request.simulated,
        )

    def trial_screen(self, runner: SessionRunner, step: PlannedStep, context: TrialContext) -> Screen[None]:
        task = runner.task
        assert isinstance(task, WorldSenseTask)
        prompt = task.prompt(step.item_id)
        return ChoiceTrialScreen(prompt.text, prompt.expectedresp, context)


register_task(WorldSenseUI())
