"""Agreement between people on the same items: percent agreement, Fleiss' and Cohen's kappa."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

#: Fewer items answered by 2 or more people than this: no kappa ("n/a" with the reason). On one or two shared items
#: kappa swings between -1 and 1 with a single answer (SORT's own draw per person shares almost none: -1.000 on one
#: item was printed as if it meant something); a shared item list (``--shared-items``) gives every item.
MIN_SHARED_ITEMS = 10


@dataclass(frozen=True)
class Agreement:
    """Agreement of several raters on shared items."""

    raters: int  # most ratings on one item
    items: int
    percent: float  # mean pairwise agreement per item (Fleiss' P-bar)
    unanimous: float  # share of items where everybody gave the same answer
    kappa: float  # Fleiss' kappa (Cohen's for exactly 2 raters is reported separately); nan: see ``note``
    method: str = "Fleiss' kappa"
    note: str = ""  # why there is no kappa (too few shared items), "" when there is one


def percent_agreement(ratings: Sequence[Sequence[Hashable]]) -> float:
    """Mean over items of the share of agreeing rater pairs (rows = items, columns = raters)."""
    vals = []
    for row in ratings:
        k = len(row)
        if k < 2:
            continue
        counts = Counter(row).values()
        vals.append(sum(c * (c - 1) for c in counts) / (k * (k - 1)))
    return float(np.mean(vals)) if vals else math.nan


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float:
    """Fleiss' kappa; items need >= 2 ratings each.

    With the same number of raters per item this is statsmodels' implementation (``_fleiss_equal_raters``, its
    arithmetic step for step: importing statsmodels costs ~0.8 s CPU, most of a comparison). When the number
    varies (people answered overlapping but different item sets) it uses the usual extension: per-item agreement
    ``P_i = sum_j n_ij (n_ij - 1) / (n_i (n_i - 1))`` averaged over items, chance agreement from the pooled category
    shares; it reduces to Fleiss (1971) when every n_i is equal.
    """
    rows = [list(r) for r in ratings]
    if not rows:
        return math.nan
    if any(len(r) < 2 for r in rows):
        raise ValueError("Fleiss' kappa needs at least 2 ratings for every item")
    cats = sorted({c for r in rows for c in r}, key=str)
    if len(cats) == 1:
        return math.nan  # no variation at all: chance agreement is 1, kappa undefined
    table = np.array([[counts[c] for c in cats] for counts in map(Counter, rows)], dtype=float)  # one count a row
    n_i = table.sum(axis=1)
    if np.all(n_i == n_i[0]):
        return _fleiss_equal_raters(table)
    p_i = ((table * (table - 1)).sum(axis=1)) / (n_i * (n_i - 1))
    p_cat = table.sum(axis=0) / table.sum()
    pe = float((p_cat**2).sum())
    return (float(p_i.mean()) - pe) / (1 - pe)


def _fleiss_equal_raters(table: np.ndarray) -> float:
    """``statsmodels.stats.inter_rater.fleiss_kappa(table, method="fleiss")``, the same operations in the same order
    (so the same bits; the tests check it against statsmodels): every item rated by the same number of raters."""
    table = 1.0 * np.asarray(table)
    n_total = table.sum()
    n_rat = table.sum(1).max()
    p_cat = table.sum(0) / n_total
    p_rat = ((table * table).sum(1) - n_rat) / (n_rat * (n_rat - 1.0))
    p_mean = p_rat.mean()
    p_mean_exp = (p_cat * p_cat).sum()
    return float((p_mean - p_mean_exp) / (1 - p_mean_exp))


def agreement(ratings: Sequence[Sequence[Hashable]]) -> Agreement:
    """Agreement over the items that have at least 2 ratings (``raters`` = most ratings on one item)."""
    rows = [list(r) for r in ratings if len(r) >= 2]
    k = max((len(r) for r in rows), default=0)
    unanimous = float(np.mean([len(set(r)) == 1 for r in rows])) if rows else math.nan
    if len(rows) < MIN_SHARED_ITEMS:
        note = (f"{len(rows)} item(s) answered by 2 or more people, fewer than {MIN_SHARED_ITEMS}: no kappa "
                "(give people the same items, e.g. a shared item list)")
        return Agreement(k, len(rows), percent_agreement(rows), unanimous, math.nan, note=note)
    kappa = fleiss_kappa(rows)
    return Agreement(k, len(rows), percent_agreement(rows), unanimous, kappa)


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float:
    """Cohen's kappa for two raters: (p_o - p_e) / (1 - p_e) with each rater's own marginals."""
    if len(first) != len(second):
        raise ValueError("Cohen's kappa needs two ratings for every item")
    n = len(first)
    if n == 0:
        return math.nan
    po = sum(a == b for a, b in zip(first, second, strict=True)) / n
    ca, cb = Counter(first), Counter(second)
    pe = sum(ca[c] * cb[c] for c in set(ca) | set(cb)) / (n * n)
    if pe == 1:
        return math.nan
    return (po - pe) / (1 - pe)
