"""Strata of units: which units form each stratum, the weight of each, and the rebalanced (stratified) mean.

Shared by the Wilson-Kish interval (:mod:`.proportions`) and the stratified bootstrap (:mod:`.bootstrap`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence

import numpy as np


def strata_index(n: int, strata: Sequence[Hashable] | np.ndarray | None) -> dict[Hashable, np.ndarray]:
    if strata is None:
        return {None: np.arange(n)}
    if len(strata) != n:
        raise ValueError("one stratum label per unit is needed")
    # deferred: pandas loads only when `strata_index` runs (data.analysis.crossed loads this module without it)
    import pandas as pd

    labels = np.empty(n, dtype=object)
    labels[:] = list(strata) if not isinstance(strata, np.ndarray) else strata
    codes, uniques = pd.factorize(labels, sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
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
