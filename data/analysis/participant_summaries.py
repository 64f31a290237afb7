"""What the pipeline reports about people beside the scores: spread across participants, response-time summaries,
and agreement between people on shared items.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np

from benchlab.data.analysis import stats
from benchlab.data.analysis.design import (
    OVERALL,
    Design,
    Readings,
)

if TYPE_CHECKING:  # annotations only: the agreement and RT modules load when these are computed
    from benchlab.data.analysis.stats import Agreement, FigureCell, RTBin, RTSummary, Spread


def spread_by_condition(conditions: list[str], people: list[str],
                        cells: dict[tuple[str, str], FigureCell]) -> dict[str, Spread]:
    """Min / median / max over the people who may be pooled (flagged ones included), per condition."""
    out = {}
    for c in conditions:
        vals = [cells[(p, c)].value for p in people if (p, c) in cells]
        if vals:
            out[c] = stats.spread(vals)
    return out


def response_times(readings: Readings, quantiles: int) -> tuple[list[tuple[str, str, RTSummary]],
                                                                 dict[str, list[RTBin]], dict[str, list[float]]]:
    """Per participant: RT median/IQR overall and per group, item accuracy by RT quantile, the raw RTs."""
    rows: list[tuple[str, str, RTSummary]] = []
    bins: dict[str, list[RTBin]] = {}
    raw: dict[str, list[float]] = {}
    for p in readings.participants:
        rts = p.answers["rt_ms"].to_numpy(dtype=float)
        raw[p.name] = rts[~np.isnan(rts)].tolist()  # the same floats, without a numpy scalar test per answer
        if not np.isfinite(rts).any():
            continue
        if len(readings.groups) > 1:
            rows.append((p.name, OVERALL, stats.rt_summary(rts)))
        group = p.answers["group"].to_numpy(dtype=object)
        for g in readings.groups:
            mask = group == g
            if mask.any():
                rows.append((p.name, g, stats.rt_summary(rts[mask])))
        bins[p.name] = stats.accuracy_by_rt_quantile(rts, p.answers["correct"].to_numpy(dtype=bool), quantiles)
    return rows, bins, raw


def rts_by_group(readings: Readings) -> dict[str, dict[str, list[float]]]:
    """Every participant's recorded RTs per group, for figures that keep conditions apart."""
    out: dict[str, dict[str, list[float]]] = {}
    for p in readings.participants:
        rts = p.answers["rt_ms"].to_numpy(dtype=float)
        group = p.answers["group"].to_numpy(dtype=object)
        for g in readings.groups:
            here = rts[group == g]
            vals = here[~np.isnan(here)].tolist()
            if vals:
                out.setdefault(p.name, {})[str(g)] = vals
    return out


def agreement_between_people(design: Design, readings: Readings, people: set[str]) -> dict[str, Agreement]:
    """Agreement on items answered by two or more people (first answers; simulated ones only when pooled)."""
    answers: dict[Hashable, list[str]] = {}
    right: dict[Hashable, list[bool]] = {}
    group_of: dict[Hashable, object] = {}
    for p in readings.participants:
        if p.name not in people:
            continue  # a simulated participant's answers are no evidence of agreement between people
        seen: set[Hashable] = set()
        a = p.answers
        # plain lists: iterating four pandas columns element by element cost most of this function
        for item, answer, ok, group in zip(a["item"].tolist(), a["answer"].tolist(), a["correct"].tolist(),
                                           a["group"].tolist(), strict=True):
            if item is None or item in seen:
                continue
            seen.add(item)
            answers.setdefault(item, []).append(answer)
            right.setdefault(item, []).append(bool(ok))
            group_of.setdefault(item, group)
    multi = [k for k, v in answers.items() if len(v) >= 2]
    if design.agreement_items_sorted:
        multi = sorted(multi, key=str)
    out: dict[str, Agreement] = {}
    if not multi:
        return out
    if len(readings.groups) > 1:
        if design.overall_agreement_on_correctness:
            out[design.overall_agreement] = stats.agreement([right[k] for k in multi])
        else:
            out[design.overall_agreement] = stats.agreement([answers[k] for k in multi])
    for g in readings.groups:
        in_group = [answers[k] for k in multi if group_of[k] == g]
        if in_group:
            out[g] = stats.agreement(in_group)
    return out
