"""The normal and t quantiles and tail probabilities the comparisons print, through the ``scipy.special`` ufuncs that
``scipy.stats.norm`` and ``scipy.stats.t`` call inside ``ppf``/``sf`` (the same bits, the same edge values).

Why not ``scipy.stats`` itself: importing it costs ~0.5 s CPU (it parses every distribution's docstring), more than
half of a whole ``benchlab compare``. The exact tests that need more than these four functions (the beta quantiles
of Clopper-Pearson, the binomial test) still import ``scipy.stats``, when they run.
"""

from __future__ import annotations

import math

from scipy import special as sc


def norm_ppf(q: float) -> float:
    """``scipy.stats.norm.ppf(q)``: -inf at 0, inf at 1, nan outside [0, 1]."""
    return float(sc.ndtri(q))


def norm_sf(x: float) -> float:
    """``scipy.stats.norm.sf(x)`` (``ndtr(-x)``, as scipy computes it)."""
    return float(sc.ndtr(-x))


def t_ppf(q: float, df: float) -> float:
    """``scipy.stats.t.ppf(q, df)``: nan for ``df <= 0`` or ``q`` outside [0, 1], the support's ends at 0 and 1."""
    if not df > 0 or not 0.0 <= q <= 1.0:
        return math.nan
    if q == 0.0:
        return -math.inf
    if q == 1.0:
        return math.inf
    return float(sc.stdtrit(df, q))


def t_sf(x: float, df: float) -> float:
    """``scipy.stats.t.sf(x, df)``: nan for ``df <= 0`` or a nan ``x``."""
    if not df > 0 or x != x:
        return math.nan
    return float(sc.stdtr(df, -x))
