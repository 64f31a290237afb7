"""The comparisons' own normal functions, brentq and Fleiss' kappa (kept off scipy and statsmodels for speed) give
exactly the bits of the library calls they replace, edges included: a printed CI or p must not move. (The t
functions, within ~1e-13 of scipy: tests/test_stats_special_functions.py.)"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import optimize
from scipy import stats as sps
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from benchlab.data.analysis.crossed import _codes
from benchlab.data.analysis.stats import distributions
from benchlab.data.analysis.stats.agreement import fleiss_kappa
from benchlab.data.analysis.stats.paired_score import _score


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_norm_matches_scipy_stats_bit_for_bit_and_t_edges_match() -> None:
    rng = random.Random(3)
    qs = [0.0, 1.0, 0.5, 0.975, 0.025, 1e-300, 1 - 1e-16, -0.1, 1.1, math.nan] + [rng.random() for _ in range(200)]
    xs = [0.0, -0.0, 1.96, -3.5, 40.0, math.inf, -math.inf, math.nan] + [rng.gauss(0, 3) for _ in range(200)]
    for q in qs:
        assert _same(distributions.norm_ppf(q), float(sps.norm.ppf(q))), q
    for x in xs:
        assert _same(distributions.norm_sf(x), float(sps.norm.sf(x))), x
    for df in (0.0, -1.0, math.nan, 3.0, math.inf):  # the t functions' nan and infinity edges are scipy's
        for q in (0.0, 1.0, 0.5, -0.1, 1.1, math.nan):
            assert _same(distributions.t_ppf(q, df), float(sps.t.ppf(q, df))), (q, df)
        for x in (0.0, math.inf, -math.inf, math.nan):
            assert _same(distributions.t_sf(x, df), float(sps.t.sf(x, df))), (x, df)


def test_fleiss_kappa_equal_raters_matches_statsmodels_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    for raters in (2, 3, 7):
        for cats in (2, 4):
            ratings = [[int(v) for v in rng.integers(0, cats, raters)] for _ in range(40)]
            table = np.array([[r.count(c) for c in range(cats)] for r in ratings], dtype=float)
            assert fleiss_kappa(ratings) == float(sm_fleiss(table, method="fleiss"))


def test_brentq_matches_scipy_bit_for_bit_on_the_paired_test_and_other_roots() -> None:
    cases = []
    for n in (5, 20, 40, 137, 400):
        for n10 in range(0, n + 1, max(1, n // 7)):
            for n01 in range(0, n - n10 + 1, max(1, n // 5)):
                for target in (1.959963984540054, -1.959963984540054, 0.3):
                    cases.append((lambda d, a=n10, b=n01, m=n, t=target: _score(a, b, m, d) - t, -1 + 1e-9, 1 - 1e-9))
    cases += [(lambda x, c=c: x ** 3 - c, -3.0, 5.0) for c in (0.0, 2.0, 17.5, -1.25)]
    cases += [(math.cos, 0.0, 3.0), (lambda x: math.exp(x) - 2, -1.0, 4.0), (lambda x: x, -1.0, 0.0)]
    compared = 0
    for f, lo, hi in cases:
        if f(lo) * f(hi) > 0:
            continue
        for xtol in (1e-10, 2e-12):
            try:
                expected: float | None = optimize.brentq(f, lo, hi, xtol=xtol)
            except RuntimeError:  # no convergence in 100 iterations: ours must say so too
                expected = None
            if expected is None:
                with pytest.raises(RuntimeError):
                    distributions.brentq(f, lo, hi, xtol=xtol)
            else:
                assert distributions.brentq(f, lo, hi, xtol=xtol) == expected
            compared += 1
    assert compared > 100


def test_crossed_label_codes_are_the_sorted_codes_of_numpy_unique() -> None:
    rng = np.random.default_rng(8)
    pool = np.array(["a", "B", "é", "tuple_09-20-2023_07h33m35s_3774", "tuple_09-20-2023_07h33m35s_12", 7, 3.5, "7"],
                    dtype=object)
    for size in (1, 2, 50, 3000):
        labels = pool[rng.integers(0, len(pool), size)]
        uniq, inv = np.unique(np.asarray([str(x) for x in labels]), return_inverse=True)
        codes, n = _codes(labels)
        assert n == uniq.size and np.array_equal(codes, inv.ravel())
