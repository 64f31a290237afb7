"""WorldSense: every participant, the pooled humans and every model, per problem, with CIs and paired tests.

Scores come from :mod:`benchlab.data.worldsense.scoring` (the benchmark's own tuple scoring), so a participant's
numbers here are the numbers ``benchlab score worldsense`` prints. On top of that:

* **Score and CI.** The score is the benchmark's rebalanced mean (sizes, then problems, equal weight). The 95% CI
  is a percentile bootstrap over tuples, stratified by (problem, size) with the same weights, so it stays
  defined for a participant with one tuple in a cell (where the benchmark's own formula prints ``nan``). The
  benchmark's own ``1.96 * sem`` is kept in the numeric export (``benchmark_ci95``) for comparison with papers.
* **Pooled humans.** Each tuple counts once: its score is the mean over the participants who completed it (the
  expected score of a random participant on that tuple); tuples are then aggregated like a model's. So a tuple
  answered by three people does not weigh three times, and the CI counts both people and tuples
  (:mod:`benchlab.data.analysis.crossed`), so it is wide with few people.
* **Tests.** Pooled humans minus each model on the tuples both have: people x tuples (crossed) t-test together
  with the exact sign-flip test over shared tuples, the larger p. When humans and a model share no tuple (other
  test set), an unpaired bootstrap of tuple scores.
* **People.** Per-participant spread (min/median/max), attention flags (accuracy on the trivial control problems,
  share of too-fast responses), response-time median/IQR per problem, item accuracy by RT quartile, and
  agreement (percent, Fleiss' kappa) on raw answers to Keys answered by two or more participants.

This module reads the files and declares what is WorldSense's own (:class:`WorldSenseDesign`);
:mod:`benchlab.data.analysis.pipeline` builds the comparison.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import POOLED, Comparison
from benchlab.data.analysis.crossed import crossed_estimate
from benchlab.data.analysis.design import FrameMemo, Later, RowsWhere, narrowed
from benchlab.data.analysis.pipeline import (
    OVERALL,
    Design,
    Options,
    Participant,
    Readings,
    RowKind,
    Strata,
    ask_cells_ahead,
    bootstrap_cell,
    run_comparison,
)
from benchlab.data.analysis.stats import AttentionCriterion, FigureCell
from benchlab.data.file_cache import read_once
from benchlab.data.models.same_items import prompt_hash_notes, restrict_to_shared
from benchlab.data.tables import Table
from benchlab.data.worldsense.compare_inputs import inputs_read
from benchlab.data.worldsense.compare_strata import first_seen, is_trivial, row_names, strata_weights
from benchlab.data.worldsense.results import ResultsFile, find_results, result_answers
from benchlab.data.worldsense.rules import MODEL_ORDER, PROBLEM_ORDER, is_correct
from benchlab.data.worldsense.score_tables import stats_by_group

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


def watched_files(results: Path | Sequence[Path]) -> list[Path]:
    """Results files the Results screen polls (a new participant's file appearing counts as a change)."""
    folders = [results] if isinstance(results, Path) else list(results)
    out: list[Path] = []
    for folder in folders:
        if folder.is_dir():
            out.extend(f.path for f in find_results(folder))
    return out


def _read_human(file: ResultsFile) -> HumanAnswers:
    """A participant's raw answers, validated once per file content (:mod:`benchlab.data.file_cache`): a lab's
    comparison rereads every person's file on each run."""
    answers = read_once("worldsense-human-answers", file.path, _human_answers)
    return replace(answers, participant=participant_id(file.modelname))


def _human_answers(path: Path, warn: Callable[[str], None]) -> HumanAnswers:
    """The first answer per Key, its response time and the session's ``simulated`` field (no warnings to give)."""
    seen: set[int] = set()
    keys, resps, rts = [], [], []
    simulated = ""
    for key, resp, extras in list(result_answers(path, allow_torn_tail=True)):  # every line checked first
        sim = extras.get("simulated")
        if isinstance(sim, str) and sim and not simulated:
            simulated = sim
        if key in seen:
            continue
        seen.add(key)
        keys.append(key)
        resps.append(resp)
        rt = extras.get("rt_ms")
        rts.append(float(rt) if isinstance(rt, int | float) and not isinstance(rt, bool) else np.nan)
    return HumanAnswers("", np.asarray(keys, dtype=np.int64), resps, np.asarray(rts, dtype=float), simulated)


class WorldSenseDesign(Design):
    """WorldSense's declarations: tuples scored the benchmark's way, problem x size strata with its weights."""

    benchmark = "WorldSense"
    unit = "tuples"
    unit_word = "tuples"
    unpaired_label = "unpaired bootstrap of tuple scores (no shared tuples)"
    pool_first = ("problemname", "problemsize")
    pool_means = ("bias",)
    overall_agreement = OVERALL_CORRECTNESS
    overall_agreement_on_correctness = True  # answer sets differ between problems: agree on right/wrong

    def __init__(self, options: Options, ci: str, readings: Readings, warnings: list[str],
                 benchmark_ci95: bool = True) -> None:
        self.options = options
        self.ci = ci
        #: whether each cell carries the benchmark's own 1.96*sem (``benchmark_ci95``, for the numeric export);
        #: --ci benchmark prints it, so it is computed then whatever this says
        self.benchmark_ci95 = benchmark_ci95 or ci == "benchmark"
        # --ci benchmark: the paper's own 1.96*sem everywhere, as asked (the notes say what it cannot show)
        self.pooled_crossed = self.honest_cells = ci != "benchmark"
        self.problems = readings.groups
        self.warnings = warnings
        self._subsets: FrameMemo[pd.DataFrame] = FrameMemo()
        self._rows_where = RowsWhere()
        self._strata: FrameMemo[Strata] = FrameMemo()
        # the benchmark's own CI of every participant and model, computed at once (per row it costs more)
        self._bci: dict[RowKind, dict[tuple[str, str], float]] = {
            "participant": _benchmark_ci(readings.humans), "model": _benchmark_ci(readings.models)
        } if self.benchmark_ci95 else {}

    def subset(self, frame: pd.DataFrame, condition: str) -> pd.DataFrame:
        """A row's units in ``condition``, computed once per frame and condition (the cells, partial rows, tests
        and bias table all ask for the same ones), from one grouping of the frame by problem."""
        if condition == OVERALL:
            return frame
        return self._subsets.get(frame, condition, lambda f, c: self._rows_where(f, "problemname", c))

    def strata(self, frame: pd.DataFrame, condition: str) -> Strata:
        """:func:`strata_weights`, once per frame and condition (as :meth:`subset`)."""
        return self._strata.get(frame, condition, strata_weights)

    def strata_note(self, condition: str) -> str:
        return " (stratified by problem x size)" if condition == OVERALL else " (stratified by size)"

    def cell(self, kind: RowKind, name: str, frame: pd.DataFrame, condition: str,
             n_people: int) -> FigureCell | None:
        """The rebalanced score; CI: stratified bootstrap, or the benchmark's own 1.96*sem (``--ci benchmark``)."""
        sub = self.subset(frame, condition)
        if sub.empty:
            return None
        if self.benchmark_ci95 and kind not in self._bci:  # the pooled humans, known once they are pooled
            self._bci[kind] = _benchmark_ci(frame.assign(who=name))
        bci = self._bci[kind].get((name, condition), np.nan) if self.benchmark_ci95 else np.nan
        extra: dict[str, object] = {"benchmark_ci95": bci} if self.benchmark_ci95 else {}
        strata = self.strata(sub, condition)
        values = sub["score"].to_numpy(dtype=float)
        if self.ci == "benchmark":
            value = stats.stratified_mean(values, *strata)
            return FigureCell(value, value - bci, value + bci, len(sub), n_people, "WorldSense 1.96*sem", extra)
        return bootstrap_cell(values, strata, n_people, "stratified bootstrap over tuples", self.options,
                              extra, interval=not self.interval_replaced(kind))

    def pooled_extra(self, units: pd.DataFrame) -> dict[str, object]:
        return {"tuples_with_2plus": int((units["people"] >= 2).sum())}

    def ask_ahead(self, models: list[tuple[str, pd.DataFrame]], conditions: list[str], extra: bool) -> None:
        """The models' cells and bias figures: ~50 bootstraps over thousands of tuples, most of a comparison's
        compute once a person joined (the models are scored on the tuples people saw, so they change then)."""
        if extra:  # in the order the pipeline reads them: the extra tables, then the models' cells
            _bias_tables(models, self.problems, {}, self.options.n_boot, self.options.seed, design=self)
        ask_cells_ahead(self, models, conditions)

    def extra_tables(self, rows: list[tuple[str, pd.DataFrame]],
                     labels: dict[str, str]) -> dict[str, tuple[Table, Table]]:
        return {"bias": _bias_tables(rows, self.problems, labels, self.options.n_boot, self.options.seed,
                                     design=self)}

    def extra_tables_with_answers(self, rows: list[tuple[str, pd.DataFrame]], labels: dict[str, str],
                                  pooled_answers: pd.DataFrame) -> dict[str, tuple[Table, Table]]:
        answers = pooled_answers if self.pooled_crossed else None
        return {"bias": _bias_tables(rows, self.problems, labels, self.options.n_boot, self.options.seed,
                                     answers, design=self)}

    def notes(self, simulated_line: str) -> list[str]:
        o = self.options
        notes = [
            "Scores: WorldSense tuple accuracy, rebalanced over sizes then problems (the benchmark's own scoring).",
            (f"95% CI: percentile bootstrap over tuples, stratified by problem x size ({o.n_boot} resamples, seed "
             f"{o.seed}). It treats problems and sizes as fixed strata, so it is narrower than the paper's 1.96*sem, "
             "which adds the spread between cell means and counts min-cell tuples; that one is in the csv/json "
             "export as benchmark_ci95 (or shown with --ci benchmark)." if self.ci == "bootstrap" else
             "95% CI: the benchmark's own 1.96*sem (pooled second moments, min-cell counts); nan for one-tuple "
             "cells."),
            "Bias: +1 = always TRUE/POSSIBLE/decidable, -1 = the opposite, 0 = balanced (the benchmark's tuple bias, "
            "rebalanced over sizes); CI: bootstrap over tuples within sizes, or Wilson with Kish's effective n on "
            "(bias+1)/2 where a size has no variation (never a zero-width interval); pooled humans: crossed people "
            "x tuples like their accuracy (on (bias+1)/2, mapped back).",
            "Pooled humans: each tuple once, scored as the mean over the participants who completed it"
            + ("; flagged participants excluded." if o.exclude_flagged else "."),
            ("Pooled humans' 95% CI: crossed people x tuples (method-of-moments variance components for people, "
             "tuple-clustered variance within problem x size strata, variance x (1 + 1/people), t "
             "with df = min(Satterthwaite, people - 1), on the logit scale), so it widens with few people; n/a "
             "(with the reason) for one participant or no variation. Checked by `benchlab bench coverage`. Every "
             "participant's cell: Wilson with Kish's effective n over the strata (one method chosen from the "
             "design, defined for one tuple too); a model's cell with a stratum without variation: Wilson-Kish "
             "instead of the bootstrap (which would print a zero-width interval)."
             if self.ci == "bootstrap" else
             "With --ci benchmark every cell, pooled humans included, uses the paper's 1.96*sem over tuples, which "
             "ignores the spread between people and is zero wherever every tuple scored the same: zero width "
             "there is no certainty."),
            "Tests (each printed interval inverts the printed test): pooled humans minus model on shared tuples: "
            "the crossed people x tuples t-test and its interval (the same t); one participant (or each "
            "participant, when asked): the two-sided paired sign-flip permutation test stratified like the score "
            f"(exact up to 16 non-zero tuple differences, else {o.n_boot} random flips) with the interval inverting "
            "it (n/a when every difference is the same); unpaired bootstrap when no tuple is shared."
            if self.pooled_crossed else
            "Tests: pooled humans minus model on shared tuples: two-sided paired sign-flip permutation test of the "
            "score difference stratified like the score (exact up to 16 non-zero tuple differences, else "
            f"{o.n_boot} random flips), CI = percentile bootstrap within strata, left out ('n/a') when a stratum "
            "has fewer than 2 tuples where the scores differ; unpaired bootstrap when no tuple is shared.",
            simulated_line,
            f"Attention criterion: {o.criterion.describe()} (control = the three *.trivial problems, tuple "
            "accuracy).",
            "Agreement: raw answers to the same Key by two or more participants, per problem; percent = mean "
            "pairwise agreement, Fleiss' kappa (varying raters per item allowed). Across problems (different answer "
            "sets) the overall row compares right/wrong instead.",
            "Response times: ms from stimulus onset (event time); item accuracy by RT quartile uses the per-item "
            "rule (options 1 and 2 both count as 'decidable').",
        ]
        return notes + [f"scoring warning: {w}" for w in self.warnings]


def _benchmark_ci(tuples: pd.DataFrame) -> dict[tuple[str, str], float]:
    """The benchmark's own 1.96*sem for every (row ``who``, condition), overall and per problem, in two passes."""
    out: dict[tuple[str, str], float] = {}
    if tuples.empty:
        return out
    per_problem = stats_by_group(tuples, ["who", "problemname"], "score")
    for idx, conf in zip(per_problem.index, per_problem["conf95"], strict=True):
        out[(str(idx[0]), str(idx[1]))] = float(conf)
    multi = tuples.groupby("who")["problemname"].nunique()
    several = tuples[tuples["who"].isin(multi[multi > 1].index)]
    if not several.empty:
        overall = stats_by_group(several, ["who"], "score")
        for who, conf in zip(overall.index, overall["conf95"], strict=True):
            out[(str(who), OVERALL)] = float(conf)
    return out


def _order_models(names: list[str]) -> list[str]:
    known = [m for m in MODEL_ORDER if m in names]
    return known + sorted(n for n in names if n not in known)


class _ByTrial:
    """A coded column of the test set's trials (names and one code per trial), indexed by trial positions like the
    array of names it stands for, without making that 87k-long array of strings on every comparison."""

    def __init__(self, names: Sequence[str], codes: np.ndarray) -> None:
        self.names = np.asarray(names, dtype=object)
        self.codes = codes

    def __getitem__(self, positions: np.ndarray) -> np.ndarray:
        return self.names[self.codes[positions]]


def _participant(pid: str, answers: HumanAnswers, own: pd.DataFrame, key_index: pd.Index,
                 gold_of: _ByTrial, problem_of: _ByTrial) -> Participant:
    """A participant's raw answers (known Keys, the per-item rule) and control accuracy (the trivial problems)."""
    pos = key_index.get_indexer(pd.Index(answers.keys))
    known = pos >= 0
    resps = [r for r, k in zip(answers.resps, known, strict=True) if k]
    table = pd.DataFrame({
        "rt_ms": answers.rts_ms[known],
        "correct": np.array([is_correct(r, g) for r, g in zip(resps, gold_of[pos[known]], strict=True)], dtype=bool),
        "group": pd.Series(problem_of[pos[known]], dtype=object),  # read as objects (no pyarrow strings made)
        "item": pd.Series(answers.keys[known].tolist(), dtype=object),  # Python ints, as int(k) gave
        "answer": pd.Series(resps, dtype=object),
    })
    trivial = own["score"][is_trivial(own["problemname"])]  # the score column alone: one column to select
    control = float(trivial.mean()) if len(trivial) else None
    return Participant(pid, table, answers.simulated, control, answers.rts_ms)


def read_worldsense(testset: str | Path, results: Sequence[str | Path] | str | Path | None = None,
                    include_published: bool = True) -> tuple[Readings, list[str]]:
    """WorldSense results in the pipeline's terms (tuples as units), and the scoring warnings."""
    inputs = inputs_read(testset, results, include_published)
    trials, files, tuples, warnings = inputs.trials, inputs.files, inputs.scored.frame(), inputs.warnings
    names_count = pd.Series([f.modelname for f in files]).value_counts()
    pairs = tuples[["prompting", "modelname"]].drop_duplicates()
    who_of = {(p, m): (m if names_count.get(m, 0) <= 1 else f"{p}/{m}")
              for p, m in pairs.itertuples(index=False, name=None)}
    human = tuples["modelname"].map({m: is_human(m) for m in pairs["modelname"]}).astype(bool)
    # row names as Python strings (object columns): the pipeline reads them so (:func:`narrowed`), and ~165k names
    # made pyarrow strings first, then objects again, cost ~15 ms
    who = pd.Series(row_names(tuples["prompting"], tuples["modelname"], who_of), index=tuples.index, dtype=object)
    tuples = tuples.assign(who=who, unit=tuples["tuple_ID"], score=tuples["acc"])
    models = tuples[~human]
    humans = tuples[human].copy()
    humans["who"] = pd.Series([participant_id(m) for m in humans["modelname"]], index=humans.index, dtype=object)

    def participants() -> list[Participant]:
        """Each person's answers; built when the pipeline first reads them (after asking for the models')."""
        answers = {participant_id(f.modelname): _read_human(f) for f in files if is_human(f.modelname)}
        # straight from the columns: the test set's DataFrame (87k rows of strings) is not needed for three lookups
        lookups = (pd.Index(trials.key), _ByTrial(trials.gold_names, trials.gold_code),
                   _ByTrial(trials.problem_names, trials.problem_code))
        rows_where = RowsWhere()
        return [_participant(p, answers[p], rows_where(humans, "who", p), *lookups) for p in sorted(answers)]

    present = first_seen(tuples["problemname"])
    problems = [p for p in PROBLEM_ORDER if p in present] + sorted(p for p in present if p not in PROBLEM_ORDER)
    conditions = ([OVERALL] if len(problems) > 1 else []) + problems
    model_names = _order_models(sorted({name for (_p, m), name in who_of.items() if not is_human(m)}))
    return Readings(humans, models, Later(participants), model_names, conditions, problems), warnings


#: The columns of the tuples that the pipeline and :class:`WorldSenseDesign` read (rows, strata, pooling, bias).
PIPELINE_COLUMNS = ("who", "unit", "score", "problemname", "problemsize", "bias")


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
    excluded: Mapping[str, tuple[str, ...]] | None = None,
    same_items: bool = True,
    tables: Iterable[str] | None = None,
    benchmark_ci95: bool = True,
) -> Comparison:
    """Build the comparison from a test set and results folders (humans: model names starting with ``human``).

    ``same_items`` (default) scores each model on the tuples people answered only (what was left out on each side,
    and whether the prompts' hashes agree, goes into the notes: :mod:`benchlab.data.models.same_items`).

    ``participant_tests`` adds each participant against each model (same paired test) to the pooled tests.
    Simulated participants (results lines with ``simulated``, e.g. ``run ... --simulate oracle``) keep their own
    labelled row but stay out of the pooled humans, spread and agreement unless ``include_simulated``.
    ``ci="benchmark"`` shows the benchmark's own ``1.96 * sem`` instead of the bootstrap (to match papers; it is
    ``nan`` for cells with a single tuple). ``tables`` (the ``--only`` names; default all): work for the other
    tables is skipped, the printed numbers stay the same. ``benchmark_ci95=False`` leaves the benchmark's own
    1.96*sem out of the cells' extras (only the numeric export prints it; ``ci="benchmark"`` computes it anyway).
    """
    if ci not in ("bootstrap", "benchmark"):
        raise ValueError(f"unknown CI method {ci!r}")
    options = Options(criterion or AttentionCriterion(), exclude_flagged, n_boot, seed, rt_quantiles,
                      participant_tests, include_simulated, excluded=dict(excluded or {}),
                      tables=None if tables is None else frozenset(tables))
    readings, warnings = read_worldsense(testset, results, include_published)
    extra = [results] if isinstance(results, str | Path) else list(results or [])
    if same_items:
        models, notes = restrict_to_shared(readings.humans, readings.models, what="tuples")
        readings = replace(readings, models=models)
        warnings = [*warnings, *notes, *prompt_hash_notes(extra)]
    for folder in map(Path, extra):
        foreign = sorted(p for p in folder.rglob("*_results.csv") if p.is_file()) if folder.is_dir() else []
        if foreign:
            warnings = [*warnings, f"not WorldSense results, left out: {len(foreign)} SORT-style file(s) (e.g. "
                        f"{foreign[0].name}) in {folder}; compare them with `benchlab compare sort`"]
    readings = narrowed(readings, PIPELINE_COLUMNS)  # prompting, modelname, tuple_ID, acc: not read from here on
    comp = run_comparison(WorldSenseDesign(options, ci, readings, warnings, benchmark_ci95), readings, options)
    comp.models_same_items = same_items
    return comp


def _crossed_bias(answers: pd.DataFrame, problem: str, design: Design) -> tuple[float, float]:
    """Pooled bias interval over people x tuples: the crossed interval of (bias + 1) / 2, mapped back."""
    sub = design.subset(answers, problem)
    strata, weights = design.strata(sub, problem)
    est = crossed_estimate(design.labels(sub, "who"), design.labels(sub, "unit"),
                           (sub["bias"].to_numpy(dtype=float) + 1) / 2, strata=strata, weights=weights)
    return (2 * est.ci_low - 1, 2 * est.ci_high - 1) if est.available else (math.nan, math.nan)


def _bias_tables(rows: list[tuple[str, pd.DataFrame]], problems: list[str], labels: dict[str, str], n_boot: int,
                 seed: int, pooled_answers: pd.DataFrame | None = None, *,
                 design: Design) -> tuple[Table, Table]:
    """Per-problem bias (value [95% CI]) of every row, formatted and long numeric.

    The pooled humans' interval is crossed people x tuples like their accuracy (``pooled_answers``): people with
    opposite biases (-0.67 and +0.89) are two draws from a spread-out population, not one fixed answerer, so an
    item-only bootstrap (0.11 [-0.06, 0.33]) claimed far too much.
    """
    wide: dict[str, list[str]] = {p: [] for p in problems}
    long_rows = []
    for name, frame in rows:
        for prob in problems:
            sub = design.subset(frame, prob)
            if sub.empty:
                wide[prob].append("")
                continue
            strata, weights = design.strata(sub, prob)
            values = sub["bias"].to_numpy(dtype=float)
            value = stats.stratified_mean(values, strata, weights)
            # a row with a constant stratum gets Wilson-Kish below whatever the bootstrap says: not drawn then
            constant = name != POOLED and stats.has_constant_stratum(values, strata)
            if name == POOLED and pooled_answers is not None:
                lo, hi = _crossed_bias(pooled_answers, prob, design)
            elif constant:
                lo = hi = math.nan
            else:
                lo, hi = stats.bootstrap_ci(values, strata, weights, n_boot=n_boot, seed=seed)
            if name != POOLED and (constant or not hi - lo > 1e-12):
                # a stratum without variation: nothing to bootstrap (a perfect answerer printed [0.00, 0.00]);
                # Wilson with Kish's effective n on (bias + 1) / 2, which lies in [0, 1], mapped back
                wlo, whi = stats.wilson_kish_ci((values + 1) / 2, strata, weights)
                lo, hi = 2 * wlo - 1, 2 * whi - 1
            wide[prob].append(f"{value:.2f}" if lo != lo else f"{value:.2f} [{lo:.2f}, {hi:.2f}]")
            long_rows.append({"who": name, "condition": prob, "bias": round(value, 6),
                              "ci_low": None if lo != lo else round(lo, 6),
                              "ci_high": None if hi != hi else round(hi, 6), "tuples": len(sub)})
    formatted = pd.DataFrame(wide, index=pd.Index([labels.get(n, n) for n, _ in rows], name="who"))
    numeric = pd.DataFrame(long_rows).set_index(["who", "condition"]) if long_rows else pd.DataFrame()
    return (Table("WorldSense: bias per problem [95% CI] (+1 = always TRUE/POSSIBLE/decidable)", formatted),
            Table("WorldSense: bias per row and problem", numeric))
