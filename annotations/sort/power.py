"""SORT's study design for ``benchlab power sort`` (:class:`~benchlab.annotations.task.PlansPower`).

A unit is one trial; the cells are the distance bins (4 per configuration); the default score to plan against is
GPT-4's published 0.53 on the paper's human LTM pairs. ``--pilot`` reads a SORT results folder of the people
tested so far.
"""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.cards import help_of
from benchlab.annotations.coverage_designs import CoverageDesign
from benchlab.annotations.sort.cards import CARDS
from benchlab.annotations.task import Command, PowerPlanning
from benchlab.data.errors import BenchlabError


def pilot_sort(folder: Path) -> tuple[float, float, int]:
    """Mean accuracy and between-person SD of the real people in a SORT results folder (crossed moments)."""
    # deferred: the scoring and the simulation load only when --pilot is given (the command line stays quick)
    from benchlab.data.analysis.power import pilot_moments
    from benchlab.data.sort.scoring import people_answers

    answers = people_answers([folder])
    if answers.empty:
        raise BenchlabError("no real participant's answers in the pilot folder", folder)
    return pilot_moments(answers["who"].to_numpy(dtype=object), answers["item"].to_numpy(dtype=object),
                         answers["correct"].to_numpy(dtype=float))

POWER_PLANNING = PowerPlanning(
    unit="trials",
    answers_per_unit=1,
    cells=4,
    units_per_cell=10,
    model_scores={"GPT-4": 0.53},
    help=help_of(CARDS, "power sort"),
    cells_help="Distance-bin cells in the design.",
    units_per_cell_help="Trials each person answers per bin.",
    model_score_help="The model's published accuracy (default: GPT-4's 0.53 on the paper's human LTM pairs).",
    pilot=pilot_sort,
    # `run sort` draws each person's own balanced subset from the configuration's trials (100 per bin in the
    # bundled sample), and models answer all of them
    pool_per_cell=100,
    stratified=False,  # compare's configuration column is the plain mean of the trials
    pilot_help="SORT results folder of the people tested so far: their accuracy and spread replace "
    "--human-accuracy and --person-sd.",
)


def power_command() -> Command:
    """``benchlab power sort`` as the CLI makes it from the task: its card names this, so that its ``--help`` page
    is laid out without loading the task."""
    # deferred: the power command's declaration loads only for that page (the task needs the planning alone)
    from benchlab.annotations.stats_commands import planned_power_command

    return planned_power_command("sort", POWER_PLANNING)


#: ``bench coverage``'s SORT designs: each person's own balanced subset (as ``run sort`` draws it), per configuration
#: (4 distance bins) and per bin.
COVERAGE_DESIGNS = (
    CoverageDesign("sort-config", "SORT configuration (20 trials per person: 5 per bin from 25, own subset each)",
                   cells=4, pool_per_cell=25, per_person_per_cell=5, stratified=False),
    CoverageDesign("sort-bin", "SORT distance bin (5 trials per person from 25, own subset each)",
                   cells=1, pool_per_cell=25, per_person_per_cell=5),
)
