"""SORT scoring shared by people and models: accuracy, 95% CIs, a one-sided binomial test against chance, and
the share of "A" answers (position bias).

Overall accuracy is the original's: the mean of ``correct`` per configuration, then the unweighted mean over
configurations (macro). Its CI is a bootstrap stratified by configuration with equal weights, so it describes the
same macro figure. Breakdowns (per configuration, excerpt length, segment length, distance bin) pool the trials
in the cell and use the Wilson interval. The p-value is the exact one-sided binomial test of the pooled count
against 50% (``alternative='greater'``, as the paper's analysis notebooks). X (no answer) counts as wrong; the
share of A is taken over answered trials, so 0.5 means no position bias.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import pandas as pd
from scipy import stats as sps

from benchlab.data.booksort.results import read_many
from benchlab.data.errors import BenchlabError
from benchlab.data.stats import bootstrap_ci, format_p, stars, stratified_mean, wilson_ci
from benchlab.data.tables import Table

POOLED_HUMANS = "humans (pooled)"
CHANCE = 0.5


def binomial_greater(successes: int, n: int, chance: float = CHANCE) -> float:
    """One-sided exact binomial p-value that accuracy is above chance."""
    if n <= 0:
        return math.nan
    return float(sps.binomtest(int(successes), int(n), chance, alternative="greater").pvalue)


def _subjects(frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """Each model / participant (humans per condition, STM or LTM), then real humans pooled per condition.

    Simulated participants are listed under their own name but never pooled with people.
    """
    labels = frame["model_name"].where(frame["condition"] == "", frame["model_name"] + " " + frame["condition"])
    labels = labels.where(frame["simulated"] == "", labels + " (simulated " + frame["simulated"] + ")")
    out = [(str(name), group) for name, group in frame.groupby(labels, sort=True)]
    humans = frame[frame["is_human"] & (frame["simulated"] == "")]
    for condition, group in humans.groupby("condition", sort=True):
        if group["model_name"].nunique() > 1:
            name = POOLED_HUMANS if not condition else f"humans {condition!s} (pooled)"
            out.append((name, group))
    return out


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


def score_frame(frame: pd.DataFrame, include_practice: bool = False) -> list[Table]:
    """The SORT tables for a scoring frame (see :func:`benchlab.data.booksort.results.read_results`)."""
    if not include_practice:
        frame = frame[~frame["practice"]]
    if frame.empty:
        raise BenchlabError("no scored trials (only practice rows?)")
    subjects = _subjects(frame)
    overall = pd.DataFrame({name: overall_row(g) for name, g in subjects}).T
    overall.index.name = "model"
    cols = ["configs", "n", "accuracy", "ci_low", "ci_high", "p", "sig", "share_A", "no_answer", "median_rt_s",
            "median_reading_s"]
    tables = [Table("SORT accuracy (macro over configurations, as the original; CI: stratified bootstrap; "
                    "p: one-sided binomial vs 50%)", overall[cols])]
    for title, keys in (
        ("by configuration", ["excerpt_length", "segment_length"]),
        ("by excerpt length", ["excerpt_length"]),
        ("by segment length", ["segment_length"]),
        ("by distance bin (right edge, words; within excerpt length)", ["excerpt_length", "distance_bin"]),
    ):
        rows = {}
        for name, g in subjects:
            for key, cell in g.groupby(keys, sort=True):
                key_t = key if isinstance(key, tuple) else (key,)
                rows[(name, *(int(str(x)) for x in key_t))] = _cell(cell)
        table = pd.DataFrame(rows).T
        table.index.names = ["model", *keys]
        tables.append(Table(f"SORT accuracy {title} (CI: Wilson)", table))
    return tables


def score_paths(paths: Iterable[str | Path], include_practice: bool = False) -> list[Table]:
    """Read human and model results files (or folders) and score them."""
    return score_frame(read_many(paths), include_practice)
