"""Humans vs models on a choice task: every participant, the pooled humans and every model per stratum.

* **Scores and CIs.** A participant or a model: accuracy over its trials with a Wilson interval (as
  ``score_choice``). Pooled humans: each item once, scored as the mean over the participants who answered it; the
  CI resamples items (within strata for ``overall``), so an item many people saw does not shrink the interval.
* **Tests.** Pooled humans against a model: two-sided paired sign-flip permutation test over shared items;
  without shared items an unpaired bootstrap. A participant against a model: McNemar on shared items.
* Simulated participants keep their own labelled row and stay out of the pooled humans unless
  ``include_simulated``; the attention criterion flags participants on accuracy and too-fast responses.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import POOLED, Comparison, Entry, TestRow, simulated_note
from benchlab.data.analysis.stats import AttentionCriterion, FigureCell
from benchlab.data.choice_items import ChoiceItem, ChoiceItems, items_of, load_choice_items
from benchlab.data.choice_results import OVERALL, ResultsInput, read_choice_results, results_files
from benchlab.data.errors import BenchlabError


def watched_files(paths: ResultsInput) -> list[Path]:
    """The results files whose change refreshes the Results screen (missing folders watch nothing)."""
    given = [paths] if isinstance(paths, str | Path) else list(paths)
    return results_files([p for p in given if Path(p).exists()])


def _wilson(rows: pd.DataFrame, people: int) -> FigureCell:
    k, n = int(rows["correct"].sum()), len(rows)
    lo, hi = stats.wilson_ci(k, n)
    return FigureCell(k / n, lo, hi, n, people, "Wilson")


def compare_choice(
    items: ChoiceItems | Sequence[ChoiceItem] | str | Path, results: ResultsInput, *, title: str = "choice task",
    criterion: AttentionCriterion | None = None, exclude_flagged: bool = False, include_simulated: bool = False,
    n_boot: int = stats.DEFAULT_BOOT, seed: int = stats.DEFAULT_SEED,
) -> Comparison:
    """Build the comparison from results files or folders (participants and models in the same format)."""
    criterion = criterion or AttentionCriterion()
    pool = load_choice_items(items).items if isinstance(items, str | Path) else items_of(items)
    frame = read_choice_results(pool, results)
    if frame.empty:
        raise BenchlabError("no scored responses in these results (only practice, or no results files)")
    strata = list(dict.fromkeys(item.stratum for item in pool))
    strata = [s for s in strata if (frame["stratum"] == s).any()]
    conditions = [OVERALL, *strata] if len(strata) > 1 else strata

    humans = frame[frame["kind"] == "participant"]
    models = frame[frame["kind"] == "model"]
    participants = sorted(humans["who"].unique())
    model_names = sorted(models["who"].unique())
    flags = {p: tuple(criterion.reasons(float(humans.loc[humans["who"] == p, "correct"].mean()),
                                        humans.loc[humans["who"] == p, "rt_ms"].to_numpy(dtype=float)))
             for p in participants}
    simulated = {p: next((s for s in humans.loc[humans["who"] == p, "simulated"] if s), "") for p in participants}
    real = [p for p in participants if include_simulated or not simulated[p]]
    pooled_from = [p for p in real if not (exclude_flagged and flags[p])]
    pooled_rows = humans[humans["who"].isin(pooled_from)]
    per_item = pooled_rows.groupby("item", sort=False).agg(
        stratum=("stratum", "first"), acc=("correct", "mean"), people=("who", "nunique")).reset_index()

    def subset(rows: pd.DataFrame, cond: str) -> pd.DataFrame:
        return rows if cond == OVERALL else rows[rows["stratum"] == cond]

    entries = [Entry(p, "participant", flags[p], simulated[p]) for p in participants]
    if not per_item.empty:
        entries.append(Entry(POOLED, "humans"))
    entries += [Entry(m, "model") for m in model_names]

    cells: dict[tuple[str, str], FigureCell] = {}
    for name, rows, people in [(p, humans[humans["who"] == p], 1) for p in participants] + [
            (m, models[models["who"] == m], 0) for m in model_names]:
        for c in conditions:
            sub = subset(rows, c)
            if len(sub):
                cells[(name, c)] = _wilson(sub, people)
    for c in conditions:
        sub = subset(per_item, c)
        if len(sub):
            values = sub["acc"].to_numpy(dtype=float)
            strata_of = sub["stratum"].tolist() if c == OVERALL else None
            weights = sub["stratum"].value_counts().to_dict() if c == OVERALL else None
            lo, hi = stats.bootstrap_ci(values, strata_of, weights, n_boot=n_boot, seed=seed)
            people = int(subset(pooled_rows, c)["who"].nunique())
            cells[(POOLED, c)] = FigureCell(float(values.mean()), lo, hi, len(sub), people, "bootstrap over items")

    tests: list[TestRow] = []
    for m in model_names:
        mrows = models[models["who"] == m]
        mcorrect = mrows.set_index("item")["correct"]
        for c in conditions:
            hp = subset(per_item, c)
            shared = hp[hp["item"].isin(mcorrect.index)]
            if len(shared) >= 2:
                h = shared["acc"].to_numpy(dtype=float)
                mv = mcorrect.loc[shared["item"]].to_numpy(dtype=float)
                res = stats.paired_permutation_test(h, mv, n_boot=n_boot, seed=seed)
                tests.append(TestRow(c, m, float(h.mean()), float(mv.mean()), res))
            elif len(hp) >= 2 and len(subset(mrows, c)) >= 2:
                other = subset(mrows, c)["correct"].to_numpy(dtype=float)
                res = stats.unpaired_bootstrap(hp["acc"].to_numpy(dtype=float), other, n_boot=n_boot, seed=seed)
                tests.append(TestRow(c, m, float(hp["acc"].mean()), float(other.mean()), res))
            for pid in participants:
                prow = subset(humans[humans["who"] == pid], c)
                shared_p = prow[prow["item"].isin(mcorrect.index)]
                if len(shared_p):
                    a = shared_p["correct"].to_numpy(dtype=bool)
                    b = mcorrect.loc[shared_p["item"]].to_numpy(dtype=bool)
                    tests.append(TestRow(c, m, float(a.mean()), float(b.mean()), stats.mcnemar_test(a, b), who=pid))

    spread = {}
    for c in conditions:
        vals = [cells[(p, c)].value for p in real if (p, c) in cells]
        if vals:
            spread[c] = stats.spread(vals)

    rt_rows = []
    rts_ms: dict[str, list[float]] = {}
    for pid in participants:
        own = humans[humans["who"] == pid]
        rts = own["rt_ms"].to_numpy(dtype=float)
        rts_ms[pid] = [float(x) for x in rts if not np.isnan(x)]
        if np.isfinite(rts).any():
            for c in conditions:
                mask = (own["stratum"] == c).to_numpy() if c != OVERALL else np.ones(len(own), dtype=bool)
                if np.isfinite(rts[mask]).any():
                    rt_rows.append((pid, c, stats.rt_summary(rts[mask])))

    agreement = {}
    multi = humans[humans["who"].isin(real)].groupby("item").filter(lambda g: len(g) >= 2)
    if not multi.empty:
        for c in conditions:
            sub = subset(multi, c)
            if not sub.empty:
                agreement[c] = stats.agreement(sub.groupby("item")["response"].apply(list).tolist())

    notes = [
        "Scores: accuracy (a response equal to the item's gold answer; no answer counts as wrong); overall = share "
        "correct over all trials.",
        "95% CI: Wilson for participants and models; pooled humans: percentile bootstrap over items"
        f" (within strata for overall; {n_boot} resamples, seed {seed}).",
        "Pooled humans: each item once, scored as the mean over the participants who answered it"
        + ("; flagged participants excluded." if exclude_flagged else "."),
        "Tests: pooled humans vs model = two-sided paired sign-flip permutation test over shared items (unpaired "
        "bootstrap without shared items); participant vs model = McNemar on shared items.",
        simulated_note(simulated, include_simulated),
        f"Attention criterion: {criterion.describe()} (control accuracy = accuracy on all trials).",
    ]
    chance = float(np.mean([1 / len(item.options) for item in pool]))
    return Comparison(benchmark=title, unit="items", conditions=conditions, entries=entries, cells=cells,
                      tests=tests, spread=spread, rt=rt_rows, rts_ms=rts_ms, agreement=agreement, notes=notes,
                      chance=chance, pooled_simulated=include_simulated)
