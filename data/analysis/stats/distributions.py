"""The normal and t quantiles and tail probabilities the comparisons print, and scipy's ``brentq``, in plain Python.

Why not ``scipy.stats`` or ``scipy.special``: importing ``scipy.stats`` costs ~0.5 s CPU (it parses every
distribution's docstring) and ``scipy.special`` ~0.25 s (its array-API layer), a quarter to a half of a whole
``benchlab compare``. The normal functions are Cephes' (:mod:`.normal_dist`, scipy's to the bit), the t functions
the incomplete beta function's (:mod:`.student_t`, within ~1e-13 of scipy, closer than scipy's own quantile where
that one is off). The exact tests that need more (the beta quantiles of Clopper-Pearson, the binomial test) still
import ``scipy.stats``, when they run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from benchlab.data.analysis.stats.normal_dist import ndtr, ndtri
from benchlab.data.analysis.stats.student_t import t_isf, t_tail


def norm_ppf(q: float) -> float:
    """``scipy.stats.norm.ppf(q)``: -inf at 0, inf at 1, nan outside [0, 1]."""
    return ndtri(q)


def norm_sf(x: float) -> float:
    """``scipy.stats.norm.sf(x)`` (``ndtr(-x)``, as scipy computes it)."""
    return ndtr(-x)


@lru_cache(maxsize=4096)
def t_ppf(q: float, df: float) -> float:
    """``scipy.stats.t.ppf(q, df)``: nan for ``df <= 0`` or ``q`` outside [0, 1], the support's ends at 0 and 1.
    Remembered: a comparison asks for the same (0.975, people - 1) for many rows, and each answer is an iteration
    (~0.3 ms)."""
    if not df > 0 or not 0.0 <= q <= 1.0:
        return math.nan
    if q == 0.0:
        return -math.inf
    if q == 1.0:
        return math.inf
    return -t_isf(q, df) if q <= 0.5 else t_isf(1.0 - q, df)


def t_sf(x: float, df: float) -> float:
    """``scipy.stats.t.sf(x, df)``: nan for ``df <= 0`` or a nan ``x``."""
    if not df > 0 or x != x:
        return math.nan
    if math.isinf(x):
        return 0.0 if x > 0 else 1.0
    return t_tail(x, df) if x >= 0 else 1.0 - t_tail(-x, df)


def brentq(f: Callable[[float], float], xa: float, xb: float, xtol: float = 2e-12,
           rtol: float = 8.881784197001252e-16, maxiter: int = 100) -> float:
    """``scipy.optimize.brentq(f, xa, xb, xtol=..)``: scipy's C routine (``Zeros/brentq.c``) line for line in
    Python floats, so the same root to the bit (the tests compare them); ``scipy.optimize`` costs ~0.15 s CPU to
    import. ``f(xa)`` and ``f(xb)`` must differ in sign (or one be 0)."""
    xpre, xcur = xa, xb
    xblk = fblk = spre = scur = 0.0
    fpre, fcur = f(xpre), f(xcur)
    if fpre == 0:
        return xpre
    if fcur == 0:
        return xcur
    if math.copysign(1.0, fpre) == math.copysign(1.0, fcur):
        raise ValueError("f(a) and f(b) must have different signs")
    for _ in range(maxiter):
        if fpre != 0 and fcur != 0 and math.copysign(1.0, fpre) != math.copysign(1.0, fcur):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:  # interpolate
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:  # extrapolate
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):  # good short step
                spre, scur = scur, stry
            else:  # bisect
                spre = scur = sbis
        else:  # bisect
            spre = scur = sbis
        xpre, fpre = xcur, fcur
        xcur += scur if abs(scur) > delta else (delta if sbis > 0 else -delta)
        fcur = f(xcur)
    raise RuntimeError(f"brentq: no convergence in {maxiter} iterations")
