"""SORT / BookSORT: every participant, the pooled humans and every model per configuration and distance bin.

Rows are read with :func:`benchlab.data.sort.items.read_rows` (the shared scoring rule: X is wrong,
``correct = answer == ground_truth``); the item identity (book, excerpt, distance bin within a configuration) and
response times come from the same CSV rows. Practice rows are left out. This module only declares what is
SORT's own (:class:`SortDesign`); :mod:`benchlab.data.analysis.pipeline` builds the comparison.

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

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import Comparison
from benchlab.data.analysis.design import FrameMemo, RowsWhere, narrowed
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
    wilson_cell,
)
from benchlab.data.analysis.stats import AttentionCriterion, FigureCell
from benchlab.data.models.same_items import prompt_hash_notes, restrict_to_shared
from benchlab.data.sort.design_notes import extension_note, lme4_note, position_table, since_reading_note
from benchlab.data.sort.items import MODEL_DEFAULT_MEMORY, read_rows
from benchlab.data.sort.reading import reading_tables, recorded_reading
from benchlab.data.sort.session_plans import plans_near
from benchlab.data.tables import Table

__all__ = ["OVERALL", "SortDesign", "compare_sort", "read_rows", "watched_files"]


def watched_files(paths: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*_results.csv") if f.is_file()))
        elif p.exists():
            out.append(p)
    return out


def _sort_key(cond: str) -> tuple[str, int, int, int]:
    """Order of the columns: memory condition, excerpt length, segment length, then distance bins (``e250-s20
    d62``) or gap bins (``e69607-s20 gap 1k-1.5k``); a memory condition prefixes them (``LTM e250-s20 d62``)."""
    words = cond.split()
    at = next(i for i, w in enumerate(words) if w.startswith("e") and "-s" in w)
    le, ls = words[at][1:].split("-s")
    rest = " ".join(words[at + 1:])
    if rest.startswith("gap "):
        upper = rest.removeprefix("gap ").split("-")[-1]
        edge = round(float(upper[:-1]) * 1000) if upper.endswith("k") else int(upper)
    else:
        edge = int(rest.removeprefix("d")) if rest else -1
    return (" ".join(words[:at]), int(le), int(ls), edge)


def overall_of(memory: str) -> str:
    """The macro column of one memory condition: ``overall`` when there is one, else ``STM overall`` ..."""
    return f"{memory} {OVERALL}" if memory else OVERALL


class SortDesign(Design):
    """SORT's declarations: trials scored right/wrong, items paired, configurations as strata."""

    benchmark = "SORT"
    unit = "trials"
    unit_word = "items"
    participant_test = "mcnemar"
    unpaired_label = "unpaired bootstrap (no shared items)"
    unpaired_min = 2
    pool_first = ("config", "bin", "memory")  # a memory condition's overall column filters the pooled units on it
    agreement_items_sorted = True

    def __init__(self, options: Options, several_configs: bool, designs: list[str] | None = None,
                 input_notes: list[str] | None = None, warnings: Sequence[str] = ()) -> None:
        self.options = options
        self.several_configs = several_configs
        self.designs = [d for d in designs or [] if d]
        self.input_notes = input_notes or []
        self.warnings = list(warnings)
        self._subsets: FrameMemo[pd.DataFrame] = FrameMemo()
        self._rows_where = RowsWhere()

    def subset(self, frame: pd.DataFrame, condition: str) -> pd.DataFrame:
        """A row's trials in ``condition``, once per frame and condition (cells, tests and partial rows ask for the
        same ones; each selection of a frame with SORT's ~30 columns costs ~1 ms)."""
        return self._subsets.get(frame, condition, self._subset)

    def _subset(self, frame: pd.DataFrame, condition: str) -> pd.DataFrame:
        if condition == OVERALL:
            return frame
        if condition.endswith(" " + OVERALL):  # one memory condition's macro column: never across them
            return self._rows_where(frame, "memory", condition[: -len(OVERALL) - 1])
        col = "bin" if _sort_key(condition)[3] != -1 else "config"  # "[LTM ]e250-s20 d62" / "... gap 0-400"
        return self._rows_where(frame, col, condition)

    def strata(self, frame: pd.DataFrame, condition: str) -> Strata:
        return (frame["config"].tolist() if _is_overall(condition) else None), None

    def strata_note(self, condition: str) -> str:
        return " (stratified by configuration)" if _is_overall(condition) else ""

    def primary_conditions(self, conditions: list[str]) -> list[str]:
        """The primary contrast per memory condition (each its own measurement): its overall column, or its one
        configuration where it has only one; bins are never primary."""
        overall = [c for c in conditions if _is_overall(c)]
        covered = {c.removesuffix(OVERALL).strip() for c in overall}
        single = [c for c in conditions
                  if not _is_overall(c) and _sort_key(c)[3] == -1 and _sort_key(c)[0] not in covered]
        return overall + single

    def extra_tables_with_answers(self, rows: list[tuple[str, pd.DataFrame]], labels: dict[str, str],
                                  pooled_answers: pd.DataFrame) -> dict[str, tuple[Table, Table]]:
        positions = position_table(pooled_answers)
        return {"positions": positions} if positions is not None else {}

    def participant_tests_in(self, condition: str) -> bool:
        return not (_is_overall(condition) and self.several_configs)

    def ask_ahead(self, models: list[tuple[str, pd.DataFrame]], conditions: list[str], extra: bool) -> None:
        ask_cells_ahead(self, models, conditions)  # each model's overall: a bootstrap over its trials

    def cell(self, kind: RowKind, name: str, frame: pd.DataFrame, condition: str,
             n_people: int) -> FigureCell | None:
        """Trials: Wilson per configuration / bin, overall a configuration-stratified bootstrap; pooled: items."""
        rows = self.subset(frame, condition)
        if not len(rows):
            return None
        values = rows["score"].to_numpy(dtype=float)
        if kind == "humans":
            method = "bootstrap over items" + (" stratified by configuration" if _is_overall(condition) else "")
            return bootstrap_cell(values, self.strata(rows, condition), n_people, method, self.options,
                                  interval=not self.interval_replaced(kind))
        if _is_overall(condition):
            return bootstrap_cell(values, self.strata(rows, condition), n_people,
                                  "bootstrap stratified by configuration", self.options,
                                  interval=not self.interval_replaced(kind))
        return wilson_cell(values, n_people)

    def notes(self, simulated_line: str) -> list[str]:
        o = self.options
        return [
            "Scores: accuracy (X = no answer counts as wrong); overall = mean over configurations (the original's "
            "macro).",
            "95% CI: Wilson per configuration / distance bin; overall: one participant's by Wilson with Kish's "
            "effective n over the configurations (every participant by the same method, chosen from the design), a "
            f"model's by a bootstrap stratified by configuration ({o.n_boot} resamples, seed {o.seed}), or Wilson-Kish "
            "where a configuration has no variation (8 of 8 right is [67.6, 100], never [100, 100]).",
            "Pooled humans: each item once, scored as the mean over the participants who answered it"
            + ("; flagged participants excluded" if o.exclude_flagged else "") + ". 95% CI: crossed people x "
            "items (method-of-moments variance components for people, item-clustered variance for items, variance "
            "x (1 + 1/people), t with df = min(Satterthwaite, people - 1), on the logit scale), so it "
            "widens with few people; n/a (with the reason) for one participant or no variation. Checked by "
            "`benchlab bench coverage`.",
            "Tests (each printed interval inverts the printed test: one method for both): participant vs model = "
            "the paired score test on shared items (McNemar's statistic) with Tango's interval, never zero width; "
            "without shared items the Agresti-Caffo two-proportion test and interval; pooled humans vs model on "
            "shared items = the crossed people x items t-test and its interval (the same t); with one participant "
            "the paired score test (about that person); unpaired bootstrap without shared items.",
            simulated_line,
            f"Attention criterion: {o.criterion.describe()} (control accuracy = accuracy on all trials)"
            + (": the scored outcome itself, so excluding on it selects on the result; EXPLORATORY (declare "
               "rules on practice trials, response times, seen share or completion in the study file instead)."
               if o.criterion.min_control_accuracy is not None else "."),
            "Agreement: answers (A/B/X) to the same item by two or more participants; Fleiss' kappa.",
            "Items: configuration / book / excerpt / distance bin; practice rows are left out.",
            *self._design_notes(),
            *self.input_notes,
            *(f"scoring warning: {w}" for w in self.warnings),
        ]

    def _design_notes(self) -> list[str]:
        """Which memory conditions (and delays) the columns hold; they are never pooled or paired across."""
        if not self.designs:
            return []
        model_default = (f" Model files without a condition column are taken as {MODEL_DEFAULT_MEMORY} (excerpt in "
                         "the prompt, the original evaluation's default).")
        if len(self.designs) == 1:
            return [f"Condition: {self.designs[0]} for every row.{model_default}"]
        return [f"Conditions kept apart (own columns, own overall, never pooled or paired across): "
                f"{', '.join(self.designs)}.{model_default}"]


def _is_overall(condition: str) -> bool:
    return condition == OVERALL or condition.endswith(" " + OVERALL)


def read_sort(paths: Sequence[str | Path], by_bin: bool = True,
              on_warning: Callable[[str], None] | None = None, notes: list[str] | None = None) -> Readings:
    """SORT results CSVs in the pipeline's terms: trials as units (``unit`` = item), participants' answers
    (``notes`` gets a line for sessions whose delay is a measured one, no plan being found)."""
    frame = read_rows(paths, on_warning)
    measured = list(frame.attrs.get("measured_delays", []))
    if measured and notes is not None:
        notes.append("Delay labels of " + ", ".join(measured) + " are from the measured delays (median of the "
                     "session's trials, to 0.1 s): no saved plan was found beside the results; the others are the "
                     "delays the sessions' plans declare.")
    frame = frame.assign(unit=frame["item"], score=frame["correct"].astype(float))
    # read: pandas deep-copies a frame's attrs into every frame made from it (each selection of each cell and test)
    frame.attrs = {}
    configs = sorted(frame["config"].unique(), key=_sort_key)
    bins = sorted(frame["bin"].unique(), key=_sort_key) if by_bin else []
    designs = sorted({_sort_key(c)[0] for c in configs})
    conditions: list[str] = []
    for design in designs:  # each design (STM, LTM, a delay) on its own: its macro, then its configurations
        own = [c for c in configs if _sort_key(c)[0] == design]
        label = OVERALL if len(designs) == 1 else overall_of(design)
        conditions += ([label] if len(own) > 1 else []) + [
            c for cfg in own for c in [cfg, *[b for b in bins if b.startswith(cfg + " ")]]]
    humans = frame[frame["is_human"]]
    models = frame[~frame["is_human"]]
    participants = []
    rows_where = RowsWhere()  # one grouping of the people's rows, not a comparison over all of them per person
    for pid in sorted(humans["who"].unique()):
        person = rows_where(humans, "who", pid)
        rts = person["rt_ms"].to_numpy(dtype=float)
        answers = pd.DataFrame({"rt_ms": rts, "correct": person["correct"].to_numpy(dtype=bool),
                                "group": person["config"].to_numpy(dtype=object),
                                "item": [i if i != "" else None for i in person["item"]],
                                "answer": person["answer"].to_numpy(dtype=object)})
        simulated = next((s for s in person["simulated"].astype(str) if s), "")
        participants.append(Participant(pid, answers, simulated, float(person["correct"].mean()), rts))
    return Readings(humans, models, participants, sorted(models["who"].unique()), conditions, configs)


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
    on_warning: Callable[[str], None] | None = None,
    excluded: Mapping[str, tuple[str, ...]] | None = None,
    same_items: bool = True,
    tables: Iterable[str] | None = None,
) -> Comparison:
    """Build the comparison from results CSVs or folders (humans: model names ``human-<id>``).

    ``same_items`` (default) scores each model on the items people answered only (what was left out on each side,
    and whether the prompts' hashes agree, goes into the notes: :mod:`benchlab.data.models.same_items`).

    Simulated participants (the ``simulated`` column, e.g. ``run sort --simulate oracle``) keep their own labelled
    row but stay out of the pooled humans, spread and agreement unless ``include_simulated``. Reading warnings
    (a trial answered twice, a cut last row) go to ``on_warning`` and into the comparison's notes. ``tables``
    (the ``--only`` names; default all): work for the other tables is skipped, the printed numbers stay the same.
    """
    options = Options(criterion or AttentionCriterion(), exclude_flagged, n_boot, seed, rt_quantiles,
                      participant_tests, include_simulated, excluded=dict(excluded or {}),
                      tables=None if tables is None else frozenset(tables))
    warnings: list[str] = []

    def warn(message: str) -> None:
        warnings.append(message)
        if on_warning is not None:
            on_warning(message)

    delay_notes: list[str] = []
    readings = read_sort(paths, by_bin, warn, delay_notes)
    if same_items:
        models, same = restrict_to_shared(readings.humans, readings.models)
        readings = replace(readings, models=models)
        for note in [*same, *prompt_hash_notes(paths)]:
            warn(note)
    designs = sorted(set(readings.humans["memory"]) | set(readings.models["memory"]))
    notes = _foreign_files(paths) + delay_notes + _study_notes(readings, [str(p) for p in paths])
    if not readings.models.empty:
        bare = sorted(set(readings.humans["memory"]) - set(readings.models["memory"]))
        if bare:
            notes.append(f"{', '.join(d or 'No condition' for d in bare)}: no model data (humans only there; no "
                         "human-model test).")
    comp = run_comparison(SortDesign(options, len(readings.groups) > 1, designs, notes, warnings),
                          narrowed(readings, PIPELINE_COLUMNS), options)  # not 31 columns per selection
    comp.models_same_items = same_items
    pooled = {e.name for e in comp.pooled_people}
    if recorded_reading(readings.humans):  # section `reading` (figures slice); files without reading times: none
        comp.extra_tables["reading"] = reading_tables(readings.humans, pooled)
    return comp


#: The columns of the trials that the pipeline and :class:`SortDesign` read (rows, strata, pooling, the positions
#: table); the reading, delay and session columns are read before, from the full frames.
PIPELINE_COLUMNS = ("who", "unit", "score", "config", "bin", "memory", "design", "excerpt_length", "seg1_pos",
                    "seg2_pos")


def _study_notes(readings: Readings, paths: list[str]) -> list[str]:
    """The mixed model offered as the primary analysis (or why not), STM people as an extension of the paper,
    and the time since reading the book of whole-book LTM sessions."""
    people = readings.humans[readings.humans["simulated"].astype(str) == ""]
    per_memory = people.groupby("memory")["who"].nunique().to_dict()
    bins = people.groupby("memory")["distance_bin"].nunique().to_dict()
    out = [lme4_note({str(k): int(v) for k, v in per_memory.items()}, {str(k): int(v) for k, v in bins.items()},
                     paths)]
    extension = extension_note({str(m) for m in people["memory"]})
    if extension:
        out.append(extension)
    whole = readings.humans[readings.humans["design"] == "whole-book"]  # pilots too: their plans say it as well
    hours: dict[str, float] = {}
    for (source, participant, session), _rows in whole.groupby(["source", "participant", "session"]):
        planned = plans_near(str(source)).get((str(participant), str(session), "ltm"))
        hours[f"{participant} session {session}"] = planned.since_reading_h if planned is not None else math.nan
    since = since_reading_note(hours)
    if since:
        out.append(since)
    return out


def _foreign_files(paths: Sequence[str | Path]) -> list[str]:
    """A note for other benchmarks' results files in the folders given (they are left out, said once per folder)."""
    out = []
    for raw in paths:
        folder = Path(raw)
        if not folder.is_dir():
            continue
        foreign = sorted(p for p in folder.rglob("*___results.jsonl") if p.is_file())
        if foreign:
            out.append(f"Not SORT results, left out: {len(foreign)} WorldSense-style file(s) "
                       f"(<prompting>___<model>___results.jsonl, e.g. {foreign[0].name}) in {folder}; compare them "
                       "with `benchlab compare worldsense`.")
    return out
