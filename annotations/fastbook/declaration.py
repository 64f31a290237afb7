"""fastbook-benchmark's declaration in the ``benchlab.tasks`` group: a benchmark people curate, not a task that
runs sessions, so it declares its commands and what it offers (its curation edits as trial export) and no session.

(Minimal form made on the export branch; the wiring branch creates the full one.)
"""

from __future__ import annotations

from collections.abc import Sequence

from benchlab.annotations.fastbook.commands import COMMANDS
from benchlab.annotations.fastbook.trial_export import TRIALS
from benchlab.annotations.task import Benchmark, Command, TrialRows


class FastbookDeclaration:
    """The fastbook :class:`~benchlab.annotations.task.Benchmark` (with :class:`~benchlab.annotations.task.
    ExportsTrials`: one row per logged curation edit)."""

    name: str = "fastbook"
    title: str = "fastbook-benchmark"
    description: str = "Curating the answer contexts of fastbook-benchmark's questions (audit, edit, score runs)."
    commands: Sequence[Command] = COMMANDS
    trial_export: TrialRows = TRIALS


BENCHMARK: Benchmark = FastbookDeclaration()
