"""What ``benchlab run worldsense`` and ``benchlab serve worldsense`` are made from (a
:class:`~benchlab.annotations.task_face.TaskFace`): the task's name, words, session and plan options. The task
(:mod:`benchlab.annotations.worldsense.task`) takes them from here; the help pages of the two commands are laid
out from here alone (the cards name :data:`FACE`), without the session engine the task module loads.
"""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.options import option
from benchlab.annotations.task import SessionOptions
from benchlab.annotations.task_face import POLICIES, TaskFace
from benchlab.annotations.worldsense.plan_options import WorldSensePlanOptions


class WorldSenseSessionOptions(SessionOptions):
    """The common session options; the data set is a test set, given with ``-t/--testset`` as everywhere in
    WorldSense's commands."""

    dataset: Path | None = option(None, label="Data set (test-set folder or trials file)", flag="--testset",
                                  short="-t", widget="path",
                                  help="Test-set folder (or trials file). Default: the bundled sample.")
    out: Path | None = option(None, label="Output folder", widget="folder",
                              help="Output folder (default: ./benchlab-results/worldsense/<test set name>).")


FACE = TaskFace(
    name="worldsense",
    title="WorldSense",
    description="Reasoning about orderings: TRUE/FALSE, POSSIBLE/IMPOSSIBLE and (1)/(2)/(3) questions.",
    session_options=WorldSenseSessionOptions,
    plan_options=WorldSensePlanOptions,
    simulated_policies=POLICIES,
)
