"""Option groups several benchmark commands share, declared once (``--format``, ``--boot``, ``--seed``, ``--only``,
``--plot`` and the attention criterion).

A command's options model inherits the groups it offers. pydantic lists the fields of *later* bases first and the
model's own fields last, so a model that shows its own options first and then e.g. the attention criterion, the
bootstrap and the format is written ``class X(FormatOptions, BootOptions, AttentionOptions, _XOwn)``: bases in the
reverse of the order ``--help`` shows them (see :func:`benchlab.annotations.options.option_infos`).

Kept free of heavy imports so ``benchlab --help`` stays quick.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from benchlab.annotations.options import Options, option
from benchlab.data.analysis.defaults import DEFAULT_BOOT, DEFAULT_SEED

if TYPE_CHECKING:
    from benchlab.data.analysis.stats import AttentionCriterion

#: The table formats of :func:`benchlab.data.tables.render`.
TableFormat = Literal["table", "csv", "json", "markdown", "latex"]

#: Figure widths (journal column 3.5 in, full page 7 in) and file formats of ``--plot``.
PlotWidth = Literal["column", "page"]
PlotFormat = Literal["pdf", "svg", "png"]
PlotModelItems = Literal["same", "all"]

#: The tables ``compare`` can print alone (``--only``).
Section = Literal["accuracy", "bias", "counts", "tests", "spread", "flags", "rt", "rt-quantiles", "agreement",
                  "methods", "reading"]


class FormatOptions(Options):
    """``--format``: how tables are printed."""

    fmt: TableFormat = option("table", label="Output format", flag="--format", help="Output format of the tables.")


class BootOptions(Options):
    """``--boot``: bootstrap resamples of the comparisons (the Results screen uses the same default)."""

    n_boot: int = option(DEFAULT_BOOT, label="Bootstrap resamples", flag="--boot", ge=200, le=200_000,
                         help="Bootstrap resamples for CIs (and random sign flips of the paired test when it cannot "
                         "be exact).")


class SeedOptions(Options):
    """``--seed``: the bootstrap seed, fixed by default so tables are reproducible."""

    seed: int = option(DEFAULT_SEED, label="Bootstrap seed", help="Seed of the bootstrap (tables are reproducible).")


class SectionsOptions(Options):
    """``--only``: print some of a comparison's tables."""

    sections: tuple[Section, ...] = option((), label="Tables", flag="--only",
                                           help="Print only these tables (repeatable; bias only where the "
                                           "comparison has a bias table); default: all.")


class PlotOptions(Options):
    """``--plot``: also write a publication figure."""

    plot_path: Path | None = option(None, label="Figure file", flag="--plot", widget="path", metavar="FILE",
                                    help="Also write a figure (accuracy per problem/condition, 95% CIs, humans next "
                                    "to models): .png, .svg, .pdf.")
    plot_width: PlotWidth = option("page", label="Figure width",
                                   help="Width of the --plot figure: column (3.5 in) or page (7 in); fonts are "
                                   "sized to be read at that width.")
    plot_formats: tuple[PlotFormat, ...] = option((), label="Figure formats", flag="--plot-format",
                                                  help="Write the --plot figure in these formats (repeatable: vector "
                                                  "pdf, svg; png at 300 dpi), named after --plot with each suffix; "
                                                  "default: the format of the --plot suffix.")
    plot_pilots: bool = option(False, label="Draw simulated pilots",
                               help="Draw simulated pilots in their own panel of the --plot figure (default: left "
                               "out, with a note); never among people.")
    plot_model_items: PlotModelItems = option("same", label="Model bars cover",
                                              help="Items behind each model's bar in the --plot figure: same (the "
                                              "items the people answered in that condition, as the tests pair "
                                              "them) or all (every item the model answered).")
    plot_rt: bool = option(True, label="Draw response-time panels", negate="--no-plot-rt",
                           help="Draw the response-time panels (per-participant ECDFs) under the accuracy panels of "
                           "the --plot figure (--no-plot-rt: accuracy only).")


class AttentionOptions(Options):
    """The experimenter's attention criterion, shared by the benchmark comparisons (shown in this order)."""

    min_control_acc: float | None = option(None, label="Minimum control accuracy", ge=0, le=1,
                                           help="Flag participants below this accuracy on control items "
                                           "(the items the task counts as control: e.g. its trivial problems, or "
                                           "every trial).")
    fast_ms: float | None = option(None, label="Too fast (ms)", ge=0,
                                   help="Responses faster than this (ms) count as too fast.")
    max_fast_share: float = option(0.1, label="Largest share of too-fast responses", ge=0, le=1,
                                   help="Share of too-fast responses a participant may have before being flagged.")
    exclude_flagged: bool = option(False, label="Exclude flagged participants",
                                   help="Leave flagged participants out of the pooled humans (they keep their own "
                                   "row).")
    include_simulated: bool = option(False, label="Pool simulated participants",
                                     help="Pool simulated participants (--simulate pilots) with people; by default "
                                     "they keep their own labelled row only.")
    exclude: tuple[str, ...] = option((), label="Exploratory exclusion rules", flag="--exclude", form=False,
                                      metavar="RULE",
                                      help="An exclusion rule chosen after the data, e.g. rt_floor:ms=200 "
                                      "(repeatable; labelled exploratory; a study's declared [[exclusions]] apply "
                                      "always; docs/report.md).")

    def criterion(self) -> AttentionCriterion:
        """The criterion these options describe."""
        # deferred: scipy and numpy load only when `criterion` runs (this module loads with the CLI)
        from benchlab.data.analysis.stats import AttentionCriterion

        return AttentionCriterion(min_control_accuracy=self.min_control_acc, fast_ms=self.fast_ms,
                                  max_fast_share=self.max_fast_share)


class CorrectionOptions(Options):
    """The multiplicity correction of the comparison's primary family of tests."""

    correction: Literal["holm", "bonferroni", "none"] = option(
        "holm", label="Correction of the primary tests", problem="must be holm, bonferroni or none, not {input!r}",
        help="Multiplicity correction of the primary family (pooled humans vs each model overall): holm "
        "(default), bonferroni or none; other tests are exploratory (uncorrected, no stars).")


class SameItemsOptions(Options):
    """``--all-items``: whether ``score`` and ``compare`` cut each model to the items people answered (the default;
    :mod:`benchlab.data.models.same_items`), declared once for every command that scores people beside models."""

    all_items: bool = option(False, label="Models on all their items",
                             help="Score each model on every item it answered, not only on the items people "
                             "answered (the default restricts both sides to the same items).")


class ComparisonOptions(SameItemsOptions, PlotOptions, FormatOptions, SectionsOptions, SeedOptions, BootOptions,
                        CorrectionOptions, AttentionOptions):
    """Everything a humans-vs-models comparison offers beyond its inputs, in ``--help`` order: the attention
    criterion, the correction, ``--boot``, ``--seed``, ``--only``, ``--format``, ``--plot``, ``--all-items``."""

    def tables_needed(self) -> tuple[str, ...] | None:
        """The tables the comparison must compute: the ``--only`` ones; all (``None``) for a figure or no ``--only``."""
        return None if self.plot_path is not None or not self.sections else tuple(self.sections)
