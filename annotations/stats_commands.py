"""Commands about the statistics every benchmark comparison shares (not one benchmark's): ``bench coverage`` and
``power worldsense|sort``.

Declared here once, like a benchmark's commands (:class:`~benchlab.annotations.task.Command`); ``benchlab.tui``
turns them into command-line commands. The harness itself lives beside what it measures
(:mod:`benchlab.data.analysis.coverage`).
"""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.command_options import FormatOptions
from benchlab.annotations.command_output import err
from benchlab.annotations.options import Options, option
from benchlab.annotations.task import Command, ToolGroup
from benchlab.data.errors import BenchlabError


class _CoverageOwn(Options):
    studies: int = option(1000, label="Simulated studies per setting", ge=20, le=100_000,
                          help="Simulated studies per number of participants (>= 500 for the published table).")
    seed: int = option(1, label="Seed", help="Seed of the simulation (the table is reproducible).")
    participants: tuple[int, ...] = option((3, 5, 10, 20), label="Participants", flag="--participants",
                                           help="Numbers of participants to simulate (repeatable).")
    items: int = option(40, label="Items per study", ge=4, le=5000, help="Items every simulated person answers.")
    accuracy: float = option(0.75, label="Population accuracy", gt=0.05, lt=0.95,
                             help="Mean accuracy of the simulated people (and of the model: a true difference of 0).")
    person_sd: float = option(0.08, label="Between-person SD", ge=0, le=0.3,
                              help="SD of the people's accuracies (probability scale).")
    item_sd: float = option(1.0, label="Item difficulty SD (logit)", ge=0, le=4,
                            help="SD of item difficulty on the logit scale.")
    n_boot: int = option(1000, label="Resamples of the item-only bootstrap", flag="--boot", ge=200, le=20_000,
                         help="Resamples (and random sign flips) of the item-only methods shown for contrast.")


class CoverageOptions(FormatOptions, _CoverageOwn):
    """``benchlab bench coverage``."""


def coverage(opts: CoverageOptions) -> str:
    from benchlab.data.analysis.coverage import COVERAGE_TARGET, FPR_TARGET, coverage_table, run_coverage
    from benchlab.data.tables import Table, render

    if any(p < 2 for p in opts.participants):
        raise BenchlabError("--participants: each number must be at least 2 (one person has no spread to estimate)")
    pop, results, seconds = run_coverage(tuple(opts.participants), opts.items, opts.studies, opts.seed,
                                         opts.accuracy, opts.person_sd, opts.item_sd, opts.n_boot)
    err(f"{sum(r.studies for r in results):,} simulated studies in {seconds:.1f} s")
    lo, hi = COVERAGE_TARGET
    title = (f"Coverage of nominal 95% intervals for the pooled human accuracy and false-positive rate of the "
             f"human-vs-model test at a true difference of 0 (population accuracy {pop.accuracy:.2f}, person SD "
             f"{pop.person_sd:.2f} = logit SD {pop.person_logit_sd:.2f}, item logit SD {pop.item_logit_sd:.2f}; "
             f"seed {opts.seed}; target: coverage {100 * lo:.0f}-{100 * hi:.0f}%, FPR <= {100 * FPR_TARGET:.0f}%). "
             "crossed = people x items (what compare prints); item-bootstrap / item sign-flip = the item-only "
             "methods used before, which treat the people as fixed")
    return render([Table(title, coverage_table(results))], opts.fmt)


COVERAGE = Command("bench", "Coverage of the pooled-human 95% intervals and false-positive rate of the human-vs-model "
                   "test in simulated studies (3-20 people, item spread), beside the item-only bootstrap.",
                   CoverageOptions, coverage, name="coverage")



# -- power worldsense|sort -------------------------------------------------------------------------------------------
POWER = ToolGroup("power", "Plan a study: expected pooled CI width and power against a model's published score, by "
                  "simulation through the comparison's own intervals and tests.")


class _PowerOwn(Options):
    participants: int = option(10, label="Participants", ge=2, le=500, help="Participants planned.")
    human_accuracy: float = option(0.75, label="Assumed human accuracy", gt=0.05, lt=0.99,
                                   help="Assumed mean accuracy of the people (ignored with --pilot).")
    person_sd: float = option(0.08, label="Between-person SD", ge=0, le=0.3,
                              help="Assumed SD of the people's accuracies, probability scale (ignored with --pilot).")
    item_sd: float = option(1.0, label="Item difficulty SD (logit)", ge=0, le=4, help="SD of item difficulty (logit).")
    target_power: float = option(0.8, label="Target power", gt=0, lt=1,
                                 help="Also find the smallest number of participants with this power.")
    simulations: int = option(300, label="Simulated studies", ge=50, le=20_000,
                              help="Simulated studies per number of participants.")
    seed: int = option(1, label="Seed", help="Seed of the simulation.")
    max_participants: int = option(100, label="Largest number of participants searched", ge=2, le=500,
                                   help="Largest number of participants the search tries.")


class PowerWorldSenseOptions(FormatOptions, _PowerOwn):
    """``benchlab power worldsense``: cells = problem x size (6 x 3 in the benchmark), tuples per cell."""

    cells: int = option(18, label="Cells", ge=1, le=200, help="Problem x size cells in the design.")
    items_per_cell: int = option(2, label="Tuples per cell", ge=1, le=500, help="Tuples each person answers per cell.")
    model_score: float = option(0.756, label="Model's published score", gt=0, lt=1,
                                help="The model's published accuracy (default: GPT-4's 75.6 on the test set).")


class PowerSortOptions(FormatOptions, _PowerOwn):
    """``benchlab power sort``: cells = distance bins (4 per configuration), trials per cell."""

    cells: int = option(4, label="Cells", ge=1, le=200, help="Distance-bin cells in the design.")
    items_per_cell: int = option(10, label="Trials per cell", ge=1, le=500, help="Trials each person answers per bin.")
    model_score: float = option(0.53, label="Model's published score", gt=0, lt=1,
                                help="The model's published accuracy (default: GPT-4's 0.53 on the paper's human "
                                "LTM pairs).")
    pilot: Path | None = option(None, label="Pilot results", widget="path",
                                help="SORT results folder of the people tested so far: their accuracy and spread "
                                "replace --human-accuracy and --person-sd.")


def _power(opts: PowerWorldSenseOptions | PowerSortOptions, benchmark: str) -> str:
    from benchlab.data.analysis.power import Design, plan, power_table
    from benchlab.data.tables import Table, render

    accuracy, person_sd, source = opts.human_accuracy, opts.person_sd, "assumed"
    pilot = getattr(opts, "pilot", None)
    if pilot is not None:
        accuracy, person_sd, people = _pilot_sort(pilot)
        source = f"from the pilot data in {pilot} ({people} people)"
    design = Design("worldsense" if benchmark == "worldsense" else "sort", opts.cells, opts.items_per_cell)
    report = plan(design, accuracy, person_sd, opts.item_sd, opts.model_score, opts.participants, opts.simulations,
                  opts.seed, opts.target_power, opts.max_participants)
    err(f"{sum(r.simulations for r in report.rows):,} simulated studies in {report.seconds:.1f} s")
    unit = "tuples" if benchmark == "worldsense" else "trials"
    title = (f"{benchmark}: power of pooled humans vs a model (human accuracy {accuracy:.2f} and person SD "
             f"{person_sd:.2f} {source}; item logit SD {opts.item_sd:g}; model {opts.model_score:.3f}; "
             f"{opts.cells} cells x {opts.items_per_cell} {unit}; test: the comparison's crossed people x items "
             f"test, two-sided 5%; seed {opts.seed})")
    if report.smallest is not None:
        verdict = (f"Smallest number of participants with power >= {opts.target_power:.0%}: "
                   f"{report.smallest.participants} (power {report.smallest.power:.0%}, expected CI width "
                   f"{100 * report.smallest.ci_width:.1f} points).")
    elif report.plateau:
        verdict = (f"Power {opts.target_power:.0%} is not reached: it stops growing with more people because the "
                   f"{design.units} {unit} (and the model's own answers on them) limit it; plan more {unit} per "
                   "cell.")
    else:
        verdict = f"Power {opts.target_power:.0%} is not reached with up to {opts.max_participants} participants."
    return render([Table(title, power_table(report))], opts.fmt) + "\n" + verdict


def _pilot_sort(folder: Path) -> tuple[float, float, int]:
    """Mean accuracy and between-person SD of the real people in a SORT results folder (crossed moments)."""
    import math

    import numpy as np

    from benchlab.data.analysis.crossed import crossed_estimate
    from benchlab.data.sort.scoring import people_answers

    answers = people_answers([folder])
    if answers.empty:
        raise BenchlabError("no real participant's answers in the pilot folder", folder)
    est = crossed_estimate(answers["who"].to_numpy(dtype=object), answers["item"].to_numpy(dtype=object),
                           answers["correct"].to_numpy(dtype=float))
    sd = math.sqrt(max(0.0, est.person_var)) if est.person_var == est.person_var else 0.08
    return float(np.clip(est.value, 0.06, 0.98)), float(min(sd, 0.3)), est.n_people


def power_worldsense(opts: PowerWorldSenseOptions) -> str:
    return _power(opts, "worldsense")


def power_sort(opts: PowerSortOptions) -> str:
    return _power(opts, "sort")


POWER_WORLDSENSE = Command("tool", "WorldSense: expected pooled CI width and power against a model's published "
                           "score, and the smallest number of participants for a target power.",
                           PowerWorldSenseOptions, power_worldsense, name="worldsense", tool=POWER)
POWER_SORT = Command("tool", "SORT: expected pooled CI width and power against a model's published score (or from "
                     "pilot data), and the smallest number of participants for a target power.",
                     PowerSortOptions, power_sort, name="sort", tool=POWER)

COMMANDS = (COVERAGE, POWER_WORLDSENSE, POWER_SORT)
