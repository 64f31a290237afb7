"""Statistics for comparing people with models: CIs, paired/unpaired tests, agreement, response times.

Everything here works on plain arrays so the benchmark modules (WorldSense tuples, SORT trials) can feed it
their own units. The library calls (statsmodels, scipy) are used where a standard implementation exists; the
tests check every function against hand-computed cases and against those libraries.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from benchlab.data.analysis.defaults import DEFAULT_BOOT, DEFAULT_SEED

Z95 = 1.959963984540054  # norm.ppf(0.975)


# --------------------------------------------------------------------------------------------------------------
# Proportions


def wilson_ci(successes: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval: keeps inside [0, 1] and has good coverage at the small n of a human session."""
    if n <= 0:
        return (math.nan, math.nan)
    z = float(sps.norm.ppf(0.5 + level / 2))
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
    groups = _strata_index(x.size, strata)
    w = _stratum_weights(groups, weights)
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
    """Pooled two-proportion z test (independent samples); CI of the difference uses the unpooled SE."""
    if n1 <= 0 or n2 <= 0:
        return TestResult("two-proportion z test", math.nan, math.nan, math.nan, math.nan, note="empty group")
    p1, p2 = k1 / n1, k2 / n2
    pooled = (k1 + k2) / (n1 + n2)
    se0 = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    diff = p1 - p2
    if se0 == 0:
        z, p = 0.0, 1.0
    else:
        z = diff / se0
        p = float(2 * sps.norm.sf(abs(z)))
    zc = float(sps.norm.ppf(0.5 + level / 2))
    se = math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    return TestResult("two-proportion z test", diff, diff - zc * se, diff + zc * se, p, z, n1 + n2)


def mcnemar_test(first: Sequence[bool] | np.ndarray, second: Sequence[bool] | np.ndarray,
                 exact: bool | None = None, level: float = 0.95) -> TestResult:
    """McNemar test on paired correctness (same items): exact binomial when < 25 discordant pairs, else chi2 (cc).

    The CI of the paired difference in proportions is Newcombe's (1998, method 10) hybrid score interval from the
    two Wilson intervals and the phi correlation: unlike the Wald interval it is never zero width when both
    answered everything alike (8 of 8 right each: [-32.4, +32.4] points, not [0, 0]) and stays inside [-1, 1].
    """
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
    return float(sps.binomtest(int(successes), int(n), chance, alternative="two-sided").pvalue)


# --------------------------------------------------------------------------------------------------------------
# Bootstrap (stratified, seeded)


def _strata_index(n: int, strata: Sequence[Hashable] | np.ndarray | None) -> dict[Hashable, np.ndarray]:
    if strata is None:
        return {None: np.arange(n)}
    if len(strata) != n:
        raise ValueError("one stratum label per unit is needed")
    import pandas as pd

    labels = np.empty(n, dtype=object)
    labels[:] = list(strata) if not isinstance(strata, np.ndarray) else strata
    codes, uniques = pd.factorize(labels, sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    return {uniques[i]: order[bounds[i]:bounds[i + 1]] for i in range(len(uniques))}


def _stratum_weights(groups: Mapping[Hashable, np.ndarray],
                     weights: Mapping[Hashable, float] | None) -> dict[Hashable, float]:
    if weights is None:
        return {k: 1 / len(groups) for k in groups}
    total = sum(weights[k] for k in groups)
    return {k: weights[k] / total for k in groups}


def stratified_mean(values: Sequence[float] | np.ndarray, strata: Sequence[Hashable] | None = None,
                    weights: Mapping[Hashable, float] | None = None) -> float:
    """Weighted mean of stratum means (equal weights by default): the rebalanced score benchmarks report."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan
    groups = _strata_index(x.size, strata)
    w = _stratum_weights(groups, weights)
    return float(sum(w[k] * x[idx].mean() for k, idx in groups.items()))


def _boot_means(x: np.ndarray, groups: Mapping[Hashable, np.ndarray], w: Mapping[Hashable, float],
                n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Weighted sum over strata of resampled stratum means.

    Scores such as tuple accuracy or correctness take only a few distinct values; resampling n units with
    replacement is then the same as drawing multinomial counts of those values, which is exact and fast enough
    for the 40k tuples of a full model run. Continuous values are resampled by index, in chunks.
    """
    out = np.zeros(n_boot)
    for k, idx in groups.items():
        vals = x[idx]
        n = vals.size
        uniq, counts = np.unique(vals, return_counts=True)
        if uniq.size <= 64:
            draws = rng.multinomial(n, counts / n, size=n_boot)
            out += w[k] * (draws @ uniq) / n
            continue
        chunk = max(1, 2_000_000 // n)
        for start in range(0, n_boot, chunk):
            stop = min(n_boot, start + chunk)
            picks = rng.integers(0, n, size=(stop - start, n))
            out[start:stop] += w[k] * vals[picks].mean(axis=1)
    return out


def bootstrap_ci(values: Sequence[float] | np.ndarray, strata: Sequence[Hashable] | None = None,
                 weights: Mapping[Hashable, float] | None = None, n_boot: int = DEFAULT_BOOT,
                 seed: int = DEFAULT_SEED, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of the (stratified) mean, resampling units (items/tuples) within strata."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return (math.nan, math.nan)
    groups = _strata_index(x.size, strata)
    w = _stratum_weights(groups, weights)
    boots = _boot_means(x, groups, w, n_boot, np.random.default_rng(seed))
    alpha = (1 - level) / 2
    return (float(np.quantile(boots, alpha)), float(np.quantile(boots, 1 - alpha)))


def paired_bootstrap(first: Sequence[float] | np.ndarray, second: Sequence[float] | np.ndarray,
                     strata: Sequence[Hashable] | None = None, weights: Mapping[Hashable, float] | None = None,
                     n_boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED, level: float = 0.95) -> TestResult:
    """Paired bootstrap of the (stratified) mean difference over shared units.

    CI: percentile. p-value: two-sided, from the bootstrap distribution re-centred on the null of no difference
    inside each stratum (Efron & Tibshirani 1993, 16.4), with the +1 correction so it is never 0.
    """
    x = np.asarray(first, dtype=float)
    y = np.asarray(second, dtype=float)
    if x.shape != y.shape:
        raise ValueError("paired bootstrap needs two scores for every unit")
    method = "paired bootstrap" + (" (stratified)" if strata is not None else "")
    if x.size < 2:
        return TestResult(method, math.nan, math.nan, math.nan, math.nan, n=int(x.size), note="fewer than 2 pairs")
    d = x - y
    groups = _strata_index(d.size, strata)
    w = _stratum_weights(groups, weights)
    observed = float(sum(w[k] * d[idx].mean() for k, idx in groups.items()))
    rng = np.random.default_rng(seed)
    boots = _boot_means(d, groups, w, n_boot, rng)
    centred = d.copy()
    for idx in groups.values():
        centred[idx] -= d[idx].mean()
    null = _boot_means(centred, groups, w, n_boot, rng)
    p = (int(np.sum(np.abs(null) >= abs(observed) - 1e-12)) + 1) / (n_boot + 1)
    if np.all(d == 0):
        p = 1.0
    alpha = (1 - level) / 2
    return TestResult(method, observed, float(np.quantile(boots, alpha)), float(np.quantile(boots, 1 - alpha)),
                      min(1.0, p), n=int(d.size), note=f"{n_boot} resamples, seed {seed}")


EXACT_FLIPS_MAX = 16  # up to 2**16 sign patterns are enumerated exactly; beyond that, Monte Carlo


def _flip_coefficients(d: np.ndarray, groups: Mapping[Hashable, np.ndarray],
                       w: Mapping[Hashable, float]) -> np.ndarray:
    """Each unit's weight in the stratified mean, so the statistic is ``sum(coef * d)`` (linear in the signs)."""
    coef = np.zeros(d.size)
    for k, idx in groups.items():
        coef[idx] = w[k] / idx.size
    return coef


def sign_flip_p(d: Sequence[float] | np.ndarray, strata: Sequence[Hashable] | None = None,
                weights: Mapping[Hashable, float] | None = None, n_perm: int = DEFAULT_BOOT,
                seed: int = DEFAULT_SEED, alternative: str = "two-sided") -> tuple[float, bool, int]:
    """p of a paired sign-flip permutation test of the (stratified) mean difference (``alternative``:
    "two-sided", or "greater" for a mean above 0).

    Under the null each pair's two scores are exchangeable, so each difference keeps or flips its sign; the
    stratified statistic is recomputed for every pattern (strata stay intact). Exact when at most
    :data:`EXACT_FLIPS_MAX` differences are non-zero (zeros do not change under a flip), else Monte Carlo with
    the +1 correction. Unlike a re-centred bootstrap it stays valid for a handful of items: with k non-zero
    differences the smallest possible p is 2 / 2**k. Returns (p, exact, number of non-zero differences).
    """
    x = np.asarray(d, dtype=float)
    groups = _strata_index(x.size, strata)
    w = _stratum_weights(groups, weights)
    a = (_flip_coefficients(x, groups, w) * x)
    a = a[x != 0]
    k = int(a.size)
    if k == 0:
        return 1.0, True, 0
    two_sided = alternative == "two-sided"
    observed = abs(float(a.sum())) if two_sided else float(a.sum())
    tol = 1e-12 * max(1.0, float(np.abs(a).sum()))

    def extreme(t: np.ndarray) -> np.ndarray:
        return (np.abs(t) if two_sided else t) >= observed - tol

    if k <= EXACT_FLIPS_MAX:
        patterns = ((np.arange(2**k)[:, None] >> np.arange(k)) & 1) * 2 - 1
        t = patterns @ a
        return min(1.0, float(np.mean(extreme(t)))), True, k
    rng = np.random.default_rng(seed)
    hits = 0
    chunk = max(1, 2_000_000 // k)
    for start in range(0, n_perm, chunk):
        size = min(n_perm, start + chunk) - start
        signs = rng.integers(0, 2, size=(size, k), dtype=np.int8) * 2 - 1
        hits += int(np.sum(extreme(signs @ a)))
    return min(1.0, (hits + 1) / (n_perm + 1)), False, k


def paired_permutation_test(first: Sequence[float] | np.ndarray, second: Sequence[float] | np.ndarray,
                            strata: Sequence[Hashable] | None = None,
                            weights: Mapping[Hashable, float] | None = None, n_boot: int = DEFAULT_BOOT,
                            seed: int = DEFAULT_SEED, level: float = 0.95) -> TestResult:
    """Paired test of the (stratified) mean difference over shared units, valid for small samples.

    p: :func:`sign_flip_p` (exact or Monte Carlo). CI: percentile bootstrap resampling units within strata, but
    only when every stratum has at least 2 units whose scores differ; otherwise the bootstrap has (almost) no
    variance to resample and would print a zero-width interval, so the CI is left out (NaN) and the note says why.
    """
    x = np.asarray(first, dtype=float)
    y = np.asarray(second, dtype=float)
    if x.shape != y.shape:
        raise ValueError("a paired test needs two scores for every unit")
    if x.size < 2:
        return TestResult("sign-flip permutation test", math.nan, math.nan, math.nan, math.nan, n=int(x.size),
                          note="fewer than 2 pairs")
    d = x - y
    groups = _strata_index(d.size, strata)
    w = _stratum_weights(groups, weights)
    observed = float(sum(w[k] * d[idx].mean() for k, idx in groups.items()))
    p, exact, nonzero = sign_flip_p(d, strata, weights, n_perm=n_boot, seed=seed)
    flips = f"exact over {2**nonzero} sign patterns" if exact else f"{n_boot} random sign flips, seed {seed}"
    method = "sign-flip permutation test" + (" (exact)" if exact else " (Monte Carlo)")
    thin = [k for k, idx in groups.items() if int(np.sum(d[idx] != 0)) < 2]
    lo = hi = math.nan
    if thin:
        where = "a stratum has" if strata is not None else "the sample has"
        ci_note = f"CI not available: {where} fewer than 2 units where the scores differ"
    else:
        boots = _boot_means(d, groups, w, n_boot, np.random.default_rng(seed))
        alpha = (1 - level) / 2
        lo, hi = float(np.quantile(boots, alpha)), float(np.quantile(boots, 1 - alpha))
        if hi - lo < 1e-12:
            lo = hi = math.nan
            ci_note = "CI not available: the bootstrap has no variance"
        else:
            ci_note = (f"CI: percentile bootstrap{' within strata' if strata is not None else ''}, "
                       f"{n_boot} resamples, seed {seed}")
    return TestResult(method, observed, lo, hi, p, n=int(d.size),
                      note=f"p: {flips} ({nonzero} non-zero differences); {ci_note}")


def unpaired_bootstrap(first: Sequence[float] | np.ndarray, second: Sequence[float] | np.ndarray,
                       n_boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED, level: float = 0.95,
                       strata: tuple[Sequence[Hashable] | None, Mapping[Hashable, float] | None,
                                     Sequence[Hashable] | None, Mapping[Hashable, float] | None] | None = None,
                       ) -> TestResult:
    """Bootstrap of a difference in means between independent samples (different items).

    p-value: both samples shifted to the pooled mean (null of equal means), two-sided, +1 corrected.
    ``strata`` (labels and weights of the first, then of the second sample): each side is the benchmark's
    stratified (rebalanced) mean and is resampled within its strata, so the difference is between the numbers
    the accuracy table prints, not between plain means.
    """
    x = np.asarray(first, dtype=float)
    y = np.asarray(second, dtype=float)
    if x.size < 2 or y.size < 2:
        return TestResult("unpaired bootstrap", math.nan, math.nan, math.nan, math.nan, n=int(x.size + y.size),
                          note="fewer than 2 units in a group")
    if strata is not None:
        return _unpaired_stratified(x, y, strata, n_boot, seed, level)
    rng = np.random.default_rng(seed)
    observed = float(x.mean() - y.mean())
    bx = x[rng.integers(0, x.size, size=(n_boot, x.size))].mean(axis=1)
    by = y[rng.integers(0, y.size, size=(n_boot, y.size))].mean(axis=1)
    boots = bx - by
    pooled = np.concatenate([x, y]).mean()
    x0, y0 = x - x.mean() + pooled, y - y.mean() + pooled
    nx = x0[rng.integers(0, x.size, size=(n_boot, x.size))].mean(axis=1)
    ny = y0[rng.integers(0, y.size, size=(n_boot, y.size))].mean(axis=1)
    p = (int(np.sum(np.abs(nx - ny) >= abs(observed) - 1e-12)) + 1) / (n_boot + 1)
    alpha = (1 - level) / 2
    return TestResult("unpaired bootstrap", observed, float(np.quantile(boots, alpha)),
                      float(np.quantile(boots, 1 - alpha)), min(1.0, p), n=int(x.size + y.size),
                      note=f"{n_boot} resamples, seed {seed}")


def _unpaired_stratified(x: np.ndarray, y: np.ndarray,
                         strata: tuple[Sequence[Hashable] | None, Mapping[Hashable, float] | None,
                                       Sequence[Hashable] | None, Mapping[Hashable, float] | None],
                         n_boot: int, seed: int, level: float) -> TestResult:
    lx, wx, ly, wy = strata
    gx, gy = _strata_index(x.size, lx), _strata_index(y.size, ly)
    cx, cy = _stratum_weights(gx, wx), _stratum_weights(gy, wy)
    mx = float(sum(cx[k] * x[idx].mean() for k, idx in gx.items()))
    my = float(sum(cy[k] * y[idx].mean() for k, idx in gy.items()))
    rng = np.random.default_rng(seed)
    boots = _boot_means(x, gx, cx, n_boot, rng) - _boot_means(y, gy, cy, n_boot, rng)
    centre = (mx + my) / 2
    null = _boot_means(x - mx + centre, gx, cx, n_boot, rng) - _boot_means(y - my + centre, gy, cy, n_boot, rng)
    observed = mx - my
    p = (int(np.sum(np.abs(null) >= abs(observed) - 1e-12)) + 1) / (n_boot + 1)
    alpha = (1 - level) / 2
    return TestResult("unpaired bootstrap (stratified)", observed, float(np.quantile(boots, alpha)),
                      float(np.quantile(boots, 1 - alpha)), min(1.0, p), n=int(x.size + y.size),
                      note=f"{n_boot} resamples within strata, seed {seed}; each side its own rebalanced mean")


# --------------------------------------------------------------------------------------------------------------
# Agreement between people on the same items


@dataclass(frozen=True)
class Agreement:
    """Agreement of several raters on shared items."""

    raters: int  # most ratings on one item
    items: int
    percent: float  # mean pairwise agreement per item (Fleiss' P-bar)
    unanimous: float  # share of items where everybody gave the same answer
    kappa: float  # Fleiss' kappa (Cohen's for exactly 2 raters is reported separately)
    method: str = "Fleiss' kappa"


def percent_agreement(ratings: Sequence[Sequence[Hashable]]) -> float:
    """Mean over items of the share of agreeing rater pairs (rows = items, columns = raters)."""
    vals = []
    for row in ratings:
        k = len(row)
        if k < 2:
            continue
        counts = Counter(row).values()
        vals.append(sum(c * (c - 1) for c in counts) / (k * (k - 1)))
    return float(np.mean(vals)) if vals else math.nan


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float:
    """Fleiss' kappa; items need >= 2 ratings each.

    With the same number of raters per item this is statsmodels' implementation. When the number varies (people
    answered overlapping but different item sets) it uses the usual extension: per-item agreement
    ``P_i = sum_j n_ij (n_ij - 1) / (n_i (n_i - 1))`` averaged over items, chance agreement from the pooled category
    shares; it reduces to Fleiss (1971) when every n_i is equal.
    """
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    rows = [list(r) for r in ratings]
    if not rows:
        return math.nan
    if any(len(r) < 2 for r in rows):
        raise ValueError("Fleiss' kappa needs at least 2 ratings for every item")
    cats = sorted({c for r in rows for c in r}, key=str)
    if len(cats) == 1:
        return math.nan  # no variation at all: chance agreement is 1, kappa undefined
    table = np.array([[Counter(r)[c] for c in cats] for r in rows], dtype=float)
    n_i = table.sum(axis=1)
    if np.all(n_i == n_i[0]):
        return float(sm_fleiss(table, method="fleiss"))
    p_i = ((table * (table - 1)).sum(axis=1)) / (n_i * (n_i - 1))
    p_cat = table.sum(axis=0) / table.sum()
    pe = float((p_cat**2).sum())
    return (float(p_i.mean()) - pe) / (1 - pe)


def agreement(ratings: Sequence[Sequence[Hashable]]) -> Agreement:
    """Agreement over the items that have at least 2 ratings (``raters`` = most ratings on one item)."""
    rows = [list(r) for r in ratings if len(r) >= 2]
    k = max((len(r) for r in rows), default=0)
    unanimous = float(np.mean([len(set(r)) == 1 for r in rows])) if rows else math.nan
    kappa = fleiss_kappa(rows) if rows else math.nan
    return Agreement(k, len(rows), percent_agreement(rows), unanimous, kappa)


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float:
    """Cohen's kappa for two raters: (p_o - p_e) / (1 - p_e) with each rater's own marginals."""
    if len(first) != len(second):
        raise ValueError("Cohen's kappa needs two ratings for every item")
    n = len(first)
    if n == 0:
        return math.nan
    po = sum(a == b for a, b in zip(first, second, strict=True)) / n
    ca, cb = Counter(first), Counter(second)
    pe = sum(ca[c] * cb[c] for c in set(ca) | set(cb)) / (n * n)
    if pe == 1:
        return math.nan
    return (po - pe) / (1 - pe)


# --------------------------------------------------------------------------------------------------------------
# Response times, spread, attention


@dataclass(frozen=True)
class RTSummary:
    n: int
    median: float
    q1: float
    q3: float

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1


def rt_summary(rts_ms: Sequence[float] | np.ndarray) -> RTSummary:
    """Median and IQR (numpy's linear quantiles, the same as R type 7) of response times, ignoring missing ones."""
    x = np.asarray(rts_ms, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return RTSummary(0, math.nan, math.nan, math.nan)
    q1, med, q3 = np.quantile(x, [0.25, 0.5, 0.75])
    return RTSummary(int(x.size), float(med), float(q1), float(q3))


@dataclass(frozen=True)
class RTBin:
    quantile: int  # 1-based
    lo_ms: float
    hi_ms: float
    n: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else math.nan

    @property
    def ci(self) -> tuple[float, float]:
        return wilson_ci(self.correct, self.n)


def accuracy_by_rt_quantile(rts_ms: Sequence[float] | np.ndarray, correct: Sequence[bool] | np.ndarray,
                            quantiles: int = 4) -> list[RTBin]:
    """Accuracy per RT quantile bin (speed-accuracy check), bins by rank so each holds n/q responses.

    Rank binning (Vincentiles) keeps bins equally full even when RTs tie; each bin reports its RT range.
    """
    rt = np.asarray(rts_ms, dtype=float)
    ok = np.asarray(correct, dtype=bool)
    keep = ~np.isnan(rt)
    rt, ok = rt[keep], ok[keep]
    n = rt.size
    if n == 0:
        return []
    order = np.argsort(rt, kind="stable")
    which = np.empty(n, dtype=int)
    which[order] = (np.arange(n) * quantiles) // n
    bins = []
    for b in range(quantiles):
        mask = which == b
        if not mask.any():
            continue
        bins.append(RTBin(b + 1, float(rt[mask].min()), float(rt[mask].max()), int(mask.sum()), int(ok[mask].sum())))
    return bins


@dataclass(frozen=True)
class Spread:
    n: int
    min: float
    median: float
    max: float


def spread(values: Sequence[float] | np.ndarray) -> Spread:
    """Per-participant spread of a score (min, median, max), NaNs ignored."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return Spread(0, math.nan, math.nan, math.nan)
    return Spread(int(x.size), float(x.min()), float(np.median(x)), float(x.max()))


@dataclass(frozen=True)
class AttentionCriterion:
    """The experimenter's exclusion rule; a participant failing any part is flagged (and can be excluded).

    ``min_control_accuracy``: accuracy required on control items (e.g. WorldSense trivial problems).
    ``fast_ms`` / ``max_fast_share``: responses faster than ``fast_ms`` count as too fast; more than
    ``max_fast_share`` of them flags the participant.
    """

    min_control_accuracy: float | None = None
    fast_ms: float | None = None
    max_fast_share: float = 0.1

    def describe(self) -> str:
        parts = []
        if self.min_control_accuracy is not None:
            parts.append(f"control accuracy >= {self.min_control_accuracy:.0%}")
        if self.fast_ms is not None:
            parts.append(f"<= {self.max_fast_share:.0%} of responses faster than {self.fast_ms:g} ms")
        return "; ".join(parts) if parts else "none"

    @property
    def active(self) -> bool:
        return self.min_control_accuracy is not None or self.fast_ms is not None

    def reasons(self, control_accuracy: float | None, rts_ms: Sequence[float] | np.ndarray) -> list[str]:
        out: list[str] = []
        if (self.min_control_accuracy is not None and control_accuracy is not None
                and control_accuracy == control_accuracy and control_accuracy < self.min_control_accuracy):
            out.append(f"control accuracy {control_accuracy:.0%} < {self.min_control_accuracy:.0%}")
        if self.fast_ms is not None:
            rt = np.asarray(rts_ms, dtype=float)
            rt = rt[~np.isnan(rt)]
            if rt.size:
                share = float(np.mean(rt < self.fast_ms))
                if share > self.max_fast_share:
                    out.append(f"{share:.0%} of responses < {self.fast_ms:g} ms")
        return out


@dataclass
class FigureCell:
    """A score with its CI, and the numbers of participants and units behind it (for tables and plots)."""

    value: float
    ci_low: float
    ci_high: float
    n_units: int
    n_participants: int = 1
    method: str = ""
    extra: dict[str, object] = field(default_factory=dict)

    def text(self, scale: float = 100, digits: int = 1) -> str:
        if self.value != self.value:
            return ""
        v = f"{self.value * scale:.{digits}f}"
        if self.ci_low != self.ci_low:
            return f"{v} [CI n/a]" if self.extra.get("ci_note") else v
        return f"{v} [{self.ci_low * scale:.{digits}f}, {self.ci_high * scale:.{digits}f}]"
