"""Per-cell mean and variance computed exactly as pandas' groupby does, with numpy only.

The published numbers come from pandas' ``groupby().mean()`` (Kahan-compensated sum) and ``.var()`` (Welford's
online update), whose last bits depend on the order of the additions. Reproducing those two loops here, in row
order, gives bit-identical values (tests compare them with pandas) without importing pandas and its ~140 MB of
libraries while the data is being scored, which keeps the scorer's peak memory low.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GroupStats:
    """Statistics per group (index = group id): count, mean, var (ddof 1, NaN for one value), std, sem."""

    count: np.ndarray
    mean: np.ndarray
    var: np.ndarray

    @property
    def std(self) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.sqrt(self.var)

    @property
    def sem(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sqrt(self.var / self.count)


def group_stats(groups: np.ndarray, values: np.ndarray, n_groups: int) -> GroupStats:
    """Count, mean and sample variance of ``values`` per group id, visiting each group's values in row order.

    Values must be finite (scores are); every group id in ``range(n_groups)`` must occur at least once.
    """
    values = np.asarray(values, dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError("group_stats needs finite values")
    counts = np.bincount(groups, minlength=n_groups)
    if (counts == 0).any():
        raise ValueError("every group needs at least one value")
    # Lay each group's values out in a row (row order kept), longest groups first so that at step j the groups
    # still running are a prefix: every running group then has exactly j + 1 observations.
    by_length = np.argsort(-counts, kind="stable")
    position_of = np.empty(n_groups, dtype=np.int64)
    position_of[by_length] = np.arange(n_groups)
    order = np.argsort(groups, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(len(values)) - np.repeat(starts, counts)
    max_len = int(counts.max())
    matrix = np.zeros((n_groups, max_len))
    matrix[position_of[groups[order]], rank] = values[order]
    running = np.searchsorted(-counts[by_length], -np.arange(1, max_len + 1), side="right")

    total = np.zeros(n_groups)
    compensation = np.zeros(n_groups)
    mean = np.zeros(n_groups)
    m2 = np.zeros(n_groups)
    for j in range(max_len):
        k = int(running[j])
        v = matrix[:k, j]
        # Kahan-compensated sum (pandas group_mean / group_sum).
        y = v - compensation[:k]
        t = total[:k] + y
        compensation[:k] = t - total[:k] - y
        total[:k] = t
        # Welford's update (pandas group_var).
        old = mean[:k].copy()
        mean[:k] = old + (v - old) / (j + 1)
        m2[:k] += (v - mean[:k]) * (v - old)
    n = counts[by_length].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(n > 1, m2 / (n - 1), np.nan)
    out_mean = np.empty(n_groups)
    out_var = np.empty(n_groups)
    out_mean[by_length] = total / n
    out_var[by_length] = var
    return GroupStats(count=counts, mean=out_mean, var=out_var)
