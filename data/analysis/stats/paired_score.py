"""Paired right/wrong answers (a person and a model on the same items): one score test and the interval that
inverts it (Tango 1998).

The test of "no difference" is the score test of ``p10 - p01 = delta0`` with the constrained maximum-likelihood
estimate of the discordant probability; at ``delta0 = 0`` it is McNemar's statistic. The interval is every
``delta0`` the same test does not reject, so the printed interval and p always agree (0 is inside exactly when
p >= .05), and it is never zero width: a person and a model who both always answered "A" on 40 trials (no
discordant pair) get about [-8.8, +8.8] points, not [0, 0].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from benchlab.data.analysis.stats.distributions import brentq, norm_ppf, norm_sf
from benchlab.data.analysis.stats.proportions import TestResult

METHOD = "paired score test (Tango), interval by inverting it"


def _score(n10: int, n01: int, n: int, delta: float) -> float:
    """Tango's score statistic of ``p10 - p01 = delta`` (decreasing in ``delta``)."""
    m = n - n10 - n01
    b = (n10 + n01) * (1 - delta) - 2 * delta * (n01 + m)
    c = n01 * delta * (1 - delta)
    p01 = (b + math.sqrt(max(0.0, b * b + 8 * n * c))) / (4 * n)
    p01 = min(max(p01, max(0.0, -delta)), (1 - delta) / 2)
    var = n * (2 * p01 + delta - delta * delta)
    num = n10 - n01 - n * delta
    if var <= 0:
        return 0.0 if num == 0 else math.copysign(math.inf, num)
    return num / math.sqrt(var)


def tango_test(first: Sequence[bool] | np.ndarray, second: Sequence[bool] | np.ndarray,
               level: float = 0.95) -> TestResult:
    """Score test of first-minus-second accuracy on paired items, with the interval inverting it."""
    a = np.asarray(first, dtype=bool)
    b = np.asarray(second, dtype=bool)
    if a.shape != b.shape:
        raise ValueError("a paired test needs two answers for every item")
    n = int(a.size)
    if n == 0:
        return TestResult(METHOD, math.nan, math.nan, math.nan, math.nan, note="no shared items")
    n10 = int(np.sum(a & ~b))
    n01 = int(np.sum(~a & b))
    diff = (n10 - n01) / n
    z0 = _score(n10, n01, n, 0.0)
    p = float(2 * norm_sf(abs(z0))) if z0 == z0 else 1.0
    q = float(norm_ppf(0.5 + level / 2))
    eps = 1e-9

    def bound(target: float, lo: float, hi: float) -> float:
        f = lambda d: _score(n10, n01, n, d) - target  # noqa: E731 - a root's function, used once
        if f(lo) * f(hi) > 0:
            return lo if abs(f(lo)) < abs(f(hi)) else hi
        return brentq(f, lo, hi, xtol=1e-10)

    low = bound(q, -1 + eps, diff) if diff > -1 + eps else -1.0
    high = bound(-q, diff, 1 - eps) if diff < 1 - eps else 1.0
    return TestResult(METHOD, diff, max(-1.0, low), min(1.0, high), min(1.0, p), z0, n,
                      note=f"discordant {n10}/{n01}")
