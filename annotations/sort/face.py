"""What ``benchlab run sort`` and ``benchlab serve sort`` are made from (a
:class:`~benchlab.annotations.task_face.TaskFace`): the task's name, words, session and plan options. The task
(:mod:`benchlab.annotations.sort.task`) takes them from here; the help pages of the two commands are laid out from
here alone (the cards name :data:`FACE`), without the session engine the task module loads.
"""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.options import option
from benchlab.annotations.sort.plan_options import SortPlanOptions
from benchlab.annotations.task import SessionOptions
from benchlab.annotations.task_face import TaskFace


class SortSessionOptions(SessionOptions):
    """The common session options; the data set is given with ``--data`` (a BookSORT folder or file). Practice
    feedback is always given in SORT, so it has no ``--no-feedback`` flag."""

    dataset: Path | None = option(None, label="Data set (BookSORT folder or file)", flag="--data", widget="path",
                                  help="BookSORT folder or file (parquet, three CSVs or JSONL). Default: the bundled "
                                  "sample.")
    out: Path | None = option(None, label="Output folder", widget="folder",
                              help="Output folder (default: ./benchlab-results/sort/<data folder name>).")
    feedback: bool = option(True, label="Feedback after practice trials", negate="--no-feedback", cli=False,
                            help="No correct/incorrect feedback after practice trials.")


FACE = TaskFace(
    name="sort",
    title="SORT (BookSORT)",
    description="Read a book passage, then say which of two segments came first (STM), or from memory (LTM).",
    session_options=SortSessionOptions,
    plan_options=SortPlanOptions,
    # ``always-a`` is the ``biased`` policy (always the first option, A): it scores the share of A ground truths.
    simulated_policies=("random", "oracle", "always-a"),
)
