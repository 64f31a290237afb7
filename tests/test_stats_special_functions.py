"""The comparisons' own normal and Student t functions (kept off ``scipy.special``, ~0.25 s CPU to import) against
scipy: the normal ones to the bit over a wide grid with both tails, the t ones to ~1e-13 relative over t, df from
0.1 to 1e12 and the tails, and where scipy's own t quantile is off (far tails, near the median) against scipy's
distribution function instead. A printed CI or p must not move."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import special as sc

from benchlab.data.analysis.stats import distributions, normal_dist, student_t

T_REL = 2e-13  # the t functions: incomplete beta by continued fraction / BGRAT in doubles, vs Boost's in scipy
DFS = [0.05, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 7.3, 13.7, 19.0, 20.0, 49.5, 99.5, 100.0, 150.0, 300.0, 1e3,
       9999.0, 1e4, 1e5, 1e6, 1e8, 1e10, 1e12]


def _rel(a: float, b: float) -> float:
    return 0.0 if a == b else abs(a - b) / abs(b)


def test_ndtr_erf_erfc_are_scipys_bits_over_both_tails() -> None:
    rng = np.random.default_rng(1)
    xs = np.concatenate([np.linspace(-40, 40, 8001), rng.uniform(-10, 10, 4000), -np.logspace(-300, 2.6, 600),
                         np.logspace(-300, 1.5, 600), [0.0, -0.0, 1.96, -37.5, -38.5, 26.62]])
    for x in map(float, xs):
        assert normal_dist.ndtr(x) == float(sc.ndtr(x)), x
        assert normal_dist.erfc(x) == float(sc.erfc(x)), x
        assert normal_dist.erf(x) == float(sc.erf(x)), x
        assert distributions.norm_sf(x) == float(sc.ndtr(-x)), x
    assert math.isnan(normal_dist.ndtr(math.nan))
    assert normal_dist.ndtr(math.inf) == 1.0 and normal_dist.ndtr(-math.inf) == 0.0


def test_ndtri_is_scipys_bits_from_1e_minus_320_to_one() -> None:
    rng = np.random.default_rng(2)
    qs = np.concatenate([rng.uniform(0, 1, 8000), np.logspace(-320, -0.3, 1500), 1 - np.logspace(-16, -0.3, 600),
                         [0.975, 0.025, 0.995, 0.95, 0.9, 0.5, 0.05, 5e-324, 1 - 2**-53]])
    for q in map(float, qs):
        assert normal_dist.ndtri(q) == float(sc.ndtri(q)), q
    assert distributions.norm_ppf(0.975) == 1.959963984540054  # the printed 95% intervals' z
    assert normal_dist.ndtri(0.0) == -math.inf and normal_dist.ndtri(1.0) == math.inf
    for bad in (-0.1, 1.1, math.nan):
        assert math.isnan(normal_dist.ndtri(bad))


@pytest.mark.parametrize("df", DFS)
def test_t_tail_matches_scipy_over_t_and_its_tails(df: float) -> None:
    ts = np.concatenate([np.linspace(0, 10, 201)[1:], np.logspace(-8, 3, 120), np.logspace(3, 150, 40)])
    for t in map(float, ts):
        mine, ref = distributions.t_sf(t, df), float(sc.stdtr(df, -t))
        if ref < 1e-290:  # scipy flushes subnormal tails to 0
            assert mine < 1e-280, (t, df)
        elif df == 1.0 and t < 1e-3:  # scipy loses digits here; the Cauchy tail is exact
            assert _rel(mine, 0.5 - math.atan(t) / math.pi) < 1e-15, t
            assert _rel(distributions.t_sf(-t, df), 0.5 + math.atan(t) / math.pi) < 1e-15, t
            continue
        else:
            assert _rel(mine, ref) < T_REL, (t, df, mine, ref)
        assert _rel(distributions.t_sf(-t, df), float(sc.stdtr(df, t))) < T_REL, (t, df)


def test_t_sf_edges_follow_scipy_stats() -> None:
    assert distributions.t_sf(0.0, 5.0) == 0.5
    assert distributions.t_sf(math.inf, 3.0) == 0.0 and distributions.t_sf(-math.inf, 3.0) == 1.0
    for x, df in ((1.0, 0.0), (1.0, -1.0), (math.nan, 3.0), (1.0, math.nan)):
        assert math.isnan(distributions.t_sf(x, df))
    assert distributions.t_sf(2.5, math.inf) == normal_dist.ndtr(-2.5)


@pytest.mark.parametrize("df", DFS)
def test_t_quantile_inverts_scipys_distribution_function(df: float) -> None:
    """The quantile is checked by putting it back into scipy's distribution function: scipy's own quantile is off
    in the far tails of small df (by a factor of 2 at p = 1e-216, df = 2.5) and near the median (1e-9 at df = 4)."""
    ps = np.concatenate([np.logspace(-300, -0.302, 200), np.linspace(0.2501, 0.49999, 60),  # the centre's solver
                         [0.025, 0.05, 0.005, 0.1, 0.25, 0.3, 0.4999, 0.49999999]])
    for p in map(float, ps):
        tol = T_REL + 4 * 2.2e-16 * abs(math.log(p))  # a tail p = x^a (...) carries |log p| ulps from x^a
        t = student_t.t_isf(p, df)
        assert t >= 0.0
        if math.isinf(t):  # beyond the largest double: the tail there is still above p
            assert student_t.t_tail(1.7e308, df) > p, (p, df)
            continue
        if t > 1e150:  # scipy's t^2 overflows past 1e154: the power law P(T > t) ~ k t^-df is exact enough here
            assert _rel(student_t.t_tail(t, df), p) < tol, (p, df, t)
            continue
        if df == 1.0 and p > 0.49:  # Cauchy: exact, where scipy's distribution function loses digits
            assert _rel(t, math.tan(math.pi * (0.5 - p))) < 1e-15 * max(1.0, 1 / t), (p, t)
            continue
        back = float(sc.stdtr(df, -t))
        # a quantile within an ulp or two: its tail within (ulps x the tail's slope in log t) of p
        slope = t * student_t.t_density(t, df) / p if p < 0.25 else t * student_t.t_density(t, df) / (0.5 - p)
        assert _rel(back, p) < tol + 8e-16 * max(1.0, slope), (p, df, t)
        assert distributions.t_ppf(p, df) == -t
        if p > 1e-10:  # 1 - p keeps p's digits
            assert distributions.t_ppf(1.0 - p, df) == pytest.approx(t, rel=1e-5)


def test_t_quantiles_the_comparisons_use_match_scipy() -> None:
    """The 95% (and 90%, 99%) intervals' t for every df the comparisons can have (people - 1, Satterthwaite's
    non-integer df), equal to scipy's to ~1e-14: a printed bound moves only on an exact tie at its last digit."""
    rng = random.Random(4)
    dfs = [float(d) for d in range(1, 400)] + [rng.uniform(1, 300) for _ in range(600)] + [1e4, 1e6]
    for df in dfs:
        for q in (0.975, 0.025, 0.995, 0.95, 0.9):
            assert _rel(distributions.t_ppf(q, df), float(sc.stdtrit(df, q))) < 2e-14, (q, df)
    for q, df in ((0.0, 3.0), (1.0, 3.0), (0.5, 3.0), (-0.1, 3.0), (1.1, 3.0), (0.3, 0.0), (0.3, -2.0)):
        expected = {0.0: -math.inf, 1.0: math.inf, 0.5: 0.0}.get(q, math.nan) if df > 0 else math.nan
        got = distributions.t_ppf(q, df)
        assert (math.isnan(got) and math.isnan(expected)) or got == expected, (q, df)
    assert distributions.t_ppf(0.975, math.inf) == normal_dist.ndtri(0.975)


def test_half_gamma_ratio_joins_its_two_branches_smoothly() -> None:
    """Gamma(a + 1/2) / Gamma(a): the recurrence below a = 20 and Stirling's series above give the same numbers
    as math.gamma where that is exact enough, and agree across the seam."""
    for a in (0.25, 0.5, 1.0, 3.7, 10.0, 19.99, 20.0, 20.01, 60.0, 150.0):
        assert _rel(student_t.half_gamma_ratio(a), math.gamma(a + 0.5) / math.gamma(a)) < 2e-15, a
    assert _rel(student_t.half_gamma_ratio(1e12), math.sqrt(1e12) * (1 - 1 / 8e12)) < 1e-15


def test_t_density_matches_scipys_stdtr_slope() -> None:
    for df in (0.5, 1.5, 3.0, 20.0, 250.0, 1e6):  # not df = 1: scipy's stdtr(1, t) loses digits near 0
        for t in (0.0, 0.3, 1.96, 7.0):
            h = 1e-6 * max(1.0, t)
            slope = (float(sc.stdtr(df, -t + h)) - float(sc.stdtr(df, -t - h))) / (2 * h)  # the small tail
            assert student_t.t_density(t, df) == pytest.approx(slope, rel=1e-7), (t, df)


def test_t_tail_is_a_probability_falling_in_t_and_the_quantile_never_nan() -> None:
    """From t = 1e-300 (t^2 underflows) to 1e300 (t^2 overflows) and df from 0.01 to 1e16: P(T > t) stays in
    [0, 1/2] and never rises with t (the method changes from the centre's fraction to BGRAT to the tail's
    fraction along the way), and every quantile is a number."""
    for df in map(float, np.logspace(-2, 16, 25)):
        previous = 0.5
        for t in map(float, np.logspace(-300, 300, 241)):
            tail = student_t.t_tail(t, df)
            assert 0.0 <= tail <= 0.5 and tail <= previous * (1 + 1e-12), (t, df, tail, previous)
            previous = tail
        for q in map(float, np.concatenate([np.logspace(-300, -0.31, 30), [0.3, 0.45, 0.5, 0.55, 0.975]])):
            assert not math.isnan(distributions.t_ppf(q, df)), (q, df)
