"""WorldSense: every participant, the pooled humans and every model, per problem, with CIs and paired tests.

Scores come from :mod:`benchlab.data.worldsense.scoring` (the benchmark's own tuple scoring), so a participant's
numbers here are the numbers ``benchlab score worldsense`` prints. On top of that:

* **Score and CI.** The score is the benchmark's rebalanced mean (sizes, then problems, equal weight). The 95% CI
  is a percentile bootstrap over tuples, stratified by (problem, size) with the same weights, so it stays
  defined for a participant with one tuple in a cell (where the benchmark's own formula prints ``nan``). The
  benchmark's own ``1.96 * sem`` is kept in the numeric export (``benchmark_ci95``) for comparison with papers.
* **Pooled humans.** Each tuple counts once: its score is the mean over the participants who completed it (the
  expected score of a random participant on that tuple); tuples are then aggregated like a model's. So a tuple
  answered by three people does not weigh three times, and the CI resamples tuples (clustered by item).
* **Tests.** Pooled humans minus each model on the tuples both have: a paired bootstrap over shared tuples,
  stratified like the score (two-sided, re-centred null). When humans and a model share no tuple (other test
  set), an unpaired bootstrap of tuple scores.
* **People.** Per-participant spread (min/median/max), attention flags (accuracy on the trivial control problems,
  share of too-fast responses), response-time median/IQR per problem, item accuracy by RT quartile, and
  agreement (percent, Fleiss' kappa) on raw answers to Keys answered by two or more participants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import POOLED, Comparison, Entry, TestRow, simulated_note
from benchlab.data.analysis.stats import AttentionCriterion, FigureCell
from benchlab.data.errors import BenchlabError
from benchlab.data.tables import Table
from benchlab.data.worldsense.columns import read_result_columns, read_trial_columns
from benchlab.data.worldsense.results import ResultsFile, find_results, read_results
from benchlab.data.worldsense.rules import MODEL_ORDER, PROBLEM_ORDER, is_correct
from benchlab.data.worldsense.scoring import score_worldsense, stats_by_group

OVERALL = "overall"
OVERALL_CORRECTNESS = "overall (right/wrong)"
HUMAN_PREFIXES = ("human-", "human_", "human")


@dataclass(frozen=True)
class HumanAnswers:
    """One participant's raw answers (first answer per Key), for RTs, item accuracy and agreement."""

    participant: str
    keys: np.ndarray
    resps: list[str]
    rts_ms: np.ndarray  # NaN where not recorded
    simulated: str = ""  # the session's ``simulated`` field (e.g. "oracle"): a pilot run, not a person


def is_human(modelname: str) -> bool:
    return modelname.lower().startswith("human")


def participant_id(modelname: str) -> str:
    low = modelname.lower()
    for prefix in HUMAN_PREFIXES:
        if low.startswith(prefix) and len(modelname) > len(prefix):
            return modelname[len(prefix):]
    return modelname


def results_dirs_for(testset: str | Path, results: Sequence[str | Path] | None, include_published: bool) -> list[Path]:
    """``<testset>/results`` (the published models) unless excluded, then each extra folder, each once."""
    dirs: list[Path] = []
    published = Path(testset) / "results"
    if include_published and Path(testset).is_dir() and published.is_dir():
        dirs.append(published)
    for d in results or []:
        p = Path(d)
        if not any(p.resolve() == q.resolve() for q in dirs):
            dirs.append(p)
    if not dirs:
        raise BenchlabError("no results folder: pass --results DIR (the test set has no results/ folder)", testset)
    return dirs


def watched_files(results: Path | Sequence[Path]) -> list[Path]:
    """Results files the Results screen polls (a new participant's file appearing counts as a change)."""
    folders = [results] if isinstance(results, Path) else list(results)
    out: list[Path] = []
    for folder in folders:
        if folder.is_dir():
            out.extend(f.path for f in find_results(folder))
    return out


def _read_human(file: ResultsFile) -> HumanAnswers:
    lines = read_results(file.path, allow_torn_tail=True)
    seen: set[int] = set()
    keys, resps, rts = [], [], []
    simulated = ""
    for line in lines:
        sim = line.extras.get("simulated")
        if isinstance(sim, str) and sim and not simulated:
            simulated = sim
        if line.Key in seen:
            continue
        seen.add(line.Key)
        keys.append(line.Key)
        resps.append(line.resp)
        rt = line.extras.get("rt_ms")
        rts.append(float(rt) if isinstance(rt, int | float) and not isinstance(rt, bool) else np.nan)
    return HumanAnswers(participant_id(file.modelname), np.asarray(keys, dtype=np.int64), resps,
                        np.asarray(rts, dtype=float), simulated)


def _weights(frame: pd.DataFrame, condition: str) -> tuple[list[object], dict[object, float]]:
    """Strata and weights reproducing the benchmark's rebalancing for this condition."""
    if condition == OVERALL:
        cells = frame[["problemname", "problemsize"]].drop_duplicates()
        sizes_per_problem = cells.groupby("problemname")["problemsize"].nunique()
        n_problems = len(sizes_per_problem)
        labels = (frame["problemname"].astype(str) + "|" + frame["problemsize"].astype(str)).to_numpy(dtype=object)
        weights: dict[object, float] = {
            f"{p}|{z}": 1.0 / (n_problems * sizes_per_problem[p])
            for p, z in cells.itertuples(index=False, name=None)
        }
        return list(labels), weights
    sizes = frame["problemsize"].to_numpy()
    uniq = set(sizes.tolist())
    return list(sizes.tolist()), {z: 1.0 / len(uniq) for z in uniq}


def _subset(frame: pd.DataFrame, condition: str) -> pd.DataFrame:
    return frame if condition == OVERALL else frame[frame["problemname"] == condition]


def _cell(frame: pd.DataFrame, condition: str, n_participants: int, n_boot: int, seed: int,
          benchmark_ci: float = np.nan, ci: str = "bootstrap") -> FigureCell | None:
    sub = _subset(frame, condition)
    if sub.empty:
        return None
    strata, weights = _weights(sub, condition)
    values = sub["acc"].to_numpy(dtype=float)
    value = stats.stratified_mean(values, strata, weights)
    if ci == "benchmark":
        return FigureCell(value, value - benchmark_ci, value + benchmark_ci, len(sub), n_participants,
                          "WorldSense 1.96*sem", {"benchmark_ci95": benchmark_ci})
    lo, hi = stats.bootstrap_ci(values, strata, weights, n_boot=n_boot, seed=seed)
    return FigureCell(value, lo, hi, len(sub), n_participants, "stratified bootstrap over tuples",
                      {"benchmark_ci95": benchmark_ci})


def _benchmark_ci(tuples: pd.DataFrame, key: str) -> dict[tuple[str, str], float]:
    """The benchmark's own 1.96*sem for every (row ``key``, condition), overall and per problem, in two passes."""
    out: dict[tuple[str, str], float] = {}
    if tuples.empty:
        return out
    per_problem = stats_by_group(tuples, [key, "problemname"], "acc")
    for idx, conf in zip(per_problem.index, per_problem["conf95"], strict=True):
        out[(str(idx[0]), str(idx[1]))] = float(conf)
    multi = tuples.groupby(key)["problemname"].nunique()
    several = tuples[tuples[key].isin(multi[multi > 1].index)]
    if not several.empty:
        overall = stats_by_group(several, [key], "acc")
        for who, conf in zip(overall.index, overall["conf95"], strict=True):
            out[(str(who), OVERALL)] = float(conf)
    return out


def pooled_tuples(human_tuples: pd.DataFrame) -> pd.DataFrame:
    """One row per tuple: mean score over the participants who completed it, and how many they were."""
    if human_tuples.empty:
        return pd.DataFrame(columns=["tuple_ID", "problemname", "problemsize", "acc", "bias", "participants"])
    grouped = human_tuples.groupby("tuple_ID", sort=False)
    out = grouped.agg(problemname=("problemname", "first"), problemsize=("problemsize", "first"),
                      acc=("acc", "mean"), bias=("bias", "mean"),
                      participants=("modelname", "nunique")).reset_index()
    return out


def _order_models(names: list[str]) -> list[str]:
    known = [m for m in MODEL_ORDER if m in names]
    return known + sorted(n for n in names if n not in known)


def compare_worldsense(
    testset: str | Path,
    results: Sequence[str | Path] | str | Path | None = None,
    *,
    include_published: bool = True,
    criterion: AttentionCriterion | None = None,
    exclude_flagged: bool = False,
    n_boot: int = stats.DEFAULT_BOOT,
    seed: int = stats.DEFAULT_SEED,
    rt_quantiles: int = 4,
    ci: str = "bootstrap",
    participant_tests: bool = False,
    include_simulated: bool = False,
) -> Comparison:
    """Build the comparison from a test set and results folders (humans: model names starting with ``human``).

    ``participant_tests`` adds each participant against each model (same paired test) to the pooled tests.
    Simulated participants (results lines with ``simulated``, e.g. ``run ... --simulate oracle``) keep their own
    labelled row but stay out of the pooled humans, spread and agreement unless ``include_simulated``.
    ``ci="benchmark"`` shows the benchmark's own ``1.96 * sem`` instead of the bootstrap (to match papers; it is
    ``nan`` for cells with a single tuple).
    """
    if ci not in ("bootstrap", "benchmark"):
        raise ValueError(f"unknown CI method {ci!r}")
    criterion = criterion or AttentionCriterion()
    extra = [results] if isinstance(results, str | Path) else results
    dirs = results_dirs_for(testset, extra, include_published)
    trials = read_trial_columns(testset)
    files: list[ResultsFile] = []
    for d in dirs:
        found = find_results(d)
        if not found:
            raise BenchlabError("no results files here (expected <prompting>___<modelname>___results.jsonl)", d)
        files.extend(found)
    columns = [read_result_columns(f.path, f.prompting, f.modelname) for f in files]
    scored = score_worldsense(trials, columns)
    tuples = scored.tuples
    names_count = pd.Series([f.modelname for f in files]).value_counts()
    pairs = tuples[["prompting", "modelname"]].drop_duplicates()
    who_of = {(p, m): (m if names_count.get(m, 0) <= 1 else f"{p}/{m}")
              for p, m in pairs.itertuples(index=False, name=None)}
    human_of = {m: is_human(m) for m in pairs["modelname"]}
    tuples = tuples.assign(
        who=[who_of[k] for k in zip(tuples["prompting"].tolist(), tuples["modelname"].tolist(), strict=True)],
        is_human=tuples["modelname"].map(human_of).astype(bool),
    )

    human_files = [f for f in files if is_human(f.modelname)]
    model_names = _order_models(sorted({who_of[(p, m)] for p, m in pairs.itertuples(index=False, name=None)
                                        if not human_of[m]}))
    answers = {participant_id(f.modelname): _read_human(f) for f in human_files}
    participants = sorted(answers)
    human_rows = tuples[tuples["is_human"]].copy()
    human_rows["participant"] = [participant_id(m) for m in human_rows["modelname"]]

    problems_present = list(dict.fromkeys(tuples["problemname"]))
    problems = [p for p in PROBLEM_ORDER if p in problems_present] + sorted(
        p for p in problems_present if p not in PROBLEM_ORDER)
    conditions = ([OVERALL] if len(problems) > 1 else []) + problems

    trial_frame = trials.frame
    key_index = pd.Index(trial_frame["Key"].to_numpy())
    problem_of = trial_frame["problemname"].to_numpy(dtype=object)
    gold_of = trial_frame["goldresp"].to_numpy(dtype=object)

    # attention flags
    flags: dict[str, tuple[str, ...]] = {}
    for pid in participants:
        own = human_rows[human_rows["participant"] == pid]
        trivial = own[own["problemname"].astype(str).str.endswith(".trivial")]
        control = float(trivial["acc"].mean()) if len(trivial) else None
        flags[pid] = tuple(criterion.reasons(control, answers[pid].rts_ms))

    simulated = {p: answers[p].simulated for p in participants}
    people = [p for p in participants if include_simulated or not simulated[p]]
    pooled_from = [p for p in people if not (exclude_flagged and flags[p])]
    pooled = pooled_tuples(human_rows[human_rows["participant"].isin(pooled_from)])

    entries = [Entry(p, "participant", flags[p], simulated[p]) for p in participants]
    if not pooled.empty:
        entries.append(Entry(POOLED, "humans"))
    entries += [Entry(m, "model") for m in model_names]

    cells: dict[tuple[str, str], FigureCell] = {}
    bci_people = _benchmark_ci(human_rows, "participant")
    bci_pooled = _benchmark_ci(pooled.assign(row=POOLED), "row")
    bci_models = _benchmark_ci(tuples[~tuples["is_human"]], "who")
    for pid in participants:
        own = human_rows[human_rows["participant"] == pid]
        for c in conditions:
            cell = _cell(own, c, 1, n_boot, seed, bci_people.get((pid, c), np.nan), ci)
            if cell is not None:
                cells[(pid, c)] = cell
    for c in conditions:
        sub = _subset(pooled, c)
        if sub.empty:
            continue
        n_people = int(human_rows[human_rows["participant"].isin(pooled_from)
                                  & human_rows["tuple_ID"].isin(sub["tuple_ID"])]["participant"].nunique())
        cell = _cell(pooled, c, n_people, n_boot, seed, bci_pooled.get((POOLED, c), np.nan), ci)
        if cell is not None:
            cell.extra["tuples_with_2plus"] = int((sub["participants"] >= 2).sum())
            cells[(POOLED, c)] = cell
    model_tuples: dict[str, pd.DataFrame] = {}
    for m in model_names:
        own = tuples[tuples["who"] == m]
        model_tuples[m] = own
        for c in conditions:
            cell = _cell(own, c, 0, n_boot, seed, bci_models.get((m, c), np.nan), ci)
            if cell is not None:
                cells[(m, c)] = cell

    tests: list[TestRow] = []
    groups = [(POOLED, pooled)] if not pooled.empty else []
    if participant_tests:
        groups += [(pid, human_rows[human_rows["participant"] == pid]) for pid in participants]
    for m in model_names:
        mt = model_tuples[m].set_index("tuple_ID")["acc"]
        for c in conditions:
            for who, rows in groups:
                test = _test(who, _subset(rows, c), mt, _subset(model_tuples[m], c), c, m, n_boot, seed)
                if test is not None:
                    tests.append(test)

    spread = {}
    for c in conditions:
        vals = [cells[(p, c)].value for p in people if (p, c) in cells]
        if vals:
            spread[c] = stats.spread(vals)

    # response times and item accuracy
    rt_rows = []
    rt_bins = {}
    rts_ms: dict[str, list[float]] = {}
    ratings: dict[int, list[str]] = {}
    right: dict[int, list[bool]] = {}
    for pid in participants:
        ans = answers[pid]
        pos = key_index.get_indexer(ans.keys)
        known = pos >= 0
        probs = problem_of[pos[known]]
        rts = ans.rts_ms[known]
        resps = [r for r, k in zip(ans.resps, known, strict=True) if k]
        correct = np.array([is_correct(r, g) for r, g in zip(resps, gold_of[pos[known]], strict=True)], dtype=bool)
        rts_ms[pid] = [float(x) for x in rts if not np.isnan(x)]
        if np.isfinite(rts).any():
            if len(conditions) > 1 or conditions == [OVERALL]:
                rt_rows.append((pid, OVERALL, stats.rt_summary(rts)))
            for prob in problems:
                mask = probs == prob
                if mask.any():
                    rt_rows.append((pid, prob, stats.rt_summary(rts[mask])))
            rt_bins[pid] = stats.accuracy_by_rt_quantile(rts, correct, rt_quantiles)
        if pid not in people:
            continue  # a simulated participant's answers are no evidence of agreement between people
        for key, resp, ok in zip(ans.keys[known], resps, correct, strict=True):
            ratings.setdefault(int(key), []).append(resp)
            right.setdefault(int(key), []).append(bool(ok))
    agreement = {}
    multi = {k: v for k, v in ratings.items() if len(v) >= 2}
    if multi:
        multi_keys = np.fromiter(multi.keys(), dtype=np.int64)
        probs = problem_of[key_index.get_indexer(multi_keys)]
        if len(problems) > 1:
            # answer sets differ between problems, so across problems people agree on right/wrong
            agreement[OVERALL_CORRECTNESS] = stats.agreement([right[k] for k in multi])
        for prob in problems:
            answers_per_item = [multi[int(k)] for k, p in zip(multi_keys, probs, strict=True) if p == prob]
            if answers_per_item:
                agreement[prob] = stats.agreement(answers_per_item)

    row_frames = [(pid, human_rows[human_rows["participant"] == pid]) for pid in participants]
    row_frames += [(POOLED, pooled)] if not pooled.empty else []
    row_frames += [(m, model_tuples[m]) for m in model_names]
    bias_tables = _bias_tables(row_frames, problems, {e.name: e.label for e in entries}, n_boot, seed)

    notes = [
        "Scores: WorldSense tuple accuracy, rebalanced over sizes then problems (the benchmark's own scoring).",
        (f"95% CI: percentile bootstrap over tuples, stratified by problem x size ({n_boot} resamples, seed {seed}). "
         "It treats problems and sizes as fixed strata, so it is narrower than the paper's 1.96*sem, which adds the "
         "spread between cell means and counts min-cell tuples; that one is in the csv/json export as benchmark_ci95 "
         "(or shown with --ci benchmark)." if ci == "bootstrap" else
         "95% CI: the benchmark's own 1.96*sem (pooled second moments, min-cell counts); nan for one-tuple cells."),
        "Bias: +1 = always TRUE/POSSIBLE/decidable, -1 = the opposite, 0 = balanced (the benchmark's tuple bias, "
        "rebalanced over sizes); CI as for accuracy.",
        "Pooled humans: each tuple once, scored as the mean over the participants who completed it"
        + ("; flagged participants excluded." if exclude_flagged else "."),
        "Tests: pooled humans minus model on shared tuples: two-sided paired sign-flip permutation test of the "
        "score difference stratified like the score (exact up to 16 non-zero tuple differences, else "
        f"{n_boot} random flips), CI = percentile bootstrap within strata, left out ('n/a') when a stratum has "
        "fewer than 2 tuples where the scores differ; unpaired bootstrap when no tuple is shared.",
        simulated_note(simulated, include_simulated),
        f"Attention criterion: {criterion.describe()} (control = the three *.trivial problems, tuple accuracy).",
        "Agreement: raw answers to the same Key by two or more participants, per problem; percent = mean pairwise "
        "agreement, Fleiss' kappa (varying raters per item allowed). Across problems (different answer sets) the "
        "overall row compares right/wrong instead.",
        "Response times: ms from stimulus onset (event time); item accuracy by RT quartile uses the per-item rule "
        "(options 1 and 2 both count as 'decidable').",
    ]
    notes += [f"scoring warning: {w}" for w in scored.warnings]
    return Comparison(
        benchmark="WorldSense", unit="tuples", conditions=conditions, entries=entries, cells=cells, tests=tests,
        spread=spread, rt=rt_rows, rt_quantiles=rt_bins, rts_ms=rts_ms, agreement=agreement, notes=notes,
        extra_tables={"bias": bias_tables}, pooled_simulated=include_simulated,
    )


def _bias_tables(rows: list[tuple[str, pd.DataFrame]], problems: list[str], labels: dict[str, str], n_boot: int,
                 seed: int) -> tuple[Table, Table]:
    """Per-problem bias (value [95% CI]) of every row, formatted and long numeric."""
    wide: dict[str, list[str]] = {p: [] for p in problems}
    long_rows = []
    for name, frame in rows:
        for prob in problems:
            sub = _subset(frame, prob)
            if sub.empty:
                wide[prob].append("")
                continue
            strata, weights = _weights(sub, prob)
            values = sub["bias"].to_numpy(dtype=float)
            value = stats.stratified_mean(values, strata, weights)
            lo, hi = stats.bootstrap_ci(values, strata, weights, n_boot=n_boot, seed=seed)
            wide[prob].append(f"{value:.2f}" if lo != lo else f"{value:.2f} [{lo:.2f}, {hi:.2f}]")
            long_rows.append({"who": name, "condition": prob, "bias": round(value, 6),
                              "ci_low": None if lo != lo else round(lo, 6),
                              "ci_high": None if hi != hi else round(hi, 6), "tuples": len(sub)})
    formatted = pd.DataFrame(wide, index=pd.Index([labels.get(n, n) for n, _ in rows], name="who"))
    numeric = pd.DataFrame(long_rows).set_index(["who", "condition"]) if long_rows else pd.DataFrame()
    return (Table("WorldSense: bias per problem [95% CI] (+1 = always TRUE/POSSIBLE/decidable)", formatted),
            Table("WorldSense: bias per row and problem", numeric))


def _test(who: str, hp: pd.DataFrame, model_acc: pd.Series, model_rows: pd.DataFrame, c: str, m: str,
          n_boot: int, seed: int) -> TestRow | None:
    """Humans (pooled or one participant) minus a model: paired on shared tuples, else unpaired."""
    if hp.empty:
        return None
    shared = hp[hp["tuple_ID"].isin(model_acc.index)]
    if len(shared) >= 2:
        strata, weights = _weights(shared, c)
        h = shared["acc"].to_numpy(dtype=float)
        mv = model_acc.loc[shared["tuple_ID"]].to_numpy(dtype=float)
        res = stats.paired_permutation_test(h, mv, strata, weights, n_boot=n_boot, seed=seed)
        res = _renamed(res, res.method + " over shared tuples (stratified by "
                       + ("problem x size)" if c == OVERALL else "size)"))
        return TestRow(c, m, stats.stratified_mean(h, strata, weights), stats.stratified_mean(mv, strata, weights),
                       res, who=who)
    if model_rows.empty:
        return None
    res = stats.unpaired_bootstrap(hp["acc"].to_numpy(dtype=float), model_rows["acc"].to_numpy(dtype=float),
                                   n_boot=n_boot, seed=seed)
    res = _renamed(res, "unpaired bootstrap of tuple scores (no shared tuples)")
    return TestRow(c, m, float(hp["acc"].mean()), float(model_rows["acc"].mean()), res, who=who)


def _renamed(res: stats.TestResult, method: str) -> stats.TestResult:
    return stats.TestResult(method, res.estimate, res.ci_low, res.ci_high, res.p_value, res.statistic, res.n,
                            res.note)
