"""SORT / BookSORT: every participant, the pooled humans and every model per configuration and distance bin.

Rows are read with :func:`benchlab.data.sort.results.read_results` (the shared scoring rule: X is wrong,
``correct = answer == ground_truth``); the item identity (book, excerpt, distance bin within a configuration) and
response times come from the same CSV rows. Practice rows are left out.

* **Scores and CIs.** Per configuration or distance bin: accuracy over trials with a Wilson interval. Overall:
  the original's macro mean over configurations, with a bootstrap CI stratified by configuration (as
  ``benchlab score sort``).
* **Pooled humans.** Each item once, scored as the mean over the participants who answered it; CIs resample
  items (stratified by configuration), so an item seen by many people does not shrink the interval.
* **Tests.** A participant against a model on the items both answered: McNemar (exact below 25 discordant
  pairs). Pooled humans against a model: paired bootstrap over shared items. Without shared items: a
  two-proportion z test (participant) or an unpaired bootstrap (pooled).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import POOLED, Comparison, Entry, TestRow, simulated_note
from benchlab.data.analysis.stats import AttentionCriterion, FigureCell
from benchlab.data.errors import BenchlabError
from benchlab.data.sort.results import find_results, read_results

OVERALL = "overall"


def watched_files(paths: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*_results.csv") if f.is_file()))
        elif p.exists():
            out.append(p)
    return out


def _config(le: int, ls: int) -> str:
    return f"e{le}-s{ls}"


def read_rows(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Scoring rows plus ``item`` (configuration/book/excerpt/bin), ``config``, ``bin`` and ``rt_ms``."""
    frames = []
    for file in find_results(paths):
        scored = read_results(file)
        try:
            raw = pd.read_csv(file, keep_default_na=False, dtype=str, index_col=False)
        except (OSError, ValueError, pd.errors.ParserError) as exc:  # read_results would have raised first
            raise BenchlabError(f"cannot read this CSV ({exc})", file) from exc
        n = len(scored)
        excerpt = raw["excerpt_idx"] if "excerpt_idx" in raw.columns else pd.Series([""] * n)
        rt = pd.to_numeric(raw["rt_ms"], errors="coerce") if "rt_ms" in raw.columns else pd.Series([np.nan] * n)
        scored = scored.assign(
            excerpt_idx=excerpt.to_numpy(), rt_ms=rt.to_numpy(dtype=float),
        )
        frames.append(scored)
    frame = pd.concat(frames, ignore_index=True)
    frame = frame[~frame["practice"]].copy()
    if frame.empty:
        raise BenchlabError("no scored trials (only practice rows?)")
    frame["config"] = [_config(a, b) for a, b in zip(frame["excerpt_length"], frame["segment_length"], strict=True)]
    frame["bin"] = [f"{c} d{b}" for c, b in zip(frame["config"], frame["distance_bin"], strict=True)]
    frame["item"] = [f"{c}/{bk}/{ex}/{b}" if ex != "" else ""
                     for c, bk, ex, b in zip(frame["config"], frame["book_idx"], frame["excerpt_idx"],
                                             frame["distance_bin"], strict=True)]
    frame["who"] = [p if h and p else (m[len("human-"):] if h else m)
                    for p, h, m in zip(frame["participant"], frame["is_human"], frame["model_name"], strict=True)]
    frame["correct"] = frame["correct"].astype(bool)
    return frame


def _sort_key(cond: str) -> tuple[int, int, int]:
    parts = cond.replace("e", "").replace("s", "").replace("d", "").split()
    le, ls = parts[0].split("-")
    return (int(le), int(ls), int(parts[1]) if len(parts) > 1 else -1)


def _subset(frame: pd.DataFrame, cond: str) -> pd.DataFrame:
    if cond == OVERALL:
        return frame
    col = "bin" if " d" in cond else "config"
    return frame[frame[col] == cond]


def _trial_cell(rows: pd.DataFrame, cond: str, n_boot: int, seed: int, n_people: int) -> FigureCell:
    correct = rows["correct"].to_numpy(dtype=float)
    if cond == OVERALL:
        strata = rows["config"].tolist()
        value = stats.stratified_mean(correct, strata)
        lo, hi = stats.bootstrap_ci(correct, strata, n_boot=n_boot, seed=seed)
        return FigureCell(value, lo, hi, len(rows), n_people, "bootstrap stratified by configuration")
    k = int(correct.sum())
    lo, hi = stats.wilson_ci(k, len(rows))
    return FigureCell(k / len(rows), lo, hi, len(rows), n_people, "Wilson")


def _item_cell(items: pd.DataFrame, cond: str, n_boot: int, seed: int, n_people: int) -> FigureCell:
    values = items["acc"].to_numpy(dtype=float)
    strata = items["config"].tolist() if cond == OVERALL else None
    value = stats.stratified_mean(values, strata)
    lo, hi = stats.bootstrap_ci(values, strata, n_boot=n_boot, seed=seed)
    return FigureCell(value, lo, hi, len(items), n_people, "bootstrap over items"
                      + (" stratified by configuration" if cond == OVERALL else ""))


def compare_sort(
    paths: Sequence[str | Path],
    *,
    criterion: AttentionCriterion | None = None,
    exclude_flagged: bool = False,
    n_boot: int = stats.DEFAULT_BOOT,
    seed: int = stats.DEFAULT_SEED,
    by_bin: bool = True,
    participant_tests: bool = True,
    rt_quantiles: int = 4,
    include_simulated: bool = False,
) -> Comparison:
    """Build the comparison from results CSVs or folders (humans: model names ``human-<id>``).

    Simulated participants (the ``simulated`` column, e.g. ``run sort --simulate oracle``) keep their own labelled
    row but stay out of the pooled humans, spread and agreement unless ``include_simulated``.
    """
    criterion = criterion or AttentionCriterion()
    frame = read_rows(paths)
    configs = sorted(frame["config"].unique(), key=_sort_key)
    bins = sorted(frame["bin"].unique(), key=_sort_key) if by_bin else []
    conditions = ([OVERALL] if len(configs) > 1 else []) + [
        c for cfg in configs for c in [cfg, *[b for b in bins if b.startswith(cfg + " ")]]]

    humans = frame[frame["is_human"]]
    models = frame[~frame["is_human"]]
    participants = sorted(humans["who"].unique())
    model_names = sorted(models["who"].unique())

    flags: dict[str, tuple[str, ...]] = {}
    for pid in participants:
        own = humans[humans["who"] == pid]
        flags[pid] = tuple(criterion.reasons(float(own["correct"].mean()), own["rt_ms"].to_numpy(dtype=float)))
    simulated = {p: next((s for s in humans.loc[humans["who"] == p, "simulated"].astype(str) if s), "")
                 for p in participants}
    real = [p for p in participants if include_simulated or not simulated[p]]
    pooled_from = [p for p in real if not (exclude_flagged and flags[p])]
    pooled_rows = humans[humans["who"].isin(pooled_from) & (humans["item"] != "")]
    # each (participant, item) once: first answer
    pooled_rows = pooled_rows.drop_duplicates(["who", "item"], keep="first")
    items = pooled_rows.groupby("item", sort=False).agg(
        config=("config", "first"), bin=("bin", "first"), acc=("correct", "mean"), people=("who", "nunique"),
    ).reset_index()

    entries = [Entry(p, "participant", flags[p], simulated[p]) for p in participants]
    if not items.empty:
        entries.append(Entry(POOLED, "humans"))
    entries += [Entry(m, "model") for m in model_names]

    cells: dict[tuple[str, str], FigureCell] = {}
    for name, rows, kind_people in [(p, humans[humans["who"] == p], 1) for p in participants] + [
            (m, models[models["who"] == m], 0) for m in model_names]:
        for c in conditions:
            sub = _subset(rows, c)
            if len(sub):
                cells[(name, c)] = _trial_cell(sub, c, n_boot, seed, kind_people)
    for c in conditions:
        sub = _subset(items, c)
        if len(sub):
            people = int(_subset(pooled_rows, c)["who"].nunique())
            cells[(POOLED, c)] = _item_cell(sub, c, n_boot, seed, people)

    tests: list[TestRow] = []
    for m in model_names:
        mrows = models[(models["who"] == m) & (models["item"] != "")].drop_duplicates("item", keep="first")
        mcorrect = mrows.set_index("item")["correct"]
        for c in conditions:
            hp = _subset(items, c)
            if not hp.empty:
                shared = hp[hp["item"].isin(mcorrect.index)]
                if len(shared) >= 2:
                    strata = shared["config"].tolist() if c == OVERALL else None
                    h = shared["acc"].to_numpy(dtype=float)
                    mv = mcorrect.loc[shared["item"]].to_numpy(dtype=float)
                    res = stats.paired_permutation_test(h, mv, strata, n_boot=n_boot, seed=seed)
                    res = _renamed(res, res.method + " over shared items"
                                   + (" (stratified by configuration)" if c == OVERALL else ""))
                    tests.append(TestRow(c, m, stats.stratified_mean(h, strata), stats.stratified_mean(mv, strata),
                                         res))
                else:
                    other = _subset(models[models["who"] == m], c)
                    if len(other) >= 2:
                        res = stats.unpaired_bootstrap(hp["acc"].to_numpy(dtype=float),
                                                       other["correct"].to_numpy(dtype=float), n_boot=n_boot,
                                                       seed=seed)
                        res = _renamed(res, "unpaired bootstrap (no shared items)")
                        tests.append(TestRow(c, m, float(hp["acc"].mean()), float(other["correct"].mean()), res))
            if not participant_tests or (c == OVERALL and len(configs) > 1):
                continue
            for pid in participants:
                prow = _subset(humans[(humans["who"] == pid) & (humans["item"] != "")], c).drop_duplicates(
                    "item", keep="first")
                if prow.empty:
                    continue
                shared_p = prow[prow["item"].isin(mcorrect.index)]
                if len(shared_p):
                    a = shared_p["correct"].to_numpy(dtype=bool)
                    b = mcorrect.loc[shared_p["item"]].to_numpy(dtype=bool)
                    res = stats.mcnemar_test(a, b)
                    tests.append(TestRow(c, m, float(a.mean()), float(b.mean()), res, who=pid))
                else:
                    other = _subset(models[models["who"] == m], c)
                    if len(other):
                        res = stats.two_proportion_test(int(prow["correct"].sum()), len(prow),
                                                        int(other["correct"].sum()), len(other))
                        tests.append(TestRow(c, m, float(prow["correct"].mean()), float(other["correct"].mean()),
                                             res, who=pid))

    spread = {}
    for c in conditions:
        vals = [cells[(p, c)].value for p in real if (p, c) in cells]
        if vals:
            spread[c] = stats.spread(vals)

    rt_rows = []
    rt_bins = {}
    rts_ms: dict[str, list[float]] = {}
    for pid in participants:
        own = humans[humans["who"] == pid]
        rts = own["rt_ms"].to_numpy(dtype=float)
        rts_ms[pid] = [float(x) for x in rts if not np.isnan(x)]
        if not np.isfinite(rts).any():
            continue
        if len(configs) > 1:
            rt_rows.append((pid, OVERALL, stats.rt_summary(rts)))
        for cfg in configs:
            mask = (own["config"] == cfg).to_numpy()
            if mask.any():
                rt_rows.append((pid, cfg, stats.rt_summary(rts[mask])))
        rt_bins[pid] = stats.accuracy_by_rt_quantile(rts, own["correct"].to_numpy(dtype=bool), rt_quantiles)

    agreement = {}
    answered = humans[humans["who"].isin(real) & (humans["item"] != "")].drop_duplicates(["who", "item"],
                                                                                            keep="first")
    multi = answered.groupby("item").filter(lambda g: len(g) >= 2)
    if not multi.empty:
        if len(configs) > 1:
            agreement[OVERALL] = stats.agreement(multi.groupby("item")["answer"].apply(list).tolist())
        for cfg in configs:
            sub = multi[multi["config"] == cfg]
            if not sub.empty:
                agreement[cfg] = stats.agreement(sub.groupby("item")["answer"].apply(list).tolist())

    notes = [
        "Scores: accuracy (X = no answer counts as wrong); overall = mean over configurations (the original's macro).",
        "95% CI: Wilson per configuration / distance bin; overall: bootstrap stratified by configuration "
        f"({n_boot} resamples, seed {seed}).",
        "Pooled humans: each item once, scored as the mean over the participants who answered it; CI resamples items"
        + ("; flagged participants excluded." if exclude_flagged else "."),
        "Tests: participant vs model = McNemar on shared items (exact below 25 discordant pairs), two-proportion z "
        "test without shared items; pooled humans vs model = two-sided paired sign-flip permutation test over shared "
        f"items (exact up to 16 non-zero differences, else {n_boot} random flips), CI = percentile bootstrap, left "
        "out ('n/a') when a stratum has fewer than 2 items where the scores differ; unpaired bootstrap without "
        "shared items.",
        simulated_note(simulated, include_simulated),
        f"Attention criterion: {criterion.describe()} (control accuracy = accuracy on all trials).",
        "Agreement: answers (A/B/X) to the same item by two or more participants; Fleiss' kappa.",
        "Items: configuration / book / excerpt / distance bin; practice rows are left out.",
    ]
    return Comparison(benchmark="SORT", unit="trials", conditions=conditions, entries=entries, cells=cells,
                      tests=tests, spread=spread, rt=rt_rows, rt_quantiles=rt_bins, rts_ms=rts_ms,
                      agreement=agreement, notes=notes, pooled_simulated=include_simulated)


def _renamed(res: stats.TestResult, method: str) -> stats.TestResult:
    return stats.TestResult(method, res.estimate, res.ci_low, res.ci_high, res.p_value, res.statistic, res.n,
                            res.note)
