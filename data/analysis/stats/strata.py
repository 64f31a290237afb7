"""Strata of units: which units form each stratum, the weight of each, and the rebalanced (stratified) mean.

Shared by the Wilson-Kish interval (:mod:`.proportions`) and the stratified bootstrap (:mod:`.bootstrap`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

#: The last lists of labels grouped, by identity, each with a copy of its labels to check it is unchanged: a
#: comparison passes the same labels (one row in one condition) to the mean, the interval and the constancy check,
#: and grouping thousands of labels costs ~0.4 ms each time. Emptied when full.
_RECENT: dict[int, tuple[list[Hashable], list[Hashable], dict[Hashable, np.ndarray]]] = {}
_RECENT_MAX = 64


def strata_index(n: int, strata: Sequence[Hashable] | np.ndarray | None) -> dict[Hashable, np.ndarray]:
    """Each stratum's unit positions (ascending), strata in order of first appearance; the arrays are read-only
    (they may be shared between calls)."""
    if strata is None:
        return {None: np.arange(n)}
    if len(strata) != n:
        raise ValueError("one stratum label per unit is needed")
    if type(strata) is list:
        hit = _RECENT.get(id(strata))
        if hit is not None and hit[0] is strata and hit[1] == strata:
            return dict(hit[2])
        groups = _grouped(n, strata)
        if len(_RECENT) >= _RECENT_MAX:
            _RECENT.clear()
        _RECENT[id(strata)] = (strata, list(strata), groups)
        return dict(groups)
    return _grouped(n, strata)


def _grouped(n: int, strata: Sequence[Hashable] | np.ndarray) -> dict[Hashable, np.ndarray]:
    # deferred: pandas loads only when `strata_index` runs (data.analysis.crossed loads this module without it)
    import pandas as pd

    labels = np.empty(n, dtype=object)
    labels[:] = list(strata) if not isinstance(strata, np.ndarray) else strata
    codes, uniques = pd.factorize(labels, sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    order.flags.writeable = False
    return {uniques[i]: order[bounds[i]:bounds[i + 1]] for i in range(len(uniques))}


def has_constant_stratum(values: np.ndarray, strata: Sequence[Hashable] | np.ndarray | None) -> bool:
    """Whether some stratum has fewer than two distinct (non-NaN) values: nothing to resample there.

    The same answer as ``pd.Series(values).groupby(pd.Series(strata, dtype=object)).nunique().min() < 2``
    (missing labels left out, no strata at all: ``False``) in plain numpy: that pandas groupby costs ~1 ms a
    call and a comparison asks it for every row and condition. ``strata=None``: one stratum of every unit.
    """
    x = np.asarray(values, dtype=float)
    for idx in strata_index(x.size, strata).values():
        vals = x[idx]
        vals = vals[~np.isnan(vals)]
        if vals.size == 0 or vals.min() == vals.max():
            return True
    return False


def stratum_weights(groups: Mapping[Hashable, np.ndarray],
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
    groups = strata_index(x.size, strata)
    w = stratum_weights(groups, weights)
    return float(sum(w[k] * x[idx].mean() for k, idx in groups.items()))
