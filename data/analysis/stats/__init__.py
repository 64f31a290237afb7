"""Statistics for comparing people with models: CIs, paired/unpaired tests, agreement, response times.

Everything here works on plain arrays so the benchmark modules (tuples of problems, trials with an excerpt) can feed it
their own units. The library calls (statsmodels, scipy) are used where a standard implementation exists; the
tests check every function against hand-computed cases and against those libraries.

One module per kind of statistic: :mod:`.proportions` (intervals and tests on counts, the :class:`TestResult`
record), :mod:`.strata` (strata and rebalanced means), :mod:`.bootstrap` (bootstrap and permutation tests),
:mod:`.agreement` (between raters), :mod:`.response_times` (RTs, spread, the attention criterion) and
:mod:`.figure_cell`. They are gathered here because the comparisons use them as one namespace
(``stats.bootstrap_ci``, ``stats.wilson_ci``, ...).
"""

from __future__ import annotations

from benchlab.data.analysis.defaults import DEFAULT_BOOT, DEFAULT_SEED
from benchlab.data.analysis.stats.agreement import Agreement, agreement, cohen_kappa, fleiss_kappa, percent_agreement
from benchlab.data.analysis.stats.bootstrap import (
    EXACT_FLIPS_MAX,
    bootstrap_ci,
    paired_bootstrap,
    paired_permutation_test,
    sign_flip_interval,
    sign_flip_p,
    unpaired_bootstrap,
)
from benchlab.data.analysis.stats.figure_cell import FigureCell
from benchlab.data.analysis.stats.paired_score import tango_test
from benchlab.data.analysis.stats.proportions import (
    Z95,
    TestResult,
    binomial_vs_chance,
    clopper_pearson_ci,
    format_p,
    kish_n,
    mcnemar_test,
    newcombe_paired_ci,
    stars,
    two_proportion_test,
    wilson_ci,
    wilson_kish_ci,
)
from benchlab.data.analysis.stats.response_times import (
    AttentionCriterion,
    RTBin,
    RTSummary,
    Spread,
    accuracy_by_rt_quantile,
    rt_summary,
    spread,
)
from benchlab.data.analysis.stats.strata import has_constant_stratum, stratified_mean

__all__ = [
    "DEFAULT_BOOT",
    "DEFAULT_SEED",
    "EXACT_FLIPS_MAX",
    "Z95",
    "Agreement",
    "AttentionCriterion",
    "FigureCell",
    "RTBin",
    "RTSummary",
    "Spread",
    "TestResult",
    "accuracy_by_rt_quantile",
    "agreement",
    "binomial_vs_chance",
    "bootstrap_ci",
    "clopper_pearson_ci",
    "cohen_kappa",
    "fleiss_kappa",
    "format_p",
    "has_constant_stratum",
    "kish_n",
    "mcnemar_test",
    "newcombe_paired_ci",
    "paired_bootstrap",
    "paired_permutation_test",
    "percent_agreement",
    "rt_summary",
    "sign_flip_interval",
    "sign_flip_p",
    "spread",
    "stars",
    "stratified_mean",
    "tango_test",
    "two_proportion_test",
    "unpaired_bootstrap",
    "wilson_ci",
    "wilson_kish_ci",
]
