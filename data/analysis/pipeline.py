"""One humans-vs-models comparison pipeline; a benchmark declares only what differs (a :class:`Design`).

A benchmark adapter (a ``compare`` module in a benchmark's folder) reads its files
into :class:`Readings` (scored units of every participant and model, each participant's raw answers) and declares
a :class:`Design`: which conditions and strata there are, how a figure's CI is computed, which paired test compares
a row with a model, how the methods read. :func:`run_comparison` does the rest, the same way for every benchmark:
every participant's row (simulated ones labelled), the pooled humans (each unit once, scored as the mean over the
people who answered it), every model, CIs and counts, the tests with their method named, the per-participant
spread, attention flags, agreement between people and response-time summaries. So a new benchmark gets all of
that by declaring, and a fix here reaches every benchmark at once.

Uncertainty is honest with few people: the pooled humans' interval and their tests against a model count both
people and items (:mod:`benchlab.data.analysis.crossed`, checked by ``benchlab bench coverage``); one person's or
model's interval is never zero width where a stratum has no variation (Wilson with Kish's n); "[CI n/a]" comes
with its reason in the notes. Rows missing cells the models have are marked partial and their macro score is put
aside (the notes give it beside the models' scores on the same units).

Units frames (``Readings.humans``, ``Readings.models``) have at least ``who`` (participant id or model name),
``unit`` (the paired-test unit: a tuple of problems, an item; ``""`` when it cannot be identified) and
``score`` (the unit's score in [0, 1]), plus whatever columns the design's :meth:`Design.subset` and
:meth:`Design.strata` read.

The parts: the declaration and its cell helpers in :mod:`benchlab.data.analysis.design` (importable from here, as
adapters and plug-ins do), the tests against models in :mod:`benchlab.data.analysis.model_tests`, spread, response
times and agreement in :mod:`benchlab.data.analysis.participant_summaries`; the cells, partial rows and notes here.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import POOLED, Comparison, Entry, simulated_note
from benchlab.data.analysis.crossed import METHOD as CROSSED_METHOD
from benchlab.data.analysis.crossed import crossed_estimate
from benchlab.data.analysis.design import (
    OVERALL,
    Design,
    Options,
    Participant,
    Readings,
    RowKind,
    RowsWhere,
    Strata,
    TestKind,
    ask_cells_ahead,
    bootstrap_cell,
    identified,
    pool,
    renamed,
    wilson_cell,
)
from benchlab.data.analysis.model_tests import tests_against_models
from benchlab.data.analysis.participant_summaries import (
    agreement_between_people,
    response_times,
    rts_by_group,
    spread_by_condition,
)
from benchlab.data.analysis.stats import FigureCell
from benchlab.data.analysis.stats.intervals_ahead import helper_open, submitting

#: What a benchmark adapter (or a plug-in's comparison) imports from here: the declaration and the one call.
__all__ = [
    "OVERALL", "Design", "Options", "Participant", "Readings", "RowKind", "Strata", "TestKind", "ask_cells_ahead",
    "bootstrap_cell", "identified", "pool", "renamed", "run_comparison", "wilson_cell",
]


def run_comparison(design: Design, readings: Readings, options: Options) -> Comparison:
    """Every row, the pooled humans, every model, tests, spread, flags, RTs and agreement, for one benchmark.

    Inside :func:`benchlab.data.analysis.stats.intervals_ahead.drawing_ahead` (a ``compare`` command opens it) the
    models' bootstrap intervals are drawn by a helper process meanwhile (:meth:`Design.ask_ahead`); the figures are
    the same as drawn in place."""
    wanted = _wanted(options.tables)
    models = _model_rows(readings)  # the last rows of the tables, asked for first (a helper draws meanwhile)
    if helper_open():
        with submitting():
            design.ask_ahead([(n, f) for _k, n, f in models], readings.conditions, wanted("extra"))
    people = readings.participants
    flags = {p.name: tuple(options.criterion.reasons(p.control, p.flag_rts)) + excluded_reasons(options, p.name)
             for p in people}
    simulated = {p.name: p.simulated for p in people}
    poolable = [p.name for p in people if options.include_simulated or not p.simulated]
    pooled_rows = identified(readings.humans[readings.humans["who"].isin(
        [p for p in poolable if not ((options.exclude_flagged and flags[p]) or excluded_reasons(options, p))])])
    pooled = pool(pooled_rows, design)
    rows = _rows(readings, pooled, models)
    # the models' cells come last (a helper may still be drawing their intervals); the tables keep the rows' order
    cells = _cells(design, readings.conditions, [row for row in rows if row[0] != "model"], pooled_rows, options)
    partial, partial_notes = _partial(design, readings, rows, cells)
    entries = [Entry(p.name, "participant", flags[p.name], p.simulated, partial.get(p.name, ""))
               for p in people]
    entries += [Entry(POOLED, "humans", partial=partial.get(POOLED, ""))] if not pooled.empty else []
    entries += [Entry(m, "model") for m in readings.models_order]
    rt, rt_bins, rts_ms = response_times(readings, options.rt_quantiles) if wanted("rt") else ([], {}, {})
    tests = tests_against_models(design, readings, pooled, pooled_rows, options) if wanted("tests") else []
    agreement = agreement_between_people(design, readings, set(poolable)) if wanted("agreement") else {}
    rts_grouped = rts_by_group(readings) if wanted("rt") else {}
    design_notes = design.notes(simulated_note(simulated, options.include_simulated))
    extra_tables = (design.extra_tables_with_answers([(n, f) for _k, n, f in rows],
                                                     {e.name: e.label for e in entries}, pooled_rows)
                    if wanted("extra") else {})
    cells.update(_cells(design, readings.conditions, models, pooled_rows, options))
    return Comparison(
        benchmark=design.benchmark, unit=design.unit, conditions=readings.conditions, entries=entries, cells=cells,
        tests=tests, spread=spread_by_condition(readings.conditions, poolable, cells),
        rt=rt, rt_quantiles=rt_bins, rts_ms=rts_ms, agreement=agreement, rts_by_group=rts_grouped,
        notes=design_notes + _na_notes(cells, entries) + partial_notes + _exploratory_note(options),
        extra_tables=extra_tables, pooled_simulated=options.include_simulated, chance=design.chance,
        primary=design.primary_conditions(readings.conditions),
    ).with_correction(options.correction)


def _exploratory_note(options: Options) -> list[str]:
    """Exclusion by the command line's attention criterion was chosen after the data: said so (issue 22)."""
    if not (options.exclude_flagged and options.criterion.active):
        return []
    return [f"Exploratory exclusion: flagged participants ({options.criterion.describe()}) were left out of the "
            "pool by options given on the command line after the data; declared rules belong in the study file's "
            "[[exclusions]] (docs/report.md)."]


def excluded_reasons(options: Options, name: str) -> tuple[str, ...]:
    """Why declared rules exclude the row ``name`` (a participant id, or ``human-<id>`` as some results name them)."""
    for key in (name, name.removeprefix("human-"), name.removeprefix("human_")):
        if key in options.excluded:
            return options.excluded[key]
    return ()


#: The tables built from the cells alone; any other asked-for name is a benchmark's extra table (bias, positions).
_CORE_TABLES = frozenset({"accuracy", "counts", "tests", "spread", "flags", "rt", "rt-quantiles", "agreement",
                          "methods"})


def _wanted(tables: frozenset[str] | None) -> Callable[[str], bool]:
    """Whether a part of the comparison is needed for ``tables`` (``None``: every table, e.g. the Results screen).

    The methods table states the size of the test family, so it needs the tests; the RT tables and the figure's RT
    panels share one computation; "extra" is any benchmark-declared table.
    """
    if tables is None:
        return lambda _part: True
    needs = {"tests": {"tests", "methods"}, "agreement": {"agreement"}, "rt": {"rt", "rt-quantiles"}}

    def wanted(part: str) -> bool:
        if part == "extra":
            return bool(tables - _CORE_TABLES)
        return bool(tables & needs[part])
    return wanted


def _partial(design: Design, readings: Readings, rows: list[tuple[RowKind, str, pd.DataFrame]],
             cells: dict[tuple[str, str], FigureCell]) -> tuple[dict[str, str], list[str]]:
    """Rows (participants, pooled humans) missing cells the models have, marked, with their macro scores put aside.

    A macro score over fewer cells is not the models' overall (one tuple of a trivial stratum is not the
    benchmark's "overall"): the cell is kept in the numeric export with ``partial`` set, the tables print
    "partial (k of K cells)" there, and a note gives the row's score on its own cells beside every model's score
    recomputed on the same units. Returns {row: "k of K cells"} and the notes.
    """
    models = readings.models
    marks: dict[str, str] = {}
    notes: list[str] = []
    for c in readings.conditions:
        model_units = design.subset(models, c)
        if model_units.empty:
            continue
        ref, _w = design.strata(model_units, c)
        if ref is None:
            continue
        full = {str(x) for x in ref}
        for kind, name, frame in rows:
            if kind == "model":
                continue
            mine = design.subset(frame, c)
            cell = cells.get((name, c))
            if mine.empty or cell is None:
                continue
            labels, _ = design.strata(mine, c)
            have = {str(x) for x in labels or []}
            if not have or have >= full:
                continue
            what = f"{len(have & full)} of {len(full)} cells"
            cell.extra["partial"] = what
            marks.setdefault(name, what)
            same = []
            units = {u for u in mine["unit"] if str(u) != ""}
            for m in readings.models_order:
                theirs = identified(model_units[model_units["who"] == m])
                on = theirs[theirs["unit"].isin(units)]
                if on.empty:
                    continue
                ml, mw = design.strata(on, c)
                same.append(f"{m} {100 * stats.stratified_mean(on['score'].to_numpy(dtype=float), ml, mw):.1f}")
            notes.append(f"Partial: {name} / {c} has {what} ({', '.join(sorted(have))}): "
                         f"{100 * cell.value:.1f} on those cells only, not shown beside the models' {c}; on the same "
                         f"{design.unit}: " + ("; ".join(same) if same else "no model answered them") + ".")
    if notes:
        notes.append("The models' own figures in the accuracy table are the benchmark's scores over all their "
                     "cells; a partial row is compared with each model on its own units in the tests table "
                     "('model (same units)').")
    return marks, notes


def _na_notes(cells: dict[tuple[str, str], FigureCell], entries: list[Entry]) -> list[str]:
    """One line per reason an interval is n/a, naming where: the table shows "[CI n/a]", this says why."""
    labels = {e.name: e.label for e in entries}
    where: dict[str, list[str]] = {}
    for (name, condition), cell in cells.items():
        note = cell.extra.get("ci_note")
        if cell.ci_low != cell.ci_low and isinstance(note, str) and note:
            where.setdefault(note, []).append(f"{labels.get(name, name)} / {condition}")
    return [f"CI n/a ({why}): {', '.join(places)}." for why, places in where.items()]


Row = tuple[RowKind, str, pd.DataFrame]


def _model_rows(readings: Readings) -> list[Row]:
    """The models' rows with their units, in table order (each frame grouped by row once, not one mask a model)."""
    rows_where = RowsWhere()
    return [("model", m, rows_where(readings.models, "who", m)) for m in readings.models_order]


def _rows(readings: Readings, pooled: pd.DataFrame, models: list[Row]) -> list[Row]:
    """Every row of the tables with its units, in table order (``models``: :func:`_model_rows`)."""
    rows_where = RowsWhere()  # each frame grouped by row once, not one mask per participant
    out: list[Row] = [("participant", p.name, rows_where(readings.humans, "who", p.name))
                      for p in readings.participants]
    out += [("humans", POOLED, pooled)] if not pooled.empty else []
    return out + models


def _cells(design: Design, conditions: list[str], rows: list[tuple[RowKind, str, pd.DataFrame]],
           pooled_rows: pd.DataFrame, options: Options) -> dict[tuple[str, str], FigureCell]:
    cells: dict[tuple[str, str], FigureCell] = {}
    for kind, name, frame in rows:
        for c in conditions:
            if kind == "humans":
                n_people = int(design.subset(pooled_rows, c)["who"].nunique())
            else:
                n_people = 1 if kind == "participant" else 0
            cell = design.cell(kind, name, frame, c, n_people)
            if cell is None:
                continue
            if kind == "humans":
                cell.extra.update(design.pooled_extra(design.subset(frame, c)))
                if design.pooled_crossed:
                    cell = _crossed_cell(design, cell, design.subset(pooled_rows, c), c)
            elif design.honest_cells:
                cell = (_participant_cell(design, cell, design.subset(frame, c), c) if kind == "participant"
                        else _honest_cell(design, cell, design.subset(frame, c), c))
            cells[(name, c)] = cell
    return cells


def _crossed_cell(design: Design, cell: FigureCell, answers: pd.DataFrame, condition: str) -> FigureCell:
    """The pooled cell with the people x items interval (n/a, with the reason, when it cannot be computed)."""
    labels, weights = design.strata(answers, condition)
    est = crossed_estimate(design.labels(answers, "who"), design.labels(answers, "unit"),
                           answers["score"].to_numpy(dtype=float), strata=labels, weights=weights)
    extra = dict(cell.extra)
    extra["people"] = est.n_people
    if est.available:
        extra["df"] = round(est.df, 2)
    else:
        extra["ci_note"] = est.note
    return FigureCell(cell.value, est.ci_low, est.ci_high, cell.n_units, est.n_people, CROSSED_METHOD, extra)


PARTICIPANT_METHOD = "Wilson, Kish effective n over the strata"


def _participant_cell(design: Design, cell: FigureCell, units: pd.DataFrame, condition: str) -> FigureCell:
    """One person's cell: every participant by the same method, chosen from the design, never from the data.

    Switching a person's interval to another method where some stratum happened to be constant made the cells
    of one table differ in coverage (bootstrap cells 91.5%, Wilson-Kish cells 99.8% in the audit); Wilson with
    Kish's effective n is defined for any number of answers (one tuple included) and never zero width.
    """
    if cell.method == "Wilson" or not len(units):
        return cell
    labels, weights = design.strata(units, condition)
    values = units["score"].to_numpy(dtype=float)
    lo, hi = stats.wilson_kish_ci(values, labels, weights)
    extra = {k: v for k, v in cell.extra.items() if k != "ci_note"}
    return FigureCell(cell.value, lo, hi, cell.n_units, cell.n_participants, PARTICIPANT_METHOD, extra)


def _honest_cell(design: Design, cell: FigureCell, units: pd.DataFrame, condition: str) -> FigureCell:
    """One person's or model's cell, never with an interval narrower than its number of answers supports.

    A bootstrap has nothing to resample in a stratum whose scores are all equal (8 of 8 right prints [100, 100]);
    there the interval is the Wilson interval with Kish's effective n over the strata
    (:func:`benchlab.data.analysis.stats.wilson_kish_ci`), which is the Wilson interval for one stratum.
    """
    if cell.method.startswith("Wilson") or not len(units):
        return cell
    if cell.ci_low != cell.ci_low:
        extra = dict(cell.extra)
        extra.setdefault("ci_note", "too few answers for this interval")
        return FigureCell(cell.value, cell.ci_low, cell.ci_high, cell.n_units, cell.n_participants, cell.method,
                          extra)
    labels, weights = design.strata(units, condition)
    values = units["score"].to_numpy(dtype=float)
    if labels is None:
        constant = len(np.unique(values)) < 2
    else:
        constant = stats.has_constant_stratum(values, labels)
    if not constant and cell.ci_high - cell.ci_low > 1e-12:
        return cell
    lo, hi = stats.wilson_kish_ci(values, labels, weights)
    return FigureCell(cell.value, lo, hi, cell.n_units, cell.n_participants,
                      "Wilson, Kish effective n (a stratum without variation: nothing to bootstrap)", dict(cell.extra))
