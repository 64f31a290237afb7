"""WorldSense's study design for ``benchlab power worldsense`` (:class:`~benchlab.annotations.task.PlansPower`).

A unit is a TF/PI tuple of two items scored as the mean of its two answers; the cells are the benchmark's
problem x size strata (6 x 3); the default score to plan against is GPT-4's published 75.6 on the test set.
"""

from __future__ import annotations

from benchlab.annotations.cards import help_of
from benchlab.annotations.coverage_designs import CoverageDesign
from benchlab.annotations.task import Command, PowerPlanning
from benchlab.annotations.worldsense.cards import CARDS

POWER_PLANNING = PowerPlanning(
    unit="tuples",
    answers_per_unit=2,
    cells=18,
    units_per_cell=2,
    model_scores={"GPT-4": 0.756},
    help=help_of(CARDS, "power worldsense"),
    cells_help="Problem x size cells in the design.",
    model_score_help="The model's published accuracy (default: GPT-4's 75.6 on the test set).",
)


def power_command() -> Command:
    """``benchlab power worldsense`` as the CLI makes it from the task: its card names this, so that its ``--help`` page
    is laid out without loading the task."""
    # deferred: the power command's declaration loads only for that page (the task needs the planning alone)
    from benchlab.annotations.stats_commands import planned_power_command

    return planned_power_command("worldsense", POWER_PLANNING)


#: ``bench coverage``'s WorldSense design: crossed tuples over the 18 problem x size cells, everyone the same tuples
#: (``--items`` sets how many per person, as ``tuples_per_cell`` does for a session).
COVERAGE_DESIGNS = (
    CoverageDesign("worldsense", "WorldSense overall (18 problem x size cells x {per_cell} tuples, everyone the same "
                   "tuples)", cells=18, pool_per_cell=2, per_person_per_cell=2, answers_per_unit=2, sized=True),
)
