"""Proportions: confidence intervals (Wilson, Clopper-Pearson, Wilson with Kish's effective n), the test result
record and its p-value text, and the tests on counts (two proportions, McNemar, Newcombe, binomial vs chance).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from benchlab.data.analysis.stats.distributions import norm_ppf, norm_sf
from benchlab.data.analysis.stats.strata import strata_index, stratum_weights

Z95 = 1.959963984540054  # norm.ppf(0.975)


def wilson_ci(successes: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval: keeps inside [0, 1] and has good coverage at the small n of a human session."""
    if n <= 0:
        return (math.nan, math.nan)
    z = float(norm_ppf(0.5 + level / 2))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def clopper_pearson_ci(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval from the beta quantiles: never narrower than the data allow (8/8 ->
    [63.1, 100]), at the price of being conservative."""
    if n <= 0:
        return (math.nan, math.nan)
    # deferred: scipy.stats (~0.5 s CPU) loads only for an exact interval (distributions.py says why)
    from scipy import stats as sps

    alpha = 1 - level
    lo = 0.0 if successes <= 0 else float(sps.beta.ppf(alpha / 2, successes, n - successes + 1))
    hi = 1.0 if successes >= n else float(sps.beta.ppf(1 - alpha / 2, successes + 1, n - successes))
    return (lo, hi)


def kish_n(counts: Sequence[int] | np.ndarray, weights: Sequence[float] | np.ndarray | None = None) -> float:
    """Kish's effective sample size of a weighted mean of stratum means: ``1 / sum_k (w_k^2 / n_k)``.

    With one stratum it is n; with equal weights over unequal strata it is smaller than the total, because the
    small strata count for more than their share of the answers.
    """
    n = np.asarray(counts, dtype=float)
    w = np.ones_like(n) if weights is None else np.asarray(weights, dtype=float)
    keep = n > 0
    n, w = n[keep], w[keep]
    if n.size == 0:
        return 0.0
    w = w / w.sum()
    return float(1.0 / np.sum(w * w / n))


def wilson_kish_ci(values: Sequence[float] | np.ndarray, strata: Sequence[Hashable] | None = None,
                   weights: Mapping[Hashable, float] | None = None, level: float = 0.95) -> tuple[float, float]:
    """Wilson interval of a stratified mean of scores in [0, 1] with Kish's effective n.

    For one stratum of right/wrong answers it is the Wilson interval itself. For scores in [0, 1] it uses the
    largest variance such scores can have at that mean (the Bernoulli one), so it never claims more certainty
    than the number of answers supports: a participant with every answer right gets [67.6, 100] on 8 answers,
    not the bootstrap's [100, 100].
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return (math.nan, math.nan)
    groups = strata_index(x.size, strata)
    w = stratum_weights(groups, weights)
    p = float(sum(w[k] * x[idx].mean() for k, idx in groups.items()))
    n_eff = kish_n([idx.size for idx in groups.values()], [w[k] for k in groups])
    return wilson_ci(p * n_eff, n_eff, level)


@dataclass(frozen=True)
class TestResult:
    """One significance test, with the method written out so tables can name it."""

    method: str
    estimate: float  # difference first - second (accuracy points as proportions)
    ci_low: float
    ci_high: float
    p_value: float
    statistic: float = math.nan
    n: int = 0  # paired units, or n1 + n2 for unpaired tests
    note: str = ""

    @property
    def significant(self) -> bool:
        return bool(self.p_value == self.p_value and self.p_value < 0.05)

    def p_text(self) -> str:
        return format_p(self.p_value)


def format_p(p: float) -> str:
    """APA-like p: 'p<.001', 'p=.032', 'p=1' ; 'n/a' when the test could not be run."""
    if p != p:
        return "n/a"
    if p < 0.001:
        return "p<.001"
    if p >= 0.9995:
        return "p=1"
    return f"p={p:.3f}".replace("0.", ".", 1)


def stars(p: float) -> str:
    if p != p:
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


def two_proportion_test(k1: int, n1: int, k2: int, n2: int, level: float = 0.95) -> TestResult:
    """Two independent proportions: the Agresti-Caffo adjusted Wald test and the interval inverting it.

    One success and one failure are added to each group before the Wald statistic, so the test and its interval
    are one method (0 is inside exactly when p >= .05) and the interval is never zero width (8 of 8 against 8 of 8
    is about [-30, +30] points, not [0, 0]).
    """
    method = "two-proportion test (Agresti-Caffo adjusted Wald, interval by inverting it)"
    if n1 <= 0 or n2 <= 0:
        return TestResult(method, math.nan, math.nan, math.nan, math.nan, note="empty group")
    diff = k1 / n1 - k2 / n2
    a1, a2 = (k1 + 1) / (n1 + 2), (k2 + 1) / (n2 + 2)
    adjusted = a1 - a2
    se = math.sqrt(a1 * (1 - a1) / (n1 + 2) + a2 * (1 - a2) / (n2 + 2))
    z = adjusted / se
    p = float(2 * norm_sf(abs(z)))
    zc = float(norm_ppf(0.5 + level / 2))
    return TestResult(method, diff, max(-1.0, adjusted - zc * se), min(1.0, adjusted + zc * se), p, z, n1 + n2,
                      note="interval centred on the adjusted difference")


def mcnemar_test(first: Sequence[bool] | np.ndarray, second: Sequence[bool] | np.ndarray,
                 exact: bool | None = None, level: float = 0.95) -> TestResult:
    """McNemar test on paired correctness (same items): exact binomial when < 25 discordant pairs, else chi2 (cc).

    The CI of the paired difference in proportions is Newcombe's (1998, method 10) hybrid score interval from the
    two Wilson intervals and the phi correlation: unlike the Wald interval it is never zero width when both
    answered everything alike (8 of 8 right each: [-32.4, +32.4] points, not [0, 0]) and stays inside [-1, 1].
    """
    # deferred: statsmodels is slow to import and only this test needs it
    from statsmodels.stats.contingency_tables import mcnemar

    a = np.asarray(first, dtype=bool)
    b = np.asarray(second, dtype=bool)
    if a.shape != b.shape:
        raise ValueError("McNemar needs two answers for every item")
    n = int(a.size)
    if n == 0:
        return TestResult("McNemar", math.nan, math.nan, math.nan, math.nan, note="no shared items")
    n10 = int(np.sum(a & ~b))
    n01 = int(np.sum(~a & b))
    n11 = int(np.sum(a & b))
    n00 = n - n10 - n01 - n11
    if exact is None:
        exact = (n10 + n01) < 25
    diff = (n10 - n01) / n
    if n10 + n01 == 0:
        stat, p = 0.0, 1.0
    else:
        res = mcnemar([[n11, n10], [n01, n00]], exact=exact, correction=True)
        stat, p = float(res.statistic), float(res.pvalue)
    method = "McNemar exact" if exact else "McNemar chi2 (cc)"
    lo, hi = newcombe_paired_ci(n11, n10, n01, n00, level)
    return TestResult(method, diff, lo, hi, p, stat, n, note=f"discordant {n10}/{n01}; CI: Newcombe hybrid score")


def newcombe_paired_ci(n11: int, n10: int, n01: int, n00: int, level: float = 0.95) -> tuple[float, float]:
    """Newcombe's (1998) method-10 interval of p1 - p2 for paired right/wrong answers (n10: only the first right)."""
    n = n11 + n10 + n01 + n00
    if n <= 0:
        return (math.nan, math.nan)
    p1, p2 = (n11 + n10) / n, (n11 + n01) / n
    l1, u1 = wilson_ci(n11 + n10, n, level)
    l2, u2 = wilson_ci(n11 + n01, n, level)
    denom = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    phi = (n11 * n00 - n10 * n01) / math.sqrt(denom) if denom > 0 else 0.0
    delta = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    eps = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    d = p1 - p2
    return (max(-1.0, d - delta), min(1.0, d + eps))


def binomial_vs_chance(successes: int, n: int, chance: float = 0.5) -> float:
    """Two-sided exact binomial p-value of accuracy against chance."""
    if n <= 0:
        return math.nan
    # deferred: scipy.stats (~0.5 s CPU) loads only for an exact binomial test (distributions.py says why)
    from scipy import stats as sps

    return float(sps.binomtest(int(successes), int(n), chance, alternative="two-sided").pvalue)
