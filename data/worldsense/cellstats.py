"""Per-cell mean and variance computed exactly as pandas' groupby does, with numpy only.

The published numbers come from pandas' ``groupby().mean()`` and ``.var()`` (Welford's online update), whose last
bits can depend on the order of the operations. WorldSense tuple scores are multiples of 1/4 (weights 0.25 and
0.5 summing to 1), so every sum is exact and the mean is the same in any order; the variance follows Welford's
update in row order, which tests show to be bit-identical to pandas. Doing this without pandas keeps its ~140 MB
of libraries out of memory while the data is being scored. For any other values :func:`group_stats` returns
``None`` and the caller uses pandas itself.
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


def is_quarter_grid(values: np.ndarray) -> bool:
    """Whether all values are finite multiples of 1/4 small enough for every partial sum to be exact."""
    scaled = values * 4
    return bool(np.isfinite(values).all() and (scaled == np.round(scaled)).all() and len(values) * (
        float(np.abs(scaled).max()) if len(values) else 0.0) < 2**50)


def group_stats(groups: np.ndarray, values: np.ndarray, n_groups: int) -> GroupStats | None:
    """Count, mean and sample variance of ``values`` per group id, visiting each group's values in row order.

    ``values`` may be 2-D (one column per measure, e.g. accuracy and bias): the columns are reduced together in
    one pass (half the per-step overhead of two calls), each exactly as alone; mean and var then have one column
    per measure. Every group id in ``range(n_groups)`` must occur at least once. Returns ``None`` unless the
    values are on the quarter grid (see the module docstring): then use pandas.
    """
    values = np.asarray(values, dtype=np.float64)
    if not is_quarter_grid(values):
        return None
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
    extra = values.shape[1:]
    matrix = np.zeros((max_len, n_groups, *extra))  # step-major: each step's values are contiguous
    matrix[rank, position_of[groups[order]]] = values[order]
    running = np.searchsorted(-counts[by_length], -np.arange(1, max_len + 1), side="right")

    mean = np.zeros((n_groups, *extra))
    m2 = np.zeros((n_groups, *extra))
    for j in range(max_len):
        k = int(running[j])
        v = matrix[j, :k]
        # Welford's update (pandas group_var), operand for operand: delta is pandas' (v - old mean).
        running_mean = mean[:k]
        delta = v - running_mean
        running_mean += delta / (j + 1)
        m2[:k] += (v - running_mean) * delta
    # pandas' group mean is a Kahan-compensated sum over the count; on the quarter grid every partial sum is exact
    # (the compensation stays 0), so any summation order gives the same total.
    total = np.zeros((n_groups, *extra))
    np.add.at(total, position_of[groups], values)
    n = counts[by_length].astype(np.float64).reshape((n_groups,) + (1,) * len(extra))
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(n > 1, m2 / (n - 1), np.nan)
    out_mean = np.empty((n_groups, *extra))
    out_var = np.empty((n_groups, *extra))
    out_mean[by_length] = total / n
    out_var[by_length] = var
    return GroupStats(count=counts, mean=out_mean, var=out_var)
