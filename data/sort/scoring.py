"""SORT scoring shared by people and models: accuracy, 95% CIs, a one-sided binomial test against chance, and
the share of "A" answers (position bias).

Overall accuracy is the original's: the mean of ``correct`` per configuration, then the unweighted mean over
configurations (macro). Its CI is a bootstrap stratified by configuration with equal weights, so it describes the
same macro figure. Breakdowns (per configuration, excerpt length, segment length, distance bin) pool the trials
in the cell and use the Wilson interval. The p-value is the exact one-sided binomial test of the pooled count
against 50% (``alternative='greater'``, as the paper's analysis notebooks). X (no answer) counts as wrong; the
share of A is taken over answered trials, so 0.5 means no position bias.

Pooled humans (per condition, STM/LTM, when there are people): every real participant's first answer to an item
(book, excerpt, configuration, distance bin), each item counted once with the mean over the people who answered
it, as ``benchlab compare sort``; so an item three people saw does not weigh three times. n counts items there, the
CI is a bootstrap over items and p a one-sided sign-flip test of the item scores against 50%. Simulated
participants are listed under their own name and never pooled.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import pandas as pd
from scipy import stats as sps

from benchlab.data.analysis.stats import bootstrap_ci, format_p, sign_flip_p, stars, stratified_mean, wilson_ci
from benchlab.data.errors import BenchlabError
from benchlab.data.sort.items import read_rows
from benchlab.data.sort.results import read_many
from benchlab.data.sort.whole_book import gap_bin_label
from benchlab.data.tables import Table

POOLED_HUMANS = "humans (pooled)"
GAP_BIN_TABLE = ("by gap bin (whole-book design: words between the end of the earlier segment and the start of the "
                 "later one, bin [lower, right edge))")
CHANCE = 0.5


def binomial_greater(successes: int, n: int, chance: float = CHANCE) -> float:
    """One-sided exact binomial p-value that accuracy is above chance."""
    if n <= 0:
        return math.nan
    return float(sps.binomtest(int(successes), int(n), chance, alternative="greater").pvalue)


def _subjects(frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """Each model / participant (humans per condition, STM or LTM); simulated ones labelled as such."""
    labels = frame["model_name"].where(frame["condition"] == "", frame["model_name"] + " " + frame["condition"])
    labels = labels.where(frame["simulated"] == "", labels + " (simulated " + frame["simulated"] + ")")
    return [(str(name), group) for name, group in frame.groupby(labels, sort=True)]


def pooled_items(paths: Iterable[str | Path]) -> pd.DataFrame:
    """One row per (condition, item) answered by real people: mean correctness over the people who answered it.

    Items and first answers as in :func:`benchlab.data.sort.items.read_rows` (practice rows left out).
    """
    rows = read_rows(list(paths))
    people = rows[rows["is_human"] & (rows["simulated"] == "") & (rows["item"] != "")]
    people = people.drop_duplicates(["who", "condition", "item"], keep="first")
    if people.empty:
        return pd.DataFrame(columns=["condition", "item", "excerpt_length", "segment_length", "distance_bin",
                                     "design", "acc", "people"])
    return people.groupby(["condition", "item"], sort=False).agg(
        excerpt_length=("excerpt_length", "first"), segment_length=("segment_length", "first"),
        distance_bin=("distance_bin", "first"), design=("design", "first"), acc=("correct", "mean"),
        people=("who", "nunique"),
    ).reset_index()


def _pooled_name(condition: str) -> str:
    return POOLED_HUMANS if not condition else f"humans {condition} (pooled)"


def _pooled_cell(items: pd.DataFrame, trials: pd.DataFrame, strata: list[object] | None = None) -> dict[str, object]:
    """Items counted once: item-mean accuracy, bootstrap CI over items, one-sided sign-flip p vs 50%."""
    acc = items["acc"].to_numpy(dtype=float)
    value = stratified_mean(acc, strata)
    low, high = bootstrap_ci(acc, strata) if len(acc) > 1 else (math.nan, math.nan)
    p, _exact, _k = sign_flip_p(acc - CHANCE, strata, alternative="greater")
    row = _cell(trials)  # share of A, no answer, times: over the people's trials
    row.update({"n": len(items), "accuracy": round(value, 4), "ci_low": round(low, 4), "ci_high": round(high, 4),
                "p": _p(p), "sig": stars(p)})
    return row


def _cell(group: pd.DataFrame) -> dict[str, object]:
    n = len(group)
    k = int(group["correct"].sum())
    low, high = wilson_ci(k, n)
    answered = group[group["answer"] != "X"]
    p = binomial_greater(k, n)
    return {
        "n": n, "accuracy": round(k / n, 4) if n else math.nan, "ci_low": round(low, 4), "ci_high": round(high, 4),
        "p": _p(p), "sig": stars(p),
        "share_A": round(float((answered["answer"] == "A").mean()), 4) if len(answered) else math.nan,
        "no_answer": round(float((group["answer"] == "X").mean()), 4) if n else math.nan,
        "median_rt_s": _median_s(answered["rt_ms"]),
        "median_reading_s": _median_s(group["reading_ms"]),
    }


def _median_s(values: pd.Series) -> float:
    """Median of a millisecond column in seconds (people only; empty for model files)."""
    clean = values.dropna()
    return round(float(clean.median()) / 1000.0, 2) if len(clean) else math.nan


def _p(p: float) -> str:
    return format_p(p)


def overall_row(group: pd.DataFrame) -> dict[str, object]:
    """Macro accuracy over configurations with a configuration-stratified bootstrap CI."""
    configs = list(zip(group["excerpt_length"], group["segment_length"], strict=True))
    correct = group["correct"].astype(float).to_numpy()
    acc = stratified_mean(correct, configs)
    low, high = bootstrap_ci(correct, configs) if len(correct) > 1 else (math.nan, math.nan)
    k, n = int(group["correct"].sum()), len(group)
    p = binomial_greater(k, n)
    row = _cell(group)
    row.update({"configs": len(set(configs)), "accuracy": round(acc, 4), "ci_low": round(low, 4),
                "ci_high": round(high, 4), "p": _p(p), "sig": stars(p)})
    return row


def score_frame(frame: pd.DataFrame, include_practice: bool = False,
                items: pd.DataFrame | None = None) -> list[Table]:
    """The SORT tables for a scoring frame (see :func:`benchlab.data.sort.results.read_results`).

    ``items`` (:func:`pooled_items`) adds the pooled-humans rows, each item once.
    """
    if not include_practice:
        frame = frame[~frame["practice"]]
    if frame.empty:
        raise BenchlabError("no scored trials (only practice rows?)")
    subjects = _subjects(frame)
    people = frame[frame["is_human"] & (frame["simulated"] == "") & ~frame["practice"]]
    pooled: list[tuple[str, pd.DataFrame, pd.DataFrame]] = []
    if items is not None and not items.empty:
        conditions = sorted(items["condition"].astype(str).unique())
        pooled = [(_pooled_name(c), items[items["condition"] == c], people[people["condition"] == c])
                  for c in conditions]
    overall_rows = {name: overall_row(g) for name, g in subjects}
    for name, its, trials in pooled:
        strata: list[object] = list(zip(its["excerpt_length"], its["segment_length"], strict=True))
        overall_rows[name] = _pooled_cell(its, trials, strata)
        overall_rows[name]["configs"] = len(set(strata))
    overall = pd.DataFrame(overall_rows).T
    overall.index.name = "model"
    cols = ["configs", "n", "accuracy", "ci_low", "ci_high", "p", "sig", "share_A", "no_answer", "median_rt_s",
            "median_reading_s"]
    pooled_note = ("; pooled humans: each item once, n = items, CI: bootstrap over items, p: one-sided sign-flip"
                   if pooled else "")
    tables = [Table("SORT accuracy (macro over configurations, as the original; CI: stratified bootstrap; "
                    f"p: one-sided binomial vs 50%{pooled_note})", overall[cols])]
    whole_book = GAP_BIN_TABLE if (frame["design"] == "whole-book").any() else None
    for title, keys in (
        ("by configuration", ["excerpt_length", "segment_length"]),
        ("by excerpt length", ["excerpt_length"]),
        ("by segment length", ["segment_length"]),
        ("by distance bin (right edge, words; within excerpt length)", ["excerpt_length", "distance_bin"]),
        *([(whole_book, ["segment_length", "distance_bin"])] if whole_book else []),
    ):
        # Distance bins are the excerpt design's; the whole-book design's gap bins get their own table.
        design = "whole-book" if title == whole_book else "excerpt" if "distance_bin" in keys else None
        rows = {}
        for name, g in subjects:
            if design is not None:
                g = g[g["design"] == design]
            for key, cell in g.groupby(keys, sort=True):
                key_t = key if isinstance(key, tuple) else (key,)
                rows[(name, *(int(str(x)) for x in key_t))] = _cell(cell)
        for name, its, trials in pooled:
            if design is not None:
                its, trials = its[its["design"] == design], trials[trials["design"] == design]
            for key, cell_items in its.groupby(keys, sort=True):
                key_t = key if isinstance(key, tuple) else (key,)
                mask = pd.Series(True, index=trials.index)
                for col, val in zip(keys, key_t, strict=True):
                    mask &= trials[col] == val
                rows[(name, *(int(str(x)) for x in key_t))] = _pooled_cell(cell_items, trials[mask])
        if not rows:
            continue  # e.g. no distance bins when every trial is whole-book
        table = pd.DataFrame(rows).T
        table.index.names = ["model", *keys]
        if design == "whole-book":
            table.index = table.index.set_names("gap_bin_right_edge", level="distance_bin")
            table.insert(0, "gap_bin", [gap_bin_label(int(edge)) for edge in
                                        table.index.get_level_values("gap_bin_right_edge")])
        how = "Wilson; pooled humans: items, bootstrap" if pooled else "Wilson"
        tables.append(Table(f"SORT accuracy {title} (CI: {how})", table))
    return tables


def score_paths(paths: Iterable[str | Path], include_practice: bool = False) -> list[Table]:
    """Read human and model results files (or folders) and score them, with the pooled humans."""
    paths = list(paths)
    frame = read_many(paths)
    real = frame["is_human"] & (frame["simulated"] == "") & ~frame["practice"]
    return score_frame(frame, include_practice, pooled_items(paths) if real.any() else None)
