"""fastbook-benchmark as a ``benchlab.tasks`` entry: a benchmark that scores and curates but runs no sessions.

It satisfies :class:`~benchlab.annotations.task.Benchmark` (not ``Task``), so the registry keeps it in
``Registry.benchmarks`` for its commands (``score fastbook``, ``compare fastbook``, ``benchlab fastbook ...``,
``bench fastbook``) and never offers it a session, a launcher line or a Results entry. It also offers
:class:`~benchlab.annotations.task.ExportsTrials`: one row per logged curation edit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchlab.annotations.fastbook.commands import COMMANDS
from benchlab.annotations.fastbook.trial_export import TRIALS
from benchlab.annotations.task import Command, TrialRows


@dataclass(frozen=True)
class FastbookBenchmark:
    """The declaration: a name, a title, a description, the commands and the trial export of curation edits."""

    name: str
    title: str
    description: str
    commands: Sequence[Command]
    trial_export: TrialRows


BENCHMARK = FastbookBenchmark(
    name="fastbook",
    title="fastbook-benchmark",
    description="Retrieval contexts of the fastbook-benchmark: score retrieval runs (MRR@k, Recall@k), compare "
                "curators, audit and curate the contexts.",
    commands=COMMANDS,
    trial_export=TRIALS,
)
