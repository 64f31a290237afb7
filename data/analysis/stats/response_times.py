"""Response times (median and IQR, accuracy by RT quantile), spread across participants, and the attention
criterion (control accuracy, share of too-fast responses) that flags participants."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchlab.data.analysis.stats.proportions import wilson_ci


@dataclass(frozen=True)
class RTSummary:
    n: int
    median: float
    q1: float
    q3: float

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1


def rt_summary(rts_ms: Sequence[float] | np.ndarray) -> RTSummary:
    """Median and IQR (numpy's linear quantiles, the same as R type 7) of response times, ignoring missing ones."""
    x = np.asarray(rts_ms, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return RTSummary(0, math.nan, math.nan, math.nan)
    q1, med, q3 = np.quantile(x, [0.25, 0.5, 0.75])
    return RTSummary(int(x.size), float(med), float(q1), float(q3))


@dataclass(frozen=True)
class RTBin:
    quantile: int  # 1-based
    lo_ms: float
    hi_ms: float
    n: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else math.nan

    @property
    def ci(self) -> tuple[float, float]:
        return wilson_ci(self.correct, self.n)


def accuracy_by_rt_quantile(rts_ms: Sequence[float] | np.ndarray, correct: Sequence[bool] | np.ndarray,
                            quantiles: int = 4) -> list[RTBin]:
    """Accuracy per RT quantile bin (speed-accuracy check), bins by rank so each holds n/q responses.

    Rank binning (Vincentiles) keeps bins equally full even when RTs tie; each bin reports its RT range.
    """
    rt = np.asarray(rts_ms, dtype=float)
    ok = np.asarray(correct, dtype=bool)
    keep = ~np.isnan(rt)
    rt, ok = rt[keep], ok[keep]
    n = rt.size
    if n == 0:
        return []
    order = np.argsort(rt, kind="stable")
    which = np.empty(n, dtype=int)
    which[order] = (np.arange(n) * quantiles) // n
    bins = []
    for b in range(quantiles):
        mask = which == b
        if not mask.any():
            continue
        bins.append(RTBin(b + 1, float(rt[mask].min()), float(rt[mask].max()), int(mask.sum()), int(ok[mask].sum())))
    return bins


@dataclass(frozen=True)
class Spread:
    n: int
    min: float
    median: float
    max: float


def spread(values: Sequence[float] | np.ndarray) -> Spread:
    """Per-participant spread of a score (min, median, max), NaNs ignored."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return Spread(0, math.nan, math.nan, math.nan)
    return Spread(int(x.size), float(x.min()), float(np.median(x)), float(x.max()))


@dataclass(frozen=True)
class AttentionCriterion:
    """The experimenter's exclusion rule; a participant failing any part is flagged (and can be excluded).

    ``min_control_accuracy``: accuracy required on control items (e.g. a benchmark's trivial problems).
    ``fast_ms`` / ``max_fast_share``: responses faster than ``fast_ms`` count as too fast; more than
    ``max_fast_share`` of them flags the participant.
    """

    min_control_accuracy: float | None = None
    fast_ms: float | None = None
    max_fast_share: float = 0.1

    def describe(self) -> str:
        parts = []
        if self.min_control_accuracy is not None:
            parts.append(f"control accuracy >= {self.min_control_accuracy:.0%}")
        if self.fast_ms is not None:
            parts.append(f"<= {self.max_fast_share:.0%} of responses faster than {self.fast_ms:g} ms")
        return "; ".join(parts) if parts else "none"

    @property
    def active(self) -> bool:
        return self.min_control_accuracy is not None or self.fast_ms is not None

    def reasons(self, control_accuracy: float | None, rts_ms: Sequence[float] | np.ndarray) -> list[str]:
        out: list[str] = []
        if (self.min_control_accuracy is not None and control_accuracy is not None
                and control_accuracy == control_accuracy and control_accuracy < self.min_control_accuracy):
            out.append(f"control accuracy {control_accuracy:.0%} < {self.min_control_accuracy:.0%}")
        if self.fast_ms is not None:
            rt = np.asarray(rts_ms, dtype=float)
            rt = rt[~np.isnan(rt)]
            if rt.size:
                share = float(np.mean(rt < self.fast_ms))
                if share > self.max_fast_share:
                    out.append(f"{share:.0%} of responses < {self.fast_ms:g} ms")
        return out
