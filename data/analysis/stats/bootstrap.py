"""Bootstrap and permutation tests, stratified and seeded: paired and unpaired differences, sign flips."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from functools import partial

import numpy as np

from benchlab.data.analysis.defaults import DEFAULT_BOOT, DEFAULT_SEED
from benchlab.data.analysis.stats.interval_memo import interval_key, keep, recall
from benchlab.data.analysis.stats.intervals_ahead import drawn, hand_over
from benchlab.data.analysis.stats.proportions import TestResult
from benchlab.data.analysis.stats.strata import strata_index, stratum_weights

#: One stratum of a bootstrap, as drawn: its weight, its size, and its distinct values with their counts (the
#: multinomial draw) or, for more than 64 distinct values, the values themselves (resampled by index).
Stratum = tuple[float, int, np.ndarray, np.ndarray | None]


def strata_drawn(x: np.ndarray, groups: Mapping[Hashable, np.ndarray],
                 w: Mapping[Hashable, float]) -> list[Stratum]:
    """What :func:`draw_means` needs of each stratum, in the strata's order: a few numbers each for scores with
    few distinct values (what a helper process is sent, :mod:`benchlab.data.analysis.stats.intervals_ahead`)."""
    out: list[Stratum] = []
    for k, idx in groups.items():
        vals = x[idx]
        uniq, counts = np.unique(vals, return_counts=True)
        out.append((w[k], vals.size, uniq, counts) if uniq.size <= 64 else (w[k], vals.size, vals, None))
    return out


def draw_means(strata: list[Stratum], n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Weighted sum over strata of resampled stratum means.

    Scores such as tuple accuracy or correctness take only a few distinct values; resampling n units with
    replacement is then the same as drawing multinomial counts of those values, which is exact and fast enough
    for the 40k tuples of a full model run. Continuous values are resampled by index, in chunks.
    """
    out = np.zeros(n_boot)
    for weight, n, values, counts in strata:
        if counts is not None:
            draws = rng.multinomial(n, counts / n, size=n_boot)
            out += weight * (draws @ values) / n
            continue
        chunk = max(1, 2_000_000 // n)
        for start in range(0, n_boot, chunk):
            stop = min(n_boot, start + chunk)
            picks = rng.integers(0, n, size=(stop - start, n))
            out[start:stop] += weight * values[picks].mean(axis=1)
    return out


def _boot_means(x: np.ndarray, groups: Mapping[Hashable, np.ndarray], w: Mapping[Hashable, float],
                n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`draw_means` of the strata of ``x``."""
    return draw_means(strata_drawn(x, groups, w), n_boot, rng)


def bootstrap_ci(values: Sequence[float] | np.ndarray, strata: Sequence[Hashable] | None = None,
                 weights: Mapping[Hashable, float] | None = None, n_boot: int = DEFAULT_BOOT,
                 seed: int = DEFAULT_SEED, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of the (stratified) mean, resampling units (items/tuples) within strata."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return (math.nan, math.nan)
    groups = strata_index(x.size, strata)
    w = stratum_weights(groups, weights)
    key = interval_key(x, groups, w, n_boot, seed, level)  # None unless a comparison opened the memo or a pool
    known = recall(key)
    if known is not None:
        return known
    draw = partial(_percentile_interval, x, groups, w, n_boot, seed, level)
    if hand_over(key, draw, lambda: (strata_drawn(x, groups, w), n_boot, seed, level)):
        return (math.nan, math.nan)  # a comparison asking ahead: a helper draws it, this pass is thrown away
    interval = drawn(key) or draw()  # drawn by the helper when it was handed over, else here
    keep(key, interval)
    return interval


def _percentile_interval(x: np.ndarray, groups: Mapping[Hashable, np.ndarray], w: Mapping[Hashable, float],
                         n_boot: int, seed: int, level: float) -> tuple[float, float]:
    """The percentile interval of the stratified bootstrap means."""
    return percentile_interval(strata_drawn(x, groups, w), n_boot, seed, level)


def percentile_interval(strata: list[Stratum], n_boot: int, seed: int, level: float) -> tuple[float, float]:
    """The percentile interval of :func:`draw_means` from ``seed``: a pure function of its arguments, which a
    helper process computes from what it is sent (:mod:`benchlab.data.analysis.stats.intervals_ahead`)."""
    boots = draw_means(strata, n_boot, np.random.default_rng(seed))
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
    groups = strata_index(d.size, strata)
    w = stratum_weights(groups, weights)
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
    groups = strata_index(x.size, strata)
    w = stratum_weights(groups, weights)
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
    groups = strata_index(d.size, strata)
    w = stratum_weights(groups, weights)
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
    gx, gy = strata_index(x.size, lx), strata_index(y.size, ly)
    cx, cy = stratum_weights(gx, wx), stratum_weights(gy, wy)
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


def sign_flip_interval(d: Sequence[float] | np.ndarray, strata: Sequence[Hashable] | None = None,
                       weights: Mapping[Hashable, float] | None = None, n_perm: int = DEFAULT_BOOT,
                       seed: int = DEFAULT_SEED, level: float = 0.95) -> tuple[float, float]:
    """The interval inverting :func:`sign_flip_p`: every shift ``delta`` whose shifted differences ``d - delta``
    the sign-flip test does not reject (so it agrees with the test's p). NaN when the inversion leaves a single
    point (every difference equal: the test has no spread to invert), never a zero-width interval."""
    x = np.asarray(d, dtype=float)
    if x.size < 2:
        return (math.nan, math.nan)
    groups = strata_index(x.size, strata)
    w = stratum_weights(groups, weights)
    observed = float(sum(w[k] * x[idx].mean() for k, idx in groups.items()))
    alpha = 1 - level
    reach = float(np.ptp(x)) + 1e-9

    def accepted(delta: float) -> bool:
        return sign_flip_p(x - delta, strata, weights, n_perm=n_perm, seed=seed)[0] >= alpha

    def edge(direction: float) -> float:
        inside, outside = observed, observed + direction * reach
        if accepted(outside):
            return outside
        for _ in range(40):
            mid = (inside + outside) / 2
            inside, outside = (mid, outside) if accepted(mid) else (inside, mid)
            if abs(outside - inside) < 2e-4:  # 0.02 points: below the printed precision
                break
        return inside

    lo, hi = edge(-1.0), edge(1.0)
    if hi - lo < 1e-9:
        return (math.nan, math.nan)
    return (lo, hi)
