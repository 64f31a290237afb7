"""WorldSense as a session task: the human results record and where a participant's files go.

Responses are written in the benchmark's own results format, ``<out>/results/basic___human-<participant>___results
.jsonl`` (``Key`` as an exact integer, ``resp`` as the exact option string), so the file scores unchanged with
``benchlab score worldsense`` and with the original ``analyse_results.py``. The extra fields (times, participant,
session, ...) are carried along by both scorers; none of them reuses a trial field name, which would make the
original's join produce ``_x``/``_y`` columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchlab.annotations.response_log import ResponseLog
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
from benchlab.annotations.task import Choice
from benchlab.annotations.worldsense.human_record import HumanResponse, WebHumanResponse
from benchlab.annotations.worldsense.model_prompts import worldsense_hashes
from benchlab.annotations.worldsense.plan import WorldSensePlanOptions, build_worldsense_plan
from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense.records import Trial, TrialPrompt
from benchlab.data.worldsense.trial_index import TrialIndex

PROMPTING = "basic"




def modelname(participant: str) -> str:
    return f"human-{participant}"


def worldsense_files(out: str | Path, participant: str, session: str) -> SessionFiles:
    """Where a participant's WorldSense session writes (results under ``results/``, where scorers look)."""
    base = Path(out)
    name = modelname(participant)
    return SessionFiles(
        results=base / "results" / f"{PROMPTING}___{name}___results.jsonl",
        practice=base / "practice" / f"{PROMPTING}___{name}___practice.jsonl",
        plan=base / "sessions" / f"{name}_session-{session}.plan.json",
        lock=base / "sessions" / f".{name}.lock",
    )


class WorldSenseTaskSession:
    """The WorldSense part of one session (a :class:`~benchlab.annotations.session.runner.TaskSession`, the
    runner's ``task_session``): options, records and practice feedback for items named by their Key."""

    name = "worldsense"
    response_log = ResponseLog

    def __init__(self, trials: Sequence[Trial] | TrialIndex) -> None:
        # With the cached index only the trials the plan names are ever read (and validated) from disk.
        self._index = trials if isinstance(trials, TrialIndex) else None
        self._by_key = {} if isinstance(trials, TrialIndex) else {str(t.Key): t for t in trials}

    def _trial(self, item_id: str) -> Trial:
        found = self._by_key.get(item_id)
        if found is None and self._index is not None:
            try:
                found = self._index.trial(int(item_id))
            except ValueError:
                found = None
            if found is not None:
                self._by_key[item_id] = found
        if found is None:
            raise BenchlabError(f"the session plan names Key {item_id}, which is not in this test set")
        return found

    def tuple_of(self, item_id: str) -> str | None:
        """The tuple of the trial with this Key (``None`` when the test set has none)."""
        if self._index is not None:
            try:
                return self._index.tuple_of(int(item_id))
            except ValueError:
                return None
        found = self._by_key.get(item_id)
        return found.tuple_ID if found is not None else None

    def check_plan(self, plan: SessionPlan) -> None:
        for item in [*plan.practice, *plan.main_items]:
            self._trial(item)

    def prompt(self, item_id: str) -> Choice:
        """What the participant sees (no gold answer): the question text and its answers as buttons."""
        shown: TrialPrompt = self._trial(item_id).prompt()
        return Choice(shown.text, tuple(shown.expectedresp))

    def options(self, item_id: str) -> tuple[str, ...]:
        return tuple(self._trial(item_id).expectedresp)

    def gold(self, item_id: str) -> str | None:
        return self._trial(item_id).goldresp

    def feedback(self, item_id: str, response: str) -> Feedback | None:
        trial = self._trial(item_id)
        if trial.is_correct(response):
            return Feedback(True, "Correct.")
        if trial.goldresp == "3":
            return Feedback(False, "Not quite: from the description it is impossible to decide.")
        if trial.problemname.startswith("Compl"):
            return Feedback(False, "Not quite: the description does decide this one.")
        return Feedback(False, f"Not quite: the answer was {trial.goldresp}.")

    def make_record(
        self, plan: SessionPlan, step: PlannedStep, response: str, timing: ResponseTiming, *, skipped: bool,
        simulated: str | None,
    ) -> dict[str, Any]:
        client = timing.client_fields
        model = WebHumanResponse if any(v is not None for v in client.values()) else HumanResponse
        extra = client if model is WebHumanResponse else {}
        record = model(
            Key=self._trial(step.item_id).Key, resp=response, rt_ms=timing.rt_ms, onset_mono=timing.onset_mono,
            response_mono=timing.response_mono, requested_mono=timing.requested_mono,
            handler_mono=timing.handler_mono, onset_source=timing.onset_source, timestamp=timing.wall_clock,
            participant=plan.participant,
            session=plan.session, trial_index=step.index, block=step.block, practice=step.practice,
            skipped=skipped, input=timing.input, ignored_keys=timing.ignored_keys, simulated=simulated,
            plan_seed=plan.seed, interrupted=timing.interrupted, first_onset_mono=timing.first_onset_mono, **extra,
        )
        return {**record.model_dump(mode="python"), **worldsense_hashes(self._trial(step.item_id))}

    def item_id_of(self, record: dict[str, Any]) -> str:
        key = record["Key"]
        if not isinstance(key, int) or isinstance(key, bool):
            raise ValueError(f"Key {key!r} is not an integer")
        return str(key)

    def answer_of(self, record: dict[str, Any]) -> str:
        return str(record["resp"])


def worldsense_session_parts(
    trials: Sequence[Trial] | TrialIndex, *, dataset: str | Path, participant: str, session: str = "1", out: str | Path,
    options: WorldSensePlanOptions | None = None,
) -> SessionParts:
    """A WorldSense session over ``trials`` (loaded, or the cached index): its files, its part, and how its plan is
    built."""
    files = worldsense_files(out, participant, session)
    task = WorldSenseTaskSession(trials)

    def build(plan_seed: int) -> SessionPlan:
        # Tuples this participant already saw (scored, or as practice with feedback) are not sampled again.
        earlier = ResponseLog(files.results, task.item_id_of).answered() | ResponseLog(
            files.practice, task.item_id_of).answered()
        exclude = {tid for tid in map(task.tuple_of, earlier) if tid is not None}
        return build_worldsense_plan(trials, dataset=str(dataset), participant=participant, session=session,
                                     seed=plan_seed, options=options, exclude_tuples=exclude)

    return SessionParts(task="worldsense", participant=participant, session=session, files=files, task_session=task,
                        build=build)


def prepare_worldsense_session(
    trials: Sequence[Trial], *, dataset: str | Path, participant: str, session: str = "1", out: str | Path,
    seed: int | None = None, options: WorldSensePlanOptions | None = None, resume: bool = False,
    text: SessionText | None = None, simulated: str | None = None,
) -> SessionRunner:
    """A WorldSense session over trials already loaded (the notebook API): new, or with ``resume`` continued when
    its plan is saved; opened like every session (:func:`~benchlab.annotations.session.opening.open_parts`)."""
    parts = worldsense_session_parts(trials, dataset=dataset, participant=participant, session=session, out=out,
                                     options=options)
    return open_parts(parts, seed=seed, resume=resume, text=text, simulated=simulated)
