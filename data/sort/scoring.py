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
it, as ``benchlab compare sort``; so an item three people saw does not weigh three times. n counts items there
(``people`` the participants); the CI counts both people and items (:mod:`benchlab.data.analysis.crossed`: wide
with few people, n/a with one) and p is the larger of the one-sided crossed t-test and the sign-flip test of the
item scores against 50%. Simulated participants are listed under their own name and kind and never pooled; rows
are per design (STM / LTM and the delay), never across.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from pathlib import Path

import pandas as pd

from benchlab.data.analysis.crossed import crossed_estimate
from benchlab.data.analysis.stats import (
    bootstrap_ci,
    format_p,
    sign_flip_p,
    stars,
    stratified_mean,
    wilson_ci,
    wilson_kish_ci,
)
from benchlab.data.errors import BenchlabError
from benchlab.data.models.same_items import prompt_hash_notes, restrict_to_shared
from benchlab.data.sort.items import item_rows, memory_conditions, read_rows
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
    # deferred: scipy.stats (~0.5 s CPU to import) loads only when a one-sided binomial test is computed
    from scipy import stats as sps

    return float(sps.binomtest(int(successes), int(n), chance, alternative="greater").pvalue)


def _subjects(frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """Each model / participant per design (STM or LTM, and the delay); simulated ones labelled by kind.

    A participant's sessions share a row only when they share the design and the kind (a person, or one pilot
    strategy); a different delay or pilot kind is a different row.
    """
    memory = pd.Series([d.lower() for d in memory_conditions(frame)], index=frame.index)
    labels = frame["model_name"].where(memory == "", frame["model_name"] + " " + memory)
    labels = labels.where(frame["simulated"] == "", labels + " (simulated " + frame["simulated"] + ")")
    return [(str(name), group) for name, group in frame.groupby(labels, sort=True)]


ITEM_COLUMNS = ["condition", "item", "excerpt_length", "segment_length", "distance_bin", "design", "acc", "people"]


def people_answers(paths: Iterable[str | Path], on_warning: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Real people's first answer to each item, per design (``condition`` = lower-case design, e.g. ``stm``).

    Items and answers as in :func:`benchlab.data.sort.items.read_rows` (practice rows left out); pilots are not
    people and stay out.
    """
    return _people(read_rows(list(paths), on_warning))


def _people(rows: pd.DataFrame) -> pd.DataFrame:
    people = rows[rows["is_human"] & (rows["simulated"] == "") & (rows["item"] != "")].copy()
    people["condition"] = people["memory"].str.lower()
    return people.drop_duplicates(["who", "condition", "item"], keep="first")


def items_of(people: pd.DataFrame) -> pd.DataFrame:
    """One row per (condition, item): mean correctness over the people who answered it, and how many they were."""
    if people.empty:
        return pd.DataFrame(columns=ITEM_COLUMNS)
    return people.groupby(["condition", "item"], sort=False).agg(
        excerpt_length=("excerpt_length", "first"), segment_length=("segment_length", "first"),
        distance_bin=("distance_bin", "first"), design=("design", "first"), acc=("correct", "mean"),
        people=("who", "nunique"),
    ).reset_index()


def pooled_items(paths: Iterable[str | Path], on_warning: Callable[[str], None] | None = None) -> pd.DataFrame:
    """One row per (condition, item) answered by real people: mean correctness over the people who answered it."""
    return items_of(people_answers(paths, on_warning))


def _pooled_name(condition: str) -> str:
    return POOLED_HUMANS if not condition else f"humans {condition} (pooled)"


def _pooled_cell(items: pd.DataFrame, trials: pd.DataFrame, answers: pd.DataFrame,
                 strata_of: list[str] | None = None) -> dict[str, object]:
    """Items counted once: item-mean accuracy, crossed people x items CI, one-sided sign-flip p vs 50%.

    ``answers``: the people's first answers behind ``items`` (for the CI); ``strata_of``: the columns whose values
    are the strata (configurations for the macro row).
    """
    acc = items["acc"].to_numpy(dtype=float)
    strata = (None if strata_of is None else
              [tuple(r) for r in items[strata_of].itertuples(index=False, name=None)])
    value = stratified_mean(acc, strata)
    answer_strata = (None if strata_of is None else
                     [str(tuple(r)) for r in answers[strata_of].itertuples(index=False, name=None)])
    est = crossed_estimate(answers["who"].to_numpy(dtype=object), answers["item"].to_numpy(dtype=object),
                           answers["correct"].to_numpy(dtype=float), strata=answer_strata)
    low, high = est.ci_low, est.ci_high
    p, _exact, _k = sign_flip_p(acc - CHANCE, strata, alternative="greater")
    vs_chance = crossed_estimate(answers["who"].to_numpy(dtype=object), answers["item"].to_numpy(dtype=object),
                                 answers["correct"].to_numpy(dtype=float), strata=answer_strata, null=CHANCE)
    if vs_chance.p_value == vs_chance.p_value:  # one-sided crossed t; the larger p of it and the item test
        half = vs_chance.p_value / 2
        p = max(p, half if vs_chance.value > CHANCE else 1 - half)
    row = _cell(trials)  # share of A, no answer, times: over the people's trials
    row.update({"people": est.n_people, "n": len(items), "accuracy": round(value, 4), "ci_low": _round(low),
                "ci_high": _round(high), "p": _p(p), "sig": stars(p)})
    if est.note:
        row["ci_note"] = f"CI n/a: {est.note}"
    return row


def _round(x: float) -> float:
    return round(x, 4) if x == x else math.nan


def _cell(group: pd.DataFrame) -> dict[str, object]:
    n = len(group)
    k = int(group["correct"].sum())
    low, high = wilson_ci(k, n)
    answered = group[group["answer"] != "X"]
    p = binomial_greater(k, n)
    return {
        "people": 1 if bool(group["is_human"].any()) else "",
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
    per_config = pd.Series(correct).groupby(pd.Series([str(c) for c in configs])).nunique()
    if len(correct) and (per_config.min() < 2 or not high - low > 1e-12):
        # nothing to resample in a configuration where every answer is the same (8 of 8 right would print
        # [100, 100]): Wilson with Kish's effective n over the configurations instead
        low, high = wilson_kish_ci(correct, configs)
    k, n = int(group["correct"].sum()), len(group)
    p = binomial_greater(k, n)
    row = _cell(group)
    row.update({"configs": len(set(configs)), "accuracy": round(acc, 4), "ci_low": round(low, 4),
                "ci_high": round(high, 4), "p": _p(p), "sig": stars(p)})
    return row


def score_frame(frame: pd.DataFrame, include_practice: bool = False,
                items: pd.DataFrame | None = None, answers: pd.DataFrame | None = None) -> list[Table]:
    """The SORT tables for a scoring frame (see :func:`benchlab.data.sort.results.read_results`).

    ``items`` (:func:`pooled_items`) adds the pooled-humans rows, each item once; ``answers``
    (:func:`people_answers`, the answers behind them) gives their people x items CIs (n/a without).
    """
    if not include_practice:
        frame = frame[~frame["practice"]]
    if frame.empty:
        raise BenchlabError("no scored trials (only practice rows?)")
    subjects = _subjects(frame)
    people = frame[frame["is_human"] & (frame["simulated"] == "") & ~frame["practice"]]
    people = people.assign(condition=[d.lower() for d in memory_conditions(people)]) if len(people) else people
    if answers is None:
        answers = pd.DataFrame(columns=["who", "condition", "item", "correct", "excerpt_length", "segment_length",
                                        "distance_bin"])
    pooled: list[tuple[str, pd.DataFrame, pd.DataFrame, pd.DataFrame]] = []
    if items is not None and not items.empty:
        conditions = sorted(items["condition"].astype(str).unique())
        pooled = [(_pooled_name(c), items[items["condition"] == c], people[people["condition"] == c],
                   answers[answers["condition"] == c]) for c in conditions]
    overall_rows = {name: overall_row(g) for name, g in subjects}
    for name, its, trials, ans in pooled:
        overall_rows[name] = _pooled_cell(its, trials, ans, ["excerpt_length", "segment_length"])
        overall_rows[name]["configs"] = len(its[["excerpt_length", "segment_length"]].drop_duplicates())
    overall = pd.DataFrame(overall_rows).T
    overall.index.name = "model"
    cols = ["configs", "people", "n", "accuracy", "ci_low", "ci_high", "p", "sig", "share_A", "no_answer",
            "median_rt_s", "median_reading_s"]
    pooled_note = ("; pooled humans: each item once, n = items, CI: crossed people x items (t, Satterthwaite df; "
                   "n/a with one person), p: the larger of the one-sided crossed t-test and sign-flip test over items"
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
        for name, its, trials, ans in pooled:
            if design is not None:
                its, trials = its[its["design"] == design], trials[trials["design"] == design]
                ans = ans[ans["design"] == design]
            for key, cell_items in its.groupby(keys, sort=True):
                key_t = key if isinstance(key, tuple) else (key,)
                mask = pd.Series(True, index=trials.index)
                amask = pd.Series(True, index=ans.index)
                for col, val in zip(keys, key_t, strict=True):
                    mask &= trials[col] == val
                    amask &= ans[col] == val
                rows[(name, *(int(str(x)) for x in key_t))] = _pooled_cell(cell_items, trials[mask], ans[amask])
        if not rows:
            continue  # e.g. no distance bins when every trial is whole-book
        table = pd.DataFrame(rows).T
        if "ci_note" in table.columns:
            table["ci_note"] = table["ci_note"].fillna("")
        table.index.names = ["model", *keys]
        if design == "whole-book":
            table.index = table.index.set_names("gap_bin_right_edge", level="distance_bin")
            table.insert(0, "gap_bin", [gap_bin_label(int(edge)) for edge in
                                        table.index.get_level_values("gap_bin_right_edge")])
        how = "Wilson; pooled humans: crossed people x items" if pooled else "Wilson"
        tables.append(Table(f"SORT accuracy {title} (CI: {how})", table))
    return tables


def models_on_people_items(frame: pd.DataFrame, on_warning: Callable[[str], None] | None = None) -> pd.DataFrame:
    """The results rows with each model's rows cut to the items people answered (items as ``compare sort`` names
    them: design, configuration, book, excerpt, bin); one warning per model saying what was left out on each side
    (:func:`benchlab.data.models.same_items.restrict_to_shared`). Unchanged without people or without models."""
    humans = frame["is_human"] & ~frame["practice"]
    if not humans.any() or frame["is_human"].all():
        return frame
    rows = item_rows(frame)  # the scored rows, same index, with their item identity
    kept, notes = restrict_to_shared(rows[rows["is_human"]], rows[~rows["is_human"]], unit="item", who="who")
    for note in notes:
        if on_warning is not None:
            on_warning(note)
    return frame.drop(index=rows.index[~rows["is_human"]].difference(kept.index))


def score_paths(paths: Iterable[str | Path], include_practice: bool = False,
                on_warning: Callable[[str], None] | None = None, same_items: bool = False) -> list[Table]:
    """Read human and model results files (or folders) and score them, with the pooled humans.

    Warnings (a trial answered twice in a file, a cut last row, a derived distance bin) go to ``on_warning``.
    ``same_items`` (``score sort`` without ``--all-items``): each model is scored on the items people answered only,
    and each model run's prompt hashes are checked against the people's (both said in warnings).
    """
    paths = list(paths)
    frame = read_many(paths, on_warning)
    if same_items:
        frame = models_on_people_items(frame, on_warning)
        for note in prompt_hash_notes(paths):
            if on_warning is not None:
                on_warning(note)
    real = frame["is_human"] & (frame["simulated"] == "") & ~frame["practice"]
    if not real.any():
        return score_frame(frame, include_practice)
    answers = _people(item_rows(frame))  # the rows already read: each file is parsed once
    return score_frame(frame, include_practice, items_of(answers), answers)
