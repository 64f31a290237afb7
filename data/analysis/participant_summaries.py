"""What the pipeline reports about people beside the scores: spread across participants, response-time summaries,
and agreement between people on shared items.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

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
    shared = shared_items(readings, people)
    if shared is None:
        return {}
    multi, answers, right, group_of = shared
    if design.agreement_items_sorted:
        order = sorted(range(len(multi)), key=lambda i: str(multi[i]))
        answers, right, group_of = [answers[i] for i in order], [right[i] for i in order], [group_of[i] for i in order]
    out: dict[str, Agreement] = {}
    if len(readings.groups) > 1:
        out[design.overall_agreement] = stats.agreement(right if design.overall_agreement_on_correctness
                                                        else answers)
    for g in readings.groups:
        in_group = [a for a, k in zip(answers, group_of, strict=True) if k == g]
        if in_group:
            out[g] = stats.agreement(in_group)
    return out


SharedItems = tuple[list[Hashable], list[list[object]], list[list[bool]], list[object]]


def shared_items(readings: Readings, people: set[str]) -> SharedItems | None:
    """The items two or more of ``people`` answered, in the order they first appear (participants in order, each in
    presentation order), with each item's first answer per person (in participant order), whether it was right,
    and the group of its first answer; ``None`` when no item was answered twice.

    Why arrays: a lab's ~9,000 answers went through four dict updates each (~0.05 s of a WorldSense comparison);
    the items are factorised once and grouped by a stable sort, which keeps the same order and the same answers.
    """
    frames = [p.answers for p in readings.participants if p.name in people]
    if not frames:
        return None
    item = np.concatenate([f["item"].to_numpy(dtype=object) for f in frames])
    person = np.repeat(np.arange(len(frames)), [len(f) for f in frames])
    # an item without identity (None) is no evidence of agreement
    rows = np.flatnonzero(np.fromiter((i is not None for i in item), dtype=bool, count=len(item)))
    codes, uniques = pd.factorize(item[rows], sort=False)
    if (codes < 0).any():  # a missing value pandas sets apart (NaN) is its own item to a dict: decided one by one
        return _shared_items_by_loop(frames, item, person)
    first = np.unique(person[rows] * len(uniques) + codes, return_index=True)[1]  # each person's first answer
    keep = np.sort(first)
    rows, codes = rows[keep], codes[keep]
    counts = np.bincount(codes, minlength=len(uniques))
    on = counts[codes] >= 2
    rows, codes = rows[on], codes[on]
    if not len(rows):
        return None
    order = np.argsort(codes, kind="stable")
    rows, codes = rows[order], codes[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    answer = np.concatenate([f["answer"].to_numpy(dtype=object) for f in frames])[rows]
    right = np.concatenate([f["correct"].to_numpy(dtype=bool) for f in frames])[rows]
    group = np.concatenate([f["group"].to_numpy(dtype=object) for f in frames])[rows[starts]]
    bounds = [*starts[1:].tolist(), len(rows)]
    return ([uniques[c] for c in codes[starts]], [answer[a:b].tolist() for a, b in zip(starts, bounds, strict=True)],
            [right[a:b].tolist() for a, b in zip(starts, bounds, strict=True)], group.tolist())


def _shared_items_by_loop(frames: list[pd.DataFrame], item: np.ndarray, person: np.ndarray) -> SharedItems | None:
    """:func:`shared_items` one answer at a time (items pandas cannot group as a dict would)."""
    answer = np.concatenate([f["answer"].to_numpy(dtype=object) for f in frames]).tolist()
    right = np.concatenate([f["correct"].to_numpy(dtype=bool) for f in frames]).tolist()
    group = np.concatenate([f["group"].to_numpy(dtype=object) for f in frames]).tolist()
    answers: dict[Hashable, list[object]] = {}
    rights: dict[Hashable, list[bool]] = {}
    group_of: dict[Hashable, object] = {}
    seen: set[tuple[int, Hashable]] = set()
    for n, (key, who) in enumerate(zip(item.tolist(), person.tolist(), strict=True)):
        if key is None or (who, key) in seen:
            continue
        seen.add((who, key))
        answers.setdefault(key, []).append(answer[n])
        rights.setdefault(key, []).append(bool(right[n]))
        group_of.setdefault(key, group[n])
    multi = [k for k, v in answers.items() if len(v) >= 2]
    if not multi:
        return None
    return multi, [answers[k] for k in multi], [rights[k] for k in multi], [group_of[k] for k in multi]
