"""Statistics for comparing people with models: CIs, paired/unpaired tests, agreement, response times.

Everything here works on plain arrays so the benchmark modules (tuples of problems, trials with an excerpt) can feed it
their own units. The library calls (statsmodels, scipy) are used where a standard implementation exists; the
tests check every function against hand-computed cases and against those libraries.

One module per kind of statistic: :mod:`.proportions` (intervals and tests on counts, the :class:`TestResult`
record), :mod:`.strata` (strata and rebalanced means), :mod:`.bootstrap` (bootstrap and permutation tests),
:mod:`.agreement` (between raters), :mod:`.response_times` (RTs, spread, the attention criterion) and
:mod:`.figure_cell`. They are gathered here because the comparisons use them as one namespace
(``stats.bootstrap_ci``, ``stats.wilson_ci``, ...), imported on first use (PEP 562): a comparison that prints
no agreement table never loads :mod:`.agreement`, and ``import benchlab.data.analysis.stats.interval_memo`` runs
none of them.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from benchlab.data.lazy_api import lazy_attributes

#: public name -> (module, attribute)
_LAZY: dict[str, tuple[str, str]] = {
    "DEFAULT_BOOT": ("benchlab.data.analysis.defaults", "DEFAULT_BOOT"),
    "DEFAULT_SEED": ("benchlab.data.analysis.defaults", "DEFAULT_SEED"),
    "EXACT_FLIPS_MAX": ("benchlab.data.analysis.stats.bootstrap", "EXACT_FLIPS_MAX"),
    "Z95": ("benchlab.data.analysis.stats.proportions", "Z95"),
    "Agreement": ("benchlab.data.analysis.stats.agreement", "Agreement"),
    "AttentionCriterion": ("benchlab.data.analysis.stats.response_times", "AttentionCriterion"),
    "FigureCell": ("benchlab.data.analysis.stats.figure_cell", "FigureCell"),
    "RTBin": ("benchlab.data.analysis.stats.response_times", "RTBin"),
    "RTSummary": ("benchlab.data.analysis.stats.response_times", "RTSummary"),
    "Spread": ("benchlab.data.analysis.stats.response_times", "Spread"),
    "TestResult": ("benchlab.data.analysis.stats.proportions", "TestResult"),
    "accuracy_by_rt_quantile": ("benchlab.data.analysis.stats.response_times", "accuracy_by_rt_quantile"),
    "agreement": ("benchlab.data.analysis.stats.agreement", "agreement"),
    "binomial_vs_chance": ("benchlab.data.analysis.stats.proportions", "binomial_vs_chance"),
    "bootstrap_ci": ("benchlab.data.analysis.stats.bootstrap", "bootstrap_ci"),
    "clopper_pearson_ci": ("benchlab.data.analysis.stats.proportions", "clopper_pearson_ci"),
    "cohen_kappa": ("benchlab.data.analysis.stats.agreement", "cohen_kappa"),
    "fleiss_kappa": ("benchlab.data.analysis.stats.agreement", "fleiss_kappa"),
    "format_p": ("benchlab.data.analysis.stats.proportions", "format_p"),
    "has_constant_stratum": ("benchlab.data.analysis.stats.strata", "has_constant_stratum"),
    "kish_n": ("benchlab.data.analysis.stats.proportions", "kish_n"),
    "mcnemar_test": ("benchlab.data.analysis.stats.proportions", "mcnemar_test"),
    "newcombe_paired_ci": ("benchlab.data.analysis.stats.proportions", "newcombe_paired_ci"),
    "paired_bootstrap": ("benchlab.data.analysis.stats.bootstrap", "paired_bootstrap"),
    "paired_permutation_test": ("benchlab.data.analysis.stats.bootstrap", "paired_permutation_test"),
    "percent_agreement": ("benchlab.data.analysis.stats.agreement", "percent_agreement"),
    "rt_summary": ("benchlab.data.analysis.stats.response_times", "rt_summary"),
    "sign_flip_interval": ("benchlab.data.analysis.stats.bootstrap", "sign_flip_interval"),
    "sign_flip_p": ("benchlab.data.analysis.stats.bootstrap", "sign_flip_p"),
    "spread": ("benchlab.data.analysis.stats.response_times", "spread"),
    "stars": ("benchlab.data.analysis.stats.proportions", "stars"),
    "stratified_mean": ("benchlab.data.analysis.stats.strata", "stratified_mean"),
    "tango_test": ("benchlab.data.analysis.stats.paired_score", "tango_test"),
    "two_proportion_test": ("benchlab.data.analysis.stats.proportions", "two_proportion_test"),
    "unpaired_bootstrap": ("benchlab.data.analysis.stats.bootstrap", "unpaired_bootstrap"),
    "wilson_ci": ("benchlab.data.analysis.stats.proportions", "wilson_ci"),
    "wilson_kish_ci": ("benchlab.data.analysis.stats.proportions", "wilson_kish_ci"),
}

__all__ = [  # a literal list, so linters and IDEs read it; a test checks it matches _LAZY
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

__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)


class _Namespace(types.ModuleType):
    """This package, whose ``agreement`` is the function: importing the submodule of the same name (on first use
    of any of its names, or from another module) binds the submodule here, and it must not hide the function
    (which the eager ``from .agreement import agreement`` used to rebind last)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "agreement" and isinstance(value, types.ModuleType):
            return  # ``stats.agreement`` then loads the function (``__getattr__``); the module is in sys.modules
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Namespace


if TYPE_CHECKING:  # what type checkers and IDEs see; at run time the names load on first use
    from benchlab.data.analysis.defaults import DEFAULT_BOOT, DEFAULT_SEED
    from benchlab.data.analysis.stats.agreement import (
        Agreement,
        agreement,
        cohen_kappa,
        fleiss_kappa,
        percent_agreement,
    )
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
