"""Commands about the statistics every benchmark comparison shares (not one benchmark's): ``bench coverage``.

Declared here once, like a benchmark's commands (:class:`~benchlab.annotations.task.Command`); ``benchlab.tui``
turns them into command-line commands. The harness itself lives beside what it measures
(:mod:`benchlab.data.analysis.coverage`).
"""

from __future__ import annotations

from benchlab.annotations.command_options import FormatOptions
from benchlab.annotations.command_output import err
from benchlab.annotations.options import Options, option
from benchlab.annotations.task import Command
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

#: Every shared statistics command.
COMMANDS = (COVERAGE,)
