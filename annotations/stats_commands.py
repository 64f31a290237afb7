"""Commands about the statistics every benchmark comparison shares (not one benchmark's): ``bench coverage`` and
``power NAME``.

Declared here once, like a benchmark's commands (:class:`~benchlab.annotations.task.Command`); ``benchlab.tui``
turns them into command-line commands. The harness itself lives beside what it measures
(:mod:`benchlab.data.analysis.coverage`). ``power NAME`` is made for every declaration offering
:class:`~benchlab.annotations.task.PlansPower` (:func:`power_commands`): the task gives its design and published
scores, the simulation is the same for all.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchlab.annotations.cards import help_of
from benchlab.annotations.command_options import FormatOptions
from benchlab.annotations.command_output import err
from benchlab.annotations.core_cards import CARDS
from benchlab.annotations.coverage_designs import chosen_designs, declared_designs
from benchlab.annotations.options import Options, option, options_model
from benchlab.annotations.registry import registry
from benchlab.annotations.task import Benchmark, Command, PlansPower, PowerPlanning, ToolGroup
from benchlab.data.errors import BenchlabError
from benchlab.data.tables import Table, render


class _CoverageOwn(Options):
    studies: int = option(500, label="Simulated studies per setting", ge=20, le=100_000,
                          help="Simulated studies per setting (design x person SD x participants; >= 500 for the "
                          "published table).")
    seed: int = option(1, label="Seed", help="Seed of the simulation (the table is reproducible).")
    participants: tuple[int, ...] = option((3, 5, 10, 20), label="Participants", flag="--participants",
                                           help="Numbers of participants to simulate (repeatable).")
    design: tuple[str, ...] = option(
        (), label="Designs", flag="--design",
        help="Designs to simulate (repeatable; default: every design the installed benchmarks declare; a wrong "
        "name lists them).")
    items: int = option(36, label="Units per person (sized designs)", ge=4, le=5000,
                        help="Units every simulated person answers in a design sized by it (spread over its "
                        "cells, everyone the same units); other designs keep their own.")
    accuracy: float = option(0.75, label="Population accuracy", gt=0.05, lt=0.95,
                             help="Mean accuracy of the simulated people (and of the model: a true difference of 0).")
    person_sd: tuple[float, ...] = option((0.08, 0.17, 0.25), label="Between-person SD", flag="--person-sd",
                                          help="SDs of the people's accuracies, probability scale (repeatable).")
    item_sd: float = option(1.0, label="Item difficulty SD (logit)", ge=0, le=4,
                            help="SD of item difficulty on the logit scale.")
    n_boot: int = option(1000, label="Resamples (kept for old command lines)", flag="--boot", ge=200, le=20_000,
                         help="Accepted for old command lines; the table's methods need no resampling.")


class CoverageOptions(FormatOptions, _CoverageOwn):
    """``benchlab bench coverage``."""


def coverage(opts: CoverageOptions) -> str:
    # deferred: numpy, scipy and pandas load only when the command runs (``benchlab --help`` stays quick)
    from benchlab.data.analysis.coverage import COVERAGE_TARGET, FPR_TARGET
    from benchlab.data.analysis.coverage_grid import grid_table, run_grid
    from benchlab.data.analysis.study_sim import SimDesign

    if any(p < 2 for p in opts.participants):
        raise BenchlabError("--participants: each number must be at least 2 (one person has no spread to estimate)")
    if any(not 0 <= sd <= 0.3 for sd in opts.person_sd):
        raise BenchlabError("--person-sd: each SD must be between 0 and 0.3")
    designs = chosen_designs(declared_designs(registry().benchmarks.values()), opts.design, opts.items)
    sims = [SimDesign(d.label, d.cells, d.pool_per_cell, d.per_person_per_cell, d.answers_per_unit, d.stratified)
            for d in designs]
    rows, seconds = run_grid(sims, tuple(opts.person_sd), tuple(opts.participants), opts.studies, opts.seed,
                             opts.accuracy, opts.item_sd)
    err(f"{sum(r.studies for r in rows):,} simulated studies in {seconds:.1f} s")
    lo, hi = COVERAGE_TARGET
    title = (f"Coverage of the pooled humans' nominal 95% interval and false-positive rate of the pooled "
             f"humans-vs-model test at a true difference of 0, as `compare` computes them (crossed people x items, "
             f"variance x (1 + 1/people), t with df = min(Satterthwaite, people - 1), accuracy interval "
             f"on the logit scale); population "
             f"accuracy {opts.accuracy:.2f}, item logit SD {opts.item_sd:g}, seed {opts.seed}; target: coverage "
             f"{100 * lo:.0f}-{100 * hi:.0f}%, FPR <= {100 * FPR_TARGET:.0f}% (wider than nominal is allowed, "
             "narrower never)")
    return render([Table(title, grid_table(rows))], opts.fmt)


COVERAGE = Command("bench", help_of(CARDS, "bench coverage"), CoverageOptions, coverage, name="coverage")



# -- power NAME --------------------------------------------------------------------------------------------------------
POWER = ToolGroup("power", help_of(CARDS, "power"))


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


class PowerOptions(FormatOptions, _PowerOwn):
    """``benchlab power NAME``. The design fields are placeholders here: :func:`power_options` gives each task's
    command its own defaults and help texts (and ``--pilot`` where the task reads pilot data)."""

    cells: int = option(1, label="Cells", ge=1, le=200, help="Cells (strata) in the design.")
    items_per_cell: int = option(1, label="Units per cell", ge=1, le=500, help="Units each person answers per cell.")
    model_score: float = option(0.5, label="Model's published score", gt=0, lt=1,
                                help="The model's published accuracy.")
    pilot: Path | None = option(None, label="Pilot results", widget="path", cli=False, form=False,
                                help="Results folder of the people tested so far.")


def power_options(name: str, planning: PowerPlanning) -> type[PowerOptions]:
    """:class:`PowerOptions` with the task's design as defaults (bounds, flags and order unchanged)."""
    unit = planning.unit.capitalize()
    model, score = next(iter(planning.model_scores.items()))
    fields: dict[str, Any] = {
        "cells": (int, option(planning.cells, label="Cells", ge=1, le=200, help=planning.cells_help)),
        "items_per_cell": (int, option(planning.units_per_cell, label=f"{unit} per cell", ge=1, le=500,
                                       help=planning.units_per_cell_help or f"{unit} each person answers per cell.")),
        "model_score": (float, option(score, label="Model's published score", gt=0, lt=1,
                                      help=planning.model_score_help or "The model's published accuracy (default: "
                                      f"{model}'s {score:g}).")),
    }
    if planning.pilot is not None:
        fields["pilot"] = (Path | None, option(None, label="Pilot results", widget="path", help=planning.pilot_help))
    return options_model(f"Power{name.title().replace('-', '').replace('.', '')}Options", PowerOptions, **fields)


def power(opts: PowerOptions, name: str, planning: PowerPlanning) -> str:
    """The table and verdict of ``benchlab power NAME`` (how long the simulation took goes to stderr)."""
    # deferred: numpy, scipy and pandas load only when the command runs (``benchlab --help`` stays quick)
    from benchlab.data.analysis.power import Design, plan, power_table

    accuracy, person_sd, source = opts.human_accuracy, opts.person_sd, "assumed"
    if opts.pilot is not None and planning.pilot is not None:
        accuracy, person_sd, people = planning.pilot(opts.pilot)
        source = f"from the pilot data in {opts.pilot} ({people} people)"
    unit = planning.unit
    design = Design(unit, planning.answers_per_unit, opts.cells, opts.items_per_cell, planning.pool_per_cell,
                    planning.stratified)
    report = plan(design, accuracy, person_sd, opts.item_sd, opts.model_score, opts.participants, opts.simulations,
                  opts.seed, opts.target_power, opts.max_participants)
    err(f"{sum(r.simulations for r in report.rows):,} simulated studies in {report.seconds:.1f} s")
    title = (f"{name}: power of pooled humans vs a model (human accuracy {accuracy:.2f} and person SD "
             f"{person_sd:.2f} {source}; item logit SD {opts.item_sd:g}; model {opts.model_score:.3f}; "
             f"{opts.cells} cells x {opts.items_per_cell} {unit}"
             + (f" per person, each person's own subset of {planning.pool_per_cell} per cell (as the session engine "
                "draws them; the model on all)" if planning.pool_per_cell > opts.items_per_cell else
                ", the same for every person")
             + f"; test: the comparison's crossed people x items test, two-sided 5%; seed {opts.seed})")
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


def power_command(benchmark: Benchmark) -> Command | None:
    """``benchlab power NAME`` for a declaration that plans power (``None`` for one that does not)."""
    if not isinstance(benchmark, PlansPower):
        return None
    return planned_power_command(benchmark.name, benchmark.power_planning())


def planned_power_command(name: str, planning: PowerPlanning) -> Command:
    """``benchlab power NAME`` for the design ``planning`` (a benchmark's card names a factory of it, so that its
    help page is laid out without loading the task)."""
    return Command("tool", planning.help, power_options(name, planning),
                   lambda opts: power(opts, name, planning), name=name, tool=POWER)


def power_commands(benchmarks: Iterable[Benchmark]) -> tuple[Command, ...]:
    """``benchlab power NAME`` for every declaration offering :class:`~benchlab.annotations.task.PlansPower`."""
    return tuple(cmd for cmd in map(power_command, benchmarks) if cmd is not None)


COMMANDS = (COVERAGE,)
