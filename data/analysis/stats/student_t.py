"""Student's t tail probability and quantile in plain Python floats, so that the comparisons need no
``scipy.special`` (importing it costs ~0.25 s CPU). scipy computes these with Boost's incomplete beta function; the
tests hold these within 2e-13 relative of scipy's distribution function over t, ``df`` from 0.1 to 1e12 and both
tails, and the quantiles the comparisons print within 2e-14 of scipy's (an mpmath check of the largest differences
found this code the closer one as often as scipy).

- :func:`t_tail`: P(T > t) for t >= 0 is ``I_x(df/2, 1/2) / 2`` with ``x = df / (df + t^2)``, the regularized
  incomplete beta function. Near the centre (t^2 below about 3) ``1/2 - I_{1-x}(1/2, df/2) / 2`` by its continued
  fraction (modified Lentz; Numerical Recipes' ``betacf``), fast there. Beyond it, for ``df >= 100`` and not in
  the far tail, DiDonato and Morris's asymptotic series (BGRAT, ACM TOMS 708), whose incomplete gamma functions
  are complementary error functions when b = 1/2 (the fraction there needs thousands of steps and loses 1e-11 at
  df = 1e6); elsewhere the fraction of ``I_x(df/2, 1/2)``. The prefactor ``x^a (1-x)^b / (a B(a, b))`` is written
  through ``log1p`` and the ratio ``Gamma(a + 1/2) / Gamma(a)`` (:func:`half_gamma_ratio`), so no ``lgamma``
  difference loses digits. Above ``df = 1/eps`` the normal distribution (as Boost does).
- :func:`t_isf`: the t with P(T > t) = p: closed forms for ``df`` = 1 and 2; near the median Newton's method on
  P(0 < T < t) (:func:`t_centre`); in the tails Newton's method on ``log P(T > t)`` against ``log t`` from the
  larger of the Cornish-Fisher and the power-law starts, kept inside a bracket, then two Newton steps on t.
"""
from __future__ import annotations

import math

from benchlab.data.analysis.stats.normal_dist import ndtr, ndtri

_EPS = 2.220446049250313e-16
_TINY = 1e-300
_SQRT_PI = 1.7724538509055160273
_LOG_MAX = 709.78  # log of (nearly) the largest double
_BGRAT_MIN_A = 50.0  # df >= 100: the asymptotic series, below it the continued fraction


def half_gamma_ratio(a: float) -> float:
    """``Gamma(a + 1/2) / Gamma(a)`` for a > 0: :func:`math.gamma` for small ``a``, else Stirling's series of
    ``log Gamma`` whose leading terms cancel analytically (``sqrt(a) exp(a log1p(1/(2a)) - 1/2 + ...)``)."""
    if a < 20.0:  # up to where the series below is exact to the last bit: Gamma(z + 1) = z Gamma(z)
        n = math.ceil(20.0 - a)
        product = 1.0
        for k in range(n):
            product *= (a + k) / (a + k + 0.5)
        return half_gamma_ratio(a + n) * product
    b = a + 0.5

    def tail(z: float) -> float:  # log Gamma(z) minus its Stirling main part, to 1/z^9
        z2 = 1.0 / (z * z)
        return (1.0 / 12 - z2 * (1.0 / 360 - z2 * (1.0 / 1260 - z2 * (1.0 / 1680 - z2 / 1188)))) / z

    return math.sqrt(a) * math.exp((a * math.log1p(0.5 / a) - 0.5) + (tail(b) - tail(a)))


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of ``I_x(a, b)`` (modified Lentz), fast for ``x < (a + 1) / (a + b + 2)``."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        step = d * c
        h *= step
        if abs(step - 1.0) <= _EPS:
            break
    return h


_FACT_ODD = tuple(float(math.factorial(2 * k + 1)) for k in range(31))  # (2k+1)!


def _bgrat_half(a: float, x: float, y: float) -> float:
    """``I_x(a, 1/2)`` for large ``a`` by DiDonato and Morris's asymptotic expansion (BGRAT, ACM TOMS 708, eq. 9;
    as in Boost's ``beta_small_b_large_a_series``): a series in incomplete gamma functions of
    ``u = -(a - 1/4) log x``, which for ``b = 1/2`` are complementary error functions."""
    b = 0.5
    t = a + (b - 1.0) / 2.0
    lx = math.log1p(-y) if y < 0.35 else math.log(x)
    u = -t * lx
    su = math.sqrt(u)
    scaled_q = math.erfc(su) * math.exp(u) * _SQRT_PI / su  # Q(1/2, u) / (u^(1/2) e^-u / Gamma(1/2))
    prefix = su * math.exp(-u) / _SQRT_PI * half_gamma_ratio(a) / math.sqrt(t)
    p = [1.0]
    j = scaled_q
    total = prefix * j
    lx2 = (lx / 2.0) ** 2
    lxp = 1.0
    t4 = 4.0 * t * t
    b2n = b
    for n in range(1, 30):
        pn = 0.0
        for m in range(1, n):
            pn += (m * b - n) * p[n - m] / _FACT_ODD[m]
        pn = pn / n + (b - 1.0) / _FACT_ODD[n]
        p.append(pn)
        j = (b2n * (b2n + 1.0) * j + (u + b2n + 1.0) * lxp) / t4
        lxp *= lx2
        b2n += 2.0
        r = prefix * pn * j
        total += r
        if abs(r) <= _EPS * abs(total):
            break
    return total


def t_tail(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` > 0 degrees of freedom and t >= 0 (finite)."""
    if t == 0.0:
        return 0.5
    if df > 1.0 / _EPS:
        return ndtr(-t)
    a = 0.5 * df
    if t > 1e100:  # t^2 would overflow: x = df / t^2 to first order, y = 1, the fraction is 1
        return 0.5 * math.exp(a * (math.log(df) - 2.0 * math.log(t))) * half_gamma_ratio(a) / _SQRT_PI / a
    t2 = t * t
    s = df + t2
    x, y = df / s, t2 / s  # x + y = 1, each to its own relative accuracy
    if y <= 1.5 / (a + 2.5):  # near the centre (t^2 below about 3): the fraction of I_y(1/2, a) is fast
        return 0.5 - t_centre(t, df)
    if a >= _BGRAT_MIN_A:
        u = -(a - 0.25) * (math.log1p(-y) if y < 0.35 else math.log(x))
        if u < 700.0 and (u < 30.0 or a >= 5000.0):  # the fraction is the better one in the far tail
            return 0.5 * _bgrat_half(a, x, y)
    # log of x^a y^(1/2): a log x written as -a log1p(t^2/df) keeps its digits when x is near 1
    log_power = -a * math.log1p(t2 / df) + 0.5 * math.log(y)
    beta_inv = half_gamma_ratio(a) / _SQRT_PI  # 1 / B(a, 1/2)
    return 0.5 * math.exp(log_power) * beta_inv * _betacf(a, 0.5, x) / a  # x < (a + 1) / (a + 2.5)


def t_centre(t: float, df: float) -> float:
    """P(0 < T < t) = ``I_y(1/2, df/2) / 2`` with ``y = t^2 / (df + t^2)``, by the continued fraction while it
    converges fast (``y <= 1.5 / (df/2 + 2.5)``), else ``1/2 - P(T > t)``: the quantile near the median solves this,
    not ``1/2 - P(T > t)``, which loses the digits of a small t."""
    a = 0.5 * df
    t2 = t * t
    s = df + t2
    y = t2 / s
    if y > 1.5 / (a + 2.5):  # the fraction would be slow; the tail is well below 1/2 here (t_tail's own split)
        return 0.5 - t_tail(t, df)
    if y == 0.0:  # t^2 underflows (t < 1e-154 or so): the density is flat this close to 0
        return t * t_density(0.0, df)
    log_power = -a * math.log1p(t2 / df) + 0.5 * math.log(y)
    return math.exp(log_power) * half_gamma_ratio(a) / _SQRT_PI * _betacf(0.5, a, y)


def t_density(t: float, df: float) -> float:
    """Student's t density at t."""
    if df > 1.0 / _EPS:
        return math.exp(-0.5 * t * t) / 2.50662827463100050242
    a = 0.5 * df
    log_kernel = (2.0 * math.log(abs(t)) - math.log(df)) if abs(t) > 1e100 else math.log1p(t * t / df)
    return half_gamma_ratio(a) / math.sqrt(df * math.pi) * math.exp(-(a + 0.5) * log_kernel)


def _log_tail_guess(p: float, df: float) -> float:
    """log t from the tail's power law, P(T > t) ~ Gamma((df+1)/2) df^((df-1)/2) / (sqrt(pi) Gamma(df/2)) t^-df:
    the start for heavy tails (small ``df``, tiny ``p``), where the normal quantile is far too small."""
    log_k = math.log(half_gamma_ratio(0.5 * df) / _SQRT_PI) + (0.5 * df - 1.0) * math.log(df)
    return (log_k - math.log(p)) / df


def t_isf(p: float, df: float) -> float:
    """The t >= 0 with P(T > t) = p, for 0 < p <= 1/2."""
    if p == 0.5:
        return 0.0
    if df == 1.0:
        return 1.0 / math.tan(math.pi * p)  # Cauchy
    if df == 2.0:
        return (1.0 - 2.0 * p) / math.sqrt(2.0 * p * (1.0 - p))
    if df > 1.0 / _EPS:
        return -ndtri(p)
    z = -ndtri(p)
    g = z * z
    guess = z * (1.0 + (g + 1.0) / (4.0 * df) + ((5.0 * g + 16.0) * g + 3.0) / (96.0 * df * df))  # Cornish-Fisher
    u = min(max(math.log(guess) if guess > 0 else -50.0, _log_tail_guess(p, df)), _LOG_MAX)
    if u == _LOG_MAX and t_tail(math.exp(u), df) > p:
        return math.inf  # beyond the largest double
    if p > 0.25:
        return _centre_quantile(0.5 - p, df, guess)
    lo, hi = -math.inf, math.inf  # bracket on log t
    log_p = math.log(p)
    for _ in range(200):
        t = math.exp(u)
        tail = t_tail(t, df)
        if tail > p:
            lo = u
        elif tail < p:
            hi = u
        else:
            return t
        if tail > 0.0:
            # Newton on log tail against log t: d log tail / d log t = -t f(t) / tail
            slope = -t * t_density(t, df) / tail
            new = u - (math.log(tail) - log_p) / slope if slope < 0 else math.nan
        else:
            new = math.nan
        if not lo < new < hi:  # a step out of the bracket: bisect it (or widen it)
            if hi == math.inf:
                if u >= _LOG_MAX:
                    return math.inf
                new = min(u + max(1.0, abs(u)), _LOG_MAX)
            elif lo == -math.inf:
                new = u - max(1.0, abs(u))
            else:
                new = 0.5 * (lo + hi)
        if abs(new - u) <= _EPS * max(1.0, abs(u)) or new in (lo, hi):
            return _polish(math.exp(new), p, df)
        u = new
    return _polish(math.exp(u), p, df)


def _polish(t: float, p: float, df: float) -> float:
    """Two Newton steps on t itself: log t carries only ~|log t| ulps of t (1e-13 at t = 1e160)."""
    for _ in range(2):
        density = t_density(t, df)
        if not density > 0.0 or math.isinf(t):
            break
        t += (t_tail(t, df) - p) / density
    return t


def _centre_quantile(c: float, df: float, guess: float) -> float:
    """The t with P(0 < T < t) = c (0 < c < 1/4): Newton's method on :func:`t_centre` from ``guess``, kept inside
    a bracket (a step that leaves it bisects, or doubles t while there is no upper end): for df well below 1 the
    start can be far off and a free step lands below 0."""
    lo, hi = 0.0, math.inf
    t = guess if guess > 0 else 1.0
    for _ in range(400):
        gap = t_centre(t, df) - c
        if gap < 0:
            lo = t
        elif gap > 0:
            hi = t
        else:
            return t
        density = t_density(t, df)
        new = t - gap / density if density > 0 else math.nan
        if not lo < new < hi:
            new = 2.0 * t if hi == math.inf else 0.5 * (lo + hi)
        if abs(new - t) <= _EPS * new or math.isinf(new):
            return new
        t = new
    return t
