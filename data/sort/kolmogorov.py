"""The Kolmogorov-Smirnov tests of ``booksort make``, giving scipy's p-values bit for bit without importing
``scipy.stats`` (about 0.6-1 CPU-second per run, a sixth of the whole make).

The generator makes two kinds of call, both as the published script does with ``scipy.stats.kstest`` and its
default ``method='auto'``:

- one sample against Uniform(0, scale): the statistic D of n = 160 positions, then scipy's ``kstwo.sf(D, n)``
  (Simard & L'Ecuyer's choice among Durbin's matrix method, Pelz-Good's series and twice Smirnov's one-sided
  probability; :func:`kolmogorov_sf`);
- two samples: D from the two empirical CDFs, then the exact lattice-path probability when neither sample has
  more than 10,000 values (Hodges' inside method with Viehmann's 1 - p recursion, one loop in the compiled
  helper of :mod:`benchlab.data.sort.native_draws`), else ``kstwo.sf(D, round(n1 n2 / (n1 + n2)))``.

Every step does scipy's floating-point operations in scipy's order on the same numpy types (numpy scalars,
0-d arrays, the same ``np.exp``/``np.power``/``np.matmul`` calls), so the results are the same bits; the tests
compare them with scipy on real draws and on edge cases. Where scipy would need a function of ``scipy.special``
(Smirnov's exact one-sided probability, for large D) or a branch written here would be long for no use
(Pomeranz's recursion, for n <= 140), or the compiled helper is missing, scipy itself is asked (imported then).
:func:`uniform_spread_passes` needs no scipy even there: in Smirnov's branch, Massart's bound (two-sided p at
most twice exp(-2 n D^2), under 0.025 in that branch) already says that the test fails.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from benchlab.data.sort.native_draws import ks_outside_share

MAX_EXACT_N = 10_000  # scipy's 'auto': the exact two-sample p-value while neither sample is larger
_E128 = 128
_UP = np.ldexp(np.longdouble(1), _E128)  # scipy's scaling constants are long doubles: results follow their types
_DOWN = np.ldexp(np.longdouble(1), -_E128)
_LOG_2PI = np.log(2 * np.pi)
_SQRT_2PI = np.sqrt(2 * np.pi)
_SQRT3 = np.sqrt(3)
_PI2 = np.pi ** 2
_PI4 = np.pi ** 4
_PI6 = np.pi ** 6
_MIN_LOG = -708
# Stirling's series for log(n!/n^n): B_2j / (2j (2j-1)), j = 8 .. 1 (highest first, for np.polyval)
_STIRLING = [-2.955065359477124183e-2, 6.4102564102564102564e-3, -1.9175269175269175269e-3,
             8.4175084175084175084e-4, -5.952380952380952381e-4, 7.9365079365079365079e-4,
             -2.7777777777777777778e-3, 8.3333333333333333333e-2]


class NeedsScipy(Exception):
    """This case takes a scipy function that is not written here (a signal: the caller asks scipy instead)."""


# Values are Any here: numpy scalars, 0-d arrays and long doubles flow as they do in scipy, on purpose.
def _clip(p: Any) -> Any:
    return np.clip(p, 0.0, 1.0)


def _pick(cdf_p: Any, sf_p: Any, cdf: bool) -> Any:
    return _clip(np.where(cdf, cdf_p, sf_p))


def _durbin_cdf(n: int, d: Any) -> Any:
    """P(D_n <= d) by Durbin's matrix (Marsaglia, Tsang & Wang 2003): k-th diagonal entry of H^n, scaled."""
    if d >= 1.0:
        return _pick(1.0, 0.0, True)
    nd = n * d
    if nd <= 0.5:
        return _pick(0.0, 1.0, True)
    k = int(np.ceil(nd))
    frac = k - nd
    m = 2 * k - 1
    powers = np.arange(1, m + 1)
    first_col = 1.0 - frac ** powers
    inv_fact = np.empty(m)
    fac = 1.0
    for j in powers:
        inv_fact[j - 1] = fac
        fac /= j
        first_col[j - 1] *= fac
    corner: Any = max(2 * frac - 1.0, 0)
    corner = corner ** m - 2 * frac ** m
    first_col[-1] = (1.0 + corner) * fac
    h = np.zeros([m, m])
    for i in range(1, m):
        h[i - 1:, i] = inv_fact[:m - i + 1]
    h[:, 0] = first_col
    h[-1, :] = np.flip(first_col, axis=0)
    result = np.eye(np.shape(h)[0])
    left, result_exp, h_exp = n, 0, 0
    while left > 0:
        if left % 2:
            result = np.matmul(result, h)
            result_exp += h_exp
        h = np.matmul(h, h)
        h_exp *= 2
        if np.abs(h[k - 1, k - 1]) > _UP:
            h /= _UP
            h_exp += _E128
        left //= 2
    p = result[k - 1, k - 1]
    for i in range(1, n + 1):  # times n!/n^n
        p = i * p / n
        if np.abs(p) < _DOWN:
            p *= _UP
            result_exp -= _E128
    if result_exp != 0:
        p = np.ldexp(p, result_exp)
    return _pick(p, 1.0 - p, True)


def _pelz_good_cdf(n: int, x: Any) -> Any:
    """P(D_n <= x) by Pelz & Good's (1976) series in z = x sqrt(n), written for small z with theta functions."""
    if x <= 0.0:
        return _pick(0.0, 1.0, True)
    if x >= 1.0:
        return _pick(1.0, 0.0, True)
    z = np.sqrt(n) * x
    z2, z3, z4, z6 = z ** 2, z ** 3, z ** 4, z ** 6
    qlog = -_PI2 / 8 / z2
    if qlog < _MIN_LOG:
        return _pick(0.0, 1.0, True)
    q = np.exp(qlog)
    k1a, k1b = -z2, _PI2 / 4
    k2a = 6 * z6 + 2 * z4
    k2b = (2 * z4 - 5 * z2) * _PI2 / 4
    k2c = _PI4 * (1 - 2 * z2) / 16
    k3d = _PI6 * (5 - 30 * z2) / 64
    k3c = _PI4 * (-60 * z2 + 212 * z4) / 16
    k3b = _PI2 * (135 * z4 - 96 * z6) / 4
    k3a = -30 * z6 - 90 * z ** 8
    terms = np.zeros(4)
    top = int(np.ceil(16 * z / np.pi))
    for k in range(top, 0, -1):  # Horner over the odd squares
        odd = 2 * k - 1
        o2, o4, o6 = odd ** 2, odd ** 4, odd ** 6
        step = np.power(q, 8 * k)
        coeffs = np.array([1.0, k1a + k1b * o2, k2a + k2b * o2 + k2c * o4, k3a + k3b * o2 + k3c * o4 + k3d * o6])
        terms *= step
        terms += coeffs
    terms *= q
    terms *= _SQRT_2PI
    terms /= np.array([z, 6 * z4, 72 * z ** 7, 6480 * z ** 10])
    q = np.exp(-_PI2 / 2 / z2)
    ks = np.arange(top, 0, -1)
    ks2 = ks ** 2
    root3z = _SQRT3 * z
    kpi = np.pi * ks
    qk = q ** ks2
    extra2 = np.sum(ks2 * qk)
    extra2 *= _PI2 * _SQRT_2PI / (-36 * z3)
    terms[2] += extra2
    extra3 = np.sum((root3z + kpi) * (root3z - kpi) * ks2 * qk)
    extra3 *= _PI2 * _SQRT_2PI / (216 * z6)
    terms[3] += extra3
    terms /= np.power(n * 1.0, np.arange(len(terms)) / 2.0)
    return sum(terms)


def _kolmogn_sf(n: int, x: Any) -> Any:
    """scipy's ``_kolmogn(n, x, cdf=False)`` for 0 < x < 1; raises :class:`NeedsScipy` where it calls
    ``scipy.special.smirnov`` or Pomeranz's recursion."""
    t = n * x
    if t <= 1.0:  # Ruben & Gambino
        if t <= 0.5:
            return _pick(0.0, 1.0, False)
        if n <= 140:
            prob = np.prod(np.arange(1, n + 1) * (1.0 / n) * (2 * t - 1))
        else:
            rn = 1.0 / n
            log_ratio = np.log(n) / 2 - n + _LOG_2PI / 2 + rn * np.polyval(_STIRLING, rn / n)
            prob = np.exp(log_ratio + n * np.log(2 * t - 1))
        return _pick(prob, 1.0 - prob, False)
    if t >= n - 1:  # Ruben & Gambino
        prob = 2 * (1.0 - x) ** n
        return _pick(1 - prob, prob, False)
    if x >= 0.5:
        raise NeedsScipy("2 * smirnov(n, x)")
    nx2 = t * x
    if n <= 140:
        if nx2 <= 0.754693:
            prob = _durbin_cdf(n, x)
            return _pick(prob, 1.0 - prob, False)
        raise NeedsScipy("Pomeranz's recursion or 2 * smirnov(n, x)")
    if nx2 >= 370.0:
        return np.float64(0.0)
    if nx2 >= 2.2:
        raise NeedsScipy("2 * smirnov(n, x)")
    if nx2 >= 18.0:
        cdf_p: Any = 1.0
    elif n <= 100000 and n * x ** 1.5 <= 1.4:
        cdf_p = _durbin_cdf(n, x)
    else:
        cdf_p = _pelz_good_cdf(n, x)
    return _pick(cdf_p, 1.0 - cdf_p, False)


def kolmogorov_sf(n: int, d: float) -> float:
    """``scipy.stats.kstwo.sf(d, n)``: the two-sided one-sample KS p-value of statistic ``d`` for ``n`` values.

    Raises :class:`NeedsScipy` where scipy would use a function not written here.
    """
    x = np.asarray(np.float64(d))
    if math.isnan(d) or n < 1:
        raise NeedsScipy("not a statistic")
    if x <= 0.5 / n:  # below the support
        return 1.0
    if x >= 1.0:
        return 0.0
    out = np.zeros((), np.float64)
    out[()] = _kolmogn_sf(int(n), x)  # scipy writes into a float64 array: long doubles are rounded here
    return float(np.clip(out[()], 0.0, 1.0))


def _uniform_statistic(x: np.ndarray, scale: float) -> Any:
    """D of ``x`` against Uniform(0, scale), computed as scipy's ``ks_1samp`` with ``uniform(0, scale).cdf``."""
    x = np.sort(np.asarray(x, dtype=np.float64))
    n = len(x)
    u = (x - 0.0) / scale
    cdf = np.where(u >= 1.0, 1.0, np.where(u > 0.0, u, 0.0))
    d_plus = np.max(np.arange(1.0, n + 1) / n - cdf)
    d_minus = np.max(cdf - np.arange(0.0, n) / n)
    return d_plus if d_plus > d_minus else d_minus


def _scipy_uniform_p(x: np.ndarray, scale: float) -> float:
    # deferred: scipy.stats (~0.6-1 s) only for the cases not written here
    from scipy import stats

    return float(stats.kstest(x, stats.uniform(loc=0.0, scale=scale).cdf).pvalue)


def uniform_ks_pvalue(x: np.ndarray, scale: float) -> float:
    """``scipy.stats.kstest(x, scipy.stats.uniform(loc=0, scale=scale).cdf).pvalue``, bit for bit."""
    x = np.asarray(x, dtype=np.float64)
    if len(x) == 0 or np.isnan(x).any() or not scale > 0:
        return _scipy_uniform_p(x, scale)
    try:
        return kolmogorov_sf(len(x), float(_uniform_statistic(x, scale)))
    except NeedsScipy:
        return _scipy_uniform_p(x, scale)


def uniform_spread_passes(x: np.ndarray, scale: float, threshold: float) -> bool:
    """Whether ``x`` passes the published uniformity check (:func:`uniform_ks_pvalue` above ``threshold``).

    Where scipy would compute twice Smirnov's probability (n > 140 and n D^2 >= 2.2), Massart's (1990) bound
    P(D+ >= D) <= exp(-2 n D^2) puts the p-value at or below 2 exp(-4.4) < 0.025: for thresholds above that
    the answer is known without ``scipy.special``.
    """
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n > 140 and scale > 0 and not np.isnan(x).any():
        d = float(_uniform_statistic(x, scale))
        if n * d * d >= 2.2 and d < 1.0 and 2.0 * math.exp(-2.0 * n * d * d) < threshold / 2:
            return False
    return uniform_ks_pvalue(x, scale) > threshold


def _outside_square(n: int, h: int) -> float:
    """P(D_{n,n} >= h/n) for two samples of n (scipy's Horner form of the alternating binomial sum)."""
    total = 0.0
    k = int(np.floor(n / h))
    while k >= 0:
        term = 1.0
        for j in range(h):
            term = (n - k * h - j) * term / (n + k * h + j + 1)
        total = term * (1.0 - total)
        k -= 1
    return 2 * total


def _scipy_two_sample_p(a: np.ndarray, b: np.ndarray) -> float:
    # deferred: scipy.stats (~0.6-1 s) only for the cases not written here
    from scipy import stats

    return float(stats.kstest(a, b).pvalue)


def two_sample_ks_pvalue(a: np.ndarray, b: np.ndarray) -> float:
    """``scipy.stats.kstest(a, b).pvalue`` (two-sided, ``method='auto'``), bit for bit."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 1 or b.ndim != 1 or min(len(a), len(b)) == 0 or a.dtype.kind not in "iu" \
            or b.dtype.kind not in "iu":
        return _scipy_two_sample_p(a, b)  # floats (NaN policy), empty samples: scipy's own handling
    try:
        return _two_sample_p(np.sort(a), np.sort(b))
    except NeedsScipy:
        return _scipy_two_sample_p(a, b)


def _two_sample_p(a: np.ndarray, b: np.ndarray) -> float:
    n1, n2 = len(a), len(b)
    both = np.concatenate([a, b])
    diffs = np.searchsorted(a, both, side="right") / n1 - np.searchsorted(b, both, side="right") / n2
    min_s = np.clip(-diffs[np.argmin(diffs)], 0, 1)
    max_s = diffs[np.argmax(diffs)]
    d = min_s if min_s > max_s else max_s
    g = math.gcd(n1, n2)
    if max(n1, n2) <= MAX_EXACT_N:
        lcm = (n1 // g) * n2
        h = int(np.round(d * lcm))
        if h == 0:
            return 1.0
        if n1 == n2:
            prob: Any = _outside_square(n1, h)
        else:
            prob = ks_outside_share(n1, n2, g, h)
            if prob is None:
                raise NeedsScipy("the compiled helper is not available")
        if 0 <= prob <= 1:
            return float(np.clip(prob, 0, 1))
        raise NeedsScipy("the exact count failed; scipy warns and goes asymptotic")
    m, n = sorted([float(n1), float(n2)], reverse=True)
    return float(np.clip(kolmogorov_sf(int(np.round(m * n / (m + n))), float(d)), 0, 1))
