"""How long a session will take, for the experimenter's preview before handing over.

From earlier real participants in the same results folder when there are enough of them (their median time per
trial, reading included), else an assumed time per trial that the preview names as an assumption. Simulated
pilots' times are never used: they are whatever ``--sim-delay`` said.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    from benchlab.annotations.session.runner import SessionRunner

#: Assumed seconds per trial with no earlier participants to go by (reading, answering, moving on).
DEFAULT_SECONDS_PER_TRIAL = 10.0
#: Assumed seconds per break between blocks (self-paced; most people take a short one).
SECONDS_PER_BREAK = 30.0
#: Trials by real people needed before their median replaces the assumption.
MIN_TRIALS = 20
#: Time around each response that RTs do not hold (feedback, the next screen).
OVERHEAD_S = 1.0


@dataclass(frozen=True)
class DurationEstimate:
    seconds: float
    basis: str

    def describe(self) -> str:
        minutes = max(1, round(self.seconds / 60))
        return f"about {minutes} min ({self.basis})"


def _trial_seconds(record: dict[str, Any]) -> float | None:
    if record.get("simulated") or record.get("skipped"):
        return None
    total = 0.0
    for field in ("rt_ms", "reading_ms"):
        value = record.get(field)
        if value in (None, ""):
            if field == "rt_ms":
                return None
            continue
        try:
            total += float(value) / 1000
        except (TypeError, ValueError):
            return None
    return total + OVERHEAD_S


def estimate_duration(runner: SessionRunner) -> DurationEstimate:
    """The time the remaining trials of ``runner`` will take, with what the figure rests on."""
    results = runner.files.results
    seconds: list[float] = []
    people = 0
    for path in sorted(results.parent.glob(f"*{results.suffix}")) if results.parent.is_dir() else []:
        if path == results or "results" not in path.name:
            continue
        try:
            records = runner.task_session.response_log(path, runner.task_session.item_id_of).peek()
        except (BenchlabError, OSError, ValueError):
            continue  # not a results file of this task: the estimate does without it
        found = [s for s in map(_trial_seconds, records) if s is not None]
        people += bool(found)
        seconds += found
    left = len(runner.remaining_steps())
    breaks = max(0, runner.n_blocks - 1) * SECONDS_PER_BREAK
    if len(seconds) >= MIN_TRIALS:
        per_trial = statistics.median(seconds)
        basis = (f"median {per_trial:.1f} s per trial over {len(seconds)} trials of {people} earlier "
                 f"participant{'s' if people != 1 else ''} in this folder, plus breaks")
    else:
        per_trial = DEFAULT_SECONDS_PER_TRIAL
        basis = f"assuming {per_trial:g} s per trial and short breaks: too few earlier participants in this folder"
    return DurationEstimate(per_trial * left + breaks, basis)
